"""Which classes' candidates could pass CN2's likelihood-ratio test (walks stop early for
the others), against every class-count vector a candidate can hold."""

import itertools

import numpy as np
import pytest

from widefs.rules._beam_quality import could_pass
from widefs.rules._table import CandidateTable

from .test_search import _check_round, distinct_problem


def _statistic(f, base_p):
    """The test's statistic of :func:`widefs.rules._beam_quality._significant`."""
    cover = f.sum()
    return 2.0 * sum(v * np.log(v / (cover * p)) for v, p in zip(f, base_p) if v > 0)


@pytest.mark.parametrize("seed", range(60))
def test_a_class_ruled_out_has_no_candidate_passing_the_test(seed):
    """Every count vector f <= T (cover >= 1) predicting class c (its largest count, or with
    a target, any): where could_pass says no, none passes; and each class it allows has a
    vertex of that set at or above the threshold (exactly where one exists)."""
    rng = np.random.default_rng(seed)
    C = int(rng.integers(2, 5))
    counts = rng.integers(0, 9, size=(int(rng.integers(1, 4)), C))
    counts[:, 0] += 1
    base = counts.sum(axis=0) + rng.integers(0, 4, C)
    base_p = base / base.sum()
    threshold = float(rng.choice([1.0, 2.7, 3.84, 6.6]))
    for target in (-1, int(rng.integers(0, C))):
        out = could_pass(counts, target, True, base_p, threshold)
        assert out.shape == counts.shape
        assert could_pass(counts, target, False, base_p, threshold).all()
        for b, T in enumerate(counts):
            top = np.zeros(C)
            for f in itertools.product(*(range(t + 1) for t in T)):
                f = np.array(f)
                if f.sum() == 0:
                    continue
                for c in range(C):
                    if (target < 0 and f[c] == f.max()) or c == target:
                        top[c] = max(top[c], _statistic(f, base_p))
            for c in range(C):
                if target < 0 or c == target:
                    assert out[b, c] == (top[c] > threshold), (b, c, top[c])
                else:
                    assert out[b, c]  # a class no candidate predicts: not ruled out


def test_the_extreme_candidate_can_tie_the_smaller_class():
    """Class 0 is 90% of the rows the test compares with: of its candidates within counts
    (5, 2), the one tying class 1 at (2, 2) is the farthest from that (statistic 4.09; 1.89
    at (5, 2), 1.05 at (5, 0))."""
    base_p = np.array([0.9, 0.1])
    out = could_pass(np.array([[5, 2]]), -1, True, base_p, 3.0)
    assert out.tolist() == [[True, True]]
    assert _statistic(np.array([2, 2]), base_p) > 3.0 > _statistic(np.array([5, 2]), base_p)
    assert not could_pass(np.array([[5, 2]]), -1, True, base_p, 4.2)[0, 0]


def test_could_pass_without_a_finite_threshold_or_with_many_classes():
    counts = np.array([[3, 1], [0, 4]])
    assert not could_pass(counts, -1, True, np.array([0.5, 0.5]), np.inf).any()
    many = np.ones((2, 7), dtype=np.int64)
    assert could_pass(many, -1, True, np.ones(7) / 7, 3.84).all()


@pytest.mark.parametrize("seed", range(80))
def test_walks_cut_short_for_classes_that_cannot_pass_keep_the_ranking(seed, reference):
    """Members of few rows under the significance test, so a best is often never found or
    found with a low quality, and a class none of whose candidates could pass leaves the
    walks once the kept list no longer wants it: the round keeps, picks and reports the
    best that the full ranking does."""
    rng = np.random.default_rng(seed)
    n, F, C = int(rng.integers(10, 40)), int(rng.integers(5, 30)), int(rng.integers(2, 4))
    problem = distinct_problem(rng, n, F, C)
    assert CandidateTable.build(problem[1], *problem[3:]).walk_distinct.all()
    cov = rng.random((int(rng.integers(1, 3)), n)) < rng.uniform(0.15, 0.5)
    cov[:, : int(rng.integers(2, 4))] = True  # a few rows, of more than one class
    target = int(rng.integers(-1, C))
    quality = ["laplace", "m_estimate"][seed % 2]
    _check_round(reference, problem, cov, quality, target, 1, True, int(rng.integers(1, 4)))
