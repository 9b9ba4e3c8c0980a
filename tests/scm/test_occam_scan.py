"""The Occam scan (numpy, every cut of every feature) against a direct Python computation."""

import itertools

import numpy as np
import pytest

import widefs.scm._occam as occam_module
from widefs.scm import dyadic_bits
from widefs.scm._occam import best_occam_cut
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


def _scan(X, y, active, lo, hi, p, eta, next_all, use):
    sf = SortedFeatures.from_matrix(X, index_dtype=np.int32)
    n_rem, p_norm = float(np.sum(active & ~y)), max(float(np.sum(y)), 1.0)
    return best_occam_cut(
        sf.order, sf.values, y, active, X.shape[0], lo, hi, p, eta, n_rem, p_norm, next_all, use
    )


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("next_all", [False, True])
@pytest.mark.parametrize("eta", [0.0, 0.05, 0.4])
def test_best_cut_matches_brute_force(seed, next_all, eta):
    # eta = 0.4 makes the code length decide between cuts, so only coding the cuts that can
    # still win (the scan's shortcut) is put to the test; many ties exercise the tie rules.
    rng = np.random.default_rng(seed)
    m, F = 25, 7
    X = rng.integers(0, 6, size=(m, F)).astype(float) * 0.37  # many ties
    y = rng.random(m) < 0.5
    active = rng.random(m) < 0.7
    use = rng.random(F) < 0.8
    lo, hi = X.min(axis=0) - 1, X.max(axis=0) + 1
    got = _scan(X, y, active, lo, hi, 1.3, eta, next_all, use)
    ref = _brute(X, y, active, lo, hi, 1.3, eta, next_all, use)
    assert ref is not None
    assert got == ref  # the same float operations: equal scores, not just close


@pytest.mark.parametrize("seed", range(4))
def test_best_cut_in_chunks_matches_brute_force(seed, monkeypatch):
    # Features scanned a few at a time: a later chunk wins only when strictly better.
    monkeypatch.setattr(occam_module, "_CHUNK_POSITIONS", 40)
    rng = np.random.default_rng(10 + seed)
    m, F = 20, 9
    X = rng.integers(0, 3, size=(m, F)).astype(float)
    X[:, 5:] = X[:, [0, 1, 2, 3]]  # copies in later chunks: a tie must go to the first
    y = rng.random(m) < 0.5
    active = np.ones(m, dtype=bool)
    lo, hi = np.full(F, -1.0), np.full(F, 3.0)
    use = np.ones(F, dtype=bool)
    got = _scan(X, y, active, lo, hi, 1.0, 0.01, False, use)
    assert got == _brute(X, y, active, lo, hi, 1.0, 0.01, False, use)


def test_best_uncodable_cut_is_skipped():
    # Feature 0 separates the classes perfectly, but between 1 and the next double, a
    # sliver far narrower than the grid of [0, 2^80] resolves: no code, the cut is skipped
    # and the scan falls back to the next cuts by utility (feature 1, one error).
    nxt = np.nextafter(1.0, 2.0)
    X = np.array([[1.0, 2.0], [1.0, 2.0], [1.0, 9.0], [nxt, 20.0], [nxt, 30.0], [nxt, 40.0]])
    y = np.array([False, False, False, True, True, True])
    lo, hi = np.zeros(2), np.full(2, 2.0**80)
    lo[1], hi[1] = 0.0, 64.0
    assert dyadic_bits(1.0, nxt, 0.0, 2.0**80)[0] == -1
    active, use = np.ones(6, dtype=bool), np.ones(2, dtype=bool)
    got = _scan(X, y, active, lo, hi, 1.0, 0.01, False, use)
    ref = _brute(X, y, active, lo, hi, 1.0, 0.01, False, use)
    assert got == ref and got[2] == 1


def test_inactive_values_make_no_cut():
    # The lowest value belongs to an example no longer active: no cut may start from it
    # (only active examples make cuts), so the only cut is between the active values.
    X = np.array([[0.0], [1.0], [1.0], [3.0]])
    y = np.array([False, False, True, True])
    active = np.array([False, True, True, True])
    lo, hi = np.full(1, -1.0), np.full(1, 4.0)
    got = _scan(X, y, active, lo, hi, 1.0, 0.01, False, np.ones(1, bool))
    assert got == _brute(X, y, active, lo, hi, 1.0, 0.01, False, np.ones(1, bool))
    assert got[4:] == (1.0, 3.0)
    X[1:3] = 3.0  # the active examples all equal: no cut at all
    got = _scan(X, y, active, lo, hi, 1.0, 0.01, False, np.ones(1, bool))
    assert got[2] == -1


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
