"""The Occam scan kernel and the numba dyadic code against direct Python computations."""

import itertools

import numpy as np
import pytest

from widefs.scm import dyadic_bits
from widefs.scm._occam_kernels import best_occam_cut
from widefs.stumps import SortedFeatures


def _brute(X, y_pos, active, lo, hi, p, eta, next_all, use):
    """Every cut between consecutive distinct active values of every used feature, both parts."""
    n_rem = float(np.sum(active & ~y_pos))
    p_norm = max(float(np.sum(y_pos)), 1.0)
    best = None
    for f in np.flatnonzero(use):
        for a, b_act in itertools.pairwise(np.unique(X[active, f])):
            b = X[X[:, f] > a, f].min() if next_all else b_act
            bits, _ = dyadic_bits(a, b, lo[f], hi[f])
            if bits < 0:
                continue
            left = active & (X[:, f] <= a)
            right = active & ~left
            for side, part in ((0, left), (1, right)):
                q, r = float(np.sum(part & ~y_pos)), float(np.sum(part & y_pos))
                score = q / n_rem - p * r / p_norm - eta * bits
                # score desc, tie desc, feature asc, threshold asc, left part first
                key = (-score, -(q - r), f, a, side)
                if best is None or key < best[0]:
                    best = (key, (score, q - r, f, side, a, b))
    return None if best is None else best[1]


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("next_all", [False, True])
def test_best_cut_matches_brute_force(seed, next_all):
    rng = np.random.default_rng(seed)
    m, F = 25, 7
    X = rng.integers(0, 6, size=(m, F)).astype(float) * 0.37  # many ties
    y = rng.random(m) < 0.5
    active = rng.random(m) < 0.7
    use = rng.random(F) < 0.8
    lo, hi = X.min(axis=0) - 1, X.max(axis=0) + 1
    sf = SortedFeatures.from_matrix(X, index_dtype=np.int32)
    p, eta = 1.3, 0.05
    n_rem, p_norm = float(np.sum(active & ~y)), max(float(np.sum(y)), 1.0)
    got = best_occam_cut(
        sf.order, sf.values, y, active, m, lo, hi, p, eta, n_rem, p_norm, next_all, use
    )
    ref = _brute(X, y, active, lo, hi, p, eta, next_all, use)
    assert ref is not None
    assert got[0] == pytest.approx(ref[0], rel=1e-12)
    assert got[1:] == ref[1:]


def test_no_cut_gives_no_feature():
    X = np.array([[1.0, 2.0], [1.0, 2.0], [1.0, 5.0]])  # feature 1 only varies on row 2
    sf = SortedFeatures.from_matrix(X, index_dtype=np.int32)
    y = np.array([True, False, False])
    active = np.array([True, True, False])
    lo, hi = np.zeros(2), np.full(2, 8.0)
    got = best_occam_cut(
        sf.order, sf.values, y, active, 3, lo, hi, 1.0, 0.0, 1.0, 1.0, False, np.ones(2, bool)
    )
    assert got[2] == -1 and got[0] == -np.inf
