"""The vectorized candidate counts against brute force."""

import numpy as np
import pytest

from widefs.rules._rule import EQ, GT, LE
from widefs.stumps import SortedFeatures, run_layout
from widefs.stumps._scan import threshold_class_counts, threshold_class_counts_many


@pytest.mark.parametrize("seed", range(5))
def test_threshold_class_counts_brute_force(seed):
    rng = np.random.default_rng(seed)
    n, F, C = 40, 4, 3
    X = rng.integers(0, 6, size=(n, F)).astype(float)
    X[rng.random((n, F)) < 0.15] = np.nan
    X[:, 3] = np.nan if seed == 0 else X[:, 3]  # an all-missing column
    y = rng.integers(0, C, n)
    mask = rng.random(n) < 0.7
    got = threshold_class_counts(SortedFeatures.from_matrix(X), y, C, mask)
    rows = []
    for f in range(F):
        col, yy = X[mask, f], y[mask]
        for t in np.unique(col[~np.isnan(col)]):
            left = np.bincount(yy[col <= t], minlength=C)
            right = np.bincount(yy[col > t], minlength=C)
            rows.append((f, t, left.tolist(), right.tolist()))
        missing = np.bincount(yy[np.isnan(col)], minlength=C)
        assert got.missing[f].tolist() == missing.tolist()
    assert (
        list(
            zip(got.feature.tolist(), got.threshold.tolist(), got.left.tolist(), got.right.tolist())
        )
        == rows
    )


def test_threshold_class_counts_empty_mask():
    sf = SortedFeatures.from_matrix(np.arange(6.0).reshape(3, 2))
    got = threshold_class_counts(sf, [0, 1, 0], 2, np.zeros(3, bool))
    assert got.feature.size == 0 and got.missing.tolist() == [[0, 0], [0, 0]]


@pytest.mark.parametrize("seed", range(4))
def test_specialization_counts_brute_force(seed, reference):
    rng = np.random.default_rng(seed)
    n, C = 60, 3
    nominal = np.array([True, False, True, False, False])
    codes = np.full((n, 5), -1)
    numeric = np.full((n, 5), np.nan)
    n_cats = np.array([3, 0, 5, 0, 0])
    for f in (0, 2):
        codes[:, f] = rng.integers(-1, n_cats[f], n)
    for f in (1, 3, 4):
        numeric[:, f] = rng.integers(0, 7, n)
        numeric[rng.random(n) < 0.1, f] = np.nan
    y = rng.integers(0, C, n)
    sf = SortedFeatures.from_matrix(numeric[:, ~nominal])
    data = reference.NodeData.build(y, C, numeric, codes, nominal, n_cats, sf)
    covered = rng.random(n) < 0.6
    got = reference.specialization_counts(data, covered)
    expected = []
    for f in range(5):
        if nominal[f]:
            # every category gets a candidate (an uncovered one counts zero)
            tests = [(EQ, float(v), codes[:, f] == v) for v in range(n_cats[f])]
        else:
            col = numeric[:, f]
            vals = np.unique(col[covered & ~np.isnan(col)])
            tests = [(LE, t, col <= t) for t in vals] + [(GT, t, col > t) for t in vals]
        for op, v, sat in tests:
            counts = np.bincount(y[covered & sat], minlength=C)
            expected.append((f, op, v, counts.tolist()))
    assert (
        list(zip(got.feature.tolist(), got.op.tolist(), got.value.tolist(), got.counts.tolist()))
        == expected
    )


@pytest.mark.parametrize("seed", range(4))
def test_threshold_class_counts_many_equals_per_mask_calls(seed):
    rng = np.random.default_rng(seed)
    n, F, C, M = 35, 3, 4, 5
    X = rng.integers(0, 5, size=(n, F)).astype(float)
    X[rng.random((n, F)) < 0.2] = np.nan
    y = rng.integers(0, C, n)
    masks = rng.random((M, n)) < 0.5
    masks[0] = False  # an empty mask yields no candidate
    sf = SortedFeatures.from_matrix(X)
    many = threshold_class_counts_many(sf, y, C, masks)
    again = threshold_class_counts_many(sf, y, C, masks, run_layout(sf))
    assert again.left.tolist() == many.left.tolist() and again.group.tolist() == many.group.tolist()
    for m in range(M):
        one = threshold_class_counts(sf, y, C, masks[m])
        sel = many.group == m
        assert many.feature[sel].tolist() == one.feature.tolist()
        assert many.threshold[sel].tolist() == one.threshold.tolist()
        assert many.left[sel].tolist() == one.left.tolist()
        assert many.right[sel].tolist() == one.right.tolist()
        assert many.missing[m].tolist() == one.missing.tolist()
