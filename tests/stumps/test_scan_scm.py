"""The streaming best-cut scan (presort_features, scan_best_cuts, compact_sorted_features)."""

import itertools

import numba
import numpy as np
import pytest

from widefs.stumps import (
    SortedFeatures,
    compact_sorted_features,
    presort_features,
    scan_best_cuts,
)


@numba.njit
def _gini_scorer(left, total, a, b, lo, hi, params):
    # A non-linear, weighted score of each side (purity of class 1), plus a range term, so
    # the test exercises every scorer argument.
    nl = left[0] + left[1]
    nr = total[0] + total[1] - nl
    s0 = left[1] / nl - params[0] * (b - a) / (hi - lo)
    s1 = (total[1] - left[1]) / nr - params[0] * (b - a) / (hi - lo)
    return s0, left[0], s1, total[0] - left[0]


def _brute(X, W, active, params, lo, hi, next_all):
    """Every cut between consecutive distinct active values, scored directly."""
    F = X.shape[1]
    out = []
    for f in range(F):
        best = (-np.inf, -np.inf, None)
        vals = np.unique(X[active, f])
        for a, b_act in itertools.pairwise(vals):
            b = X[(X[:, f] > a), f].min() if next_all else b_act
            left = active & (X[:, f] <= a)
            L = W[left].sum(axis=0)
            T = W[active].sum(axis=0)
            pen = params[0] * (b - a) / (hi[f] - lo[f])
            cands = [
                (L[1] / L.sum() - pen, L[0], 0),
                ((T[1] - L[1]) / (T.sum() - L.sum()) - pen, T[0] - L[0], 1),
            ]
            for s, t, side in cands:
                if s > best[0] or (s == best[0] and t > best[1]):
                    best = (s, t, (a, b, side))
        out.append(best)
    return out


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("next_value", ["active", "all"])
def test_scan_matches_brute_force(seed, next_value):
    rng = np.random.default_rng(seed)
    m, F = 25, 7
    X = rng.integers(0, 6, size=(m, F)).astype(float) * 0.37  # many ties
    W = rng.random((m, 2))
    active = rng.random(m) < 0.7
    lo, hi = X.min(axis=0) - 1, X.max(axis=0) + 1
    params = np.array([0.3])
    scan = scan_best_cuts(
        presort_features(X),
        W,
        _gini_scorer,
        params,
        active=active,
        feature_range=(lo, hi),
        next_value=next_value,
    )
    for f, (s, t, info) in enumerate(_brute(X, W, active, params, lo, hi, next_value == "all")):
        if info is None:
            assert scan.score[f] == -np.inf
            continue
        assert scan.score[f] == pytest.approx(s, rel=1e-12)
        assert scan.tiebreak[f] == pytest.approx(t, rel=1e-12)
        assert (scan.left_value[f], scan.right_value[f], scan.side[f]) == info


def test_compaction_does_not_change_the_scan():
    rng = np.random.default_rng(3)
    X = rng.integers(0, 9, size=(40, 5)).astype(float)
    W = rng.random((40, 2))
    active = rng.random(40) < 0.5
    sf = presort_features(X)
    before = scan_best_cuts(
        sf, W, _gini_scorer, [0.1], active=active, feature_range=(X.min(0), X.max(0) + 1)
    )
    n = compact_sorted_features(sf, active)
    assert n == active.sum()
    after = scan_best_cuts(
        sf,
        W,
        _gini_scorer,
        [0.1],
        active=active,
        n_positions=n,
        feature_range=(X.min(0), X.max(0) + 1),
    )
    for name in ("score", "tiebreak", "side", "left_value", "right_value"):
        np.testing.assert_array_equal(getattr(before, name), getattr(after, name))
    # Compacted rows are the stable sort of the active rows.
    ref = SortedFeatures.from_matrix(X[active])
    np.testing.assert_array_equal(np.flatnonzero(active)[ref.order], sf.order[:, :n])


def test_presort_features_equals_from_matrix():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 4, size=(300, 11)).astype(float) - 1.5
    # values equal in all but the lowest mantissa bits (they collide in the packed key),
    # signed zeros, NaN, infinities, subnormals
    X[:5, 0] = [1.0, np.nextafter(1.0, 0.0), np.nextafter(1.0, 2.0), 1.0, -1.0]
    X[:4, 1] = [0.0, -0.0, 0.0, -0.0]
    X[3, 2] = np.nan
    X[:3, 3] = [np.inf, -np.inf, 5e-324]
    ref = SortedFeatures.from_matrix(X)
    got = presort_features(X, max_bytes=1000)  # several blocks
    np.testing.assert_array_equal(ref.order, got.order)
    np.testing.assert_array_equal(ref.values, got.values)
    assert got.order.dtype == np.int32


@numba.njit
def _const_scorer(left, total, a, b, lo, hi, params):
    return 1.0, 0.0, 1.0, 0.0


def test_ties_first_cut_then_left_then_lowest_feature():
    X = np.array([[0.0, 5.0], [1.0, 6.0], [2.0, 7.0]])
    scan = scan_best_cuts(presort_features(X), np.ones((3, 1)), _const_scorer)
    assert scan.position.tolist() == [1, 1] and scan.side.tolist() == [0, 0]
    assert scan.best_feature() == 0


def test_scale_free_cuts():
    # Values differing in the last bits or at 1e-300 are still separated (no tolerance).
    X = np.array([[1.0], [np.nextafter(1.0, 2.0)], [1e-300], [2e-300]])
    scan = scan_best_cuts(presort_features(X), np.eye(4)[:, :2], _const_scorer)
    assert scan.left_value[0] == 1e-300 and scan.right_value[0] == 2e-300
