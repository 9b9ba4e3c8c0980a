"""Threshold scans against plain loops over every feature, value and sample.

Boundaries on purpose: integer data with heavy ties (equal values never split), cuts that
fall on an integer (a value equal to the threshold goes left), repeated entries, features
with one value, NaN, wide tables (rows < columns, several feature blocks), equally good
thresholds and class counts that tie.
"""

import itertools

import numpy as np
import pytest

from widefs.stumps import (
    SortedFeatures,
    StumpTable,
    fit_error_stumps,
    predict_stumps,
    run_layout,
)
from widefs.stumps._scan import (
    _prefix_sums,
    threshold_class_counts,
    threshold_class_counts_many,
)


# -- plain references -------------------------------------------------------------------------
def ref_stump(x, y, n_classes):
    """(threshold, left, right, errors) of one feature by trying every cut in a loop.

    Majority classes tie to the lower code; among equally good cuts the smallest wins; a
    cut is used only when it makes strictly fewer errors than predicting the majority.
    """
    n = len(y)
    total = np.bincount(y, minlength=n_classes)
    best = (np.inf, int(np.argmax(total)), int(np.argmax(total)), n - int(total.max()))
    values = np.unique(x)
    for lo, hi in itertools.pairwise(values):
        t = lo + (hi - lo) / 2
        if t >= hi:
            t = lo
        left = np.bincount(y[x <= t], minlength=n_classes)
        right = np.bincount(y[x > t], minlength=n_classes)
        errors = n - int(left.max()) - int(right.max())
        if errors < best[3]:
            best = (float(t), int(np.argmax(left)), int(np.argmax(right)), errors)
    return best


def ref_counts(X, y, n_classes, mask=None):
    """(feature, threshold, left, right) rows and the missing counts, by loops."""
    mask = np.ones(len(y), bool) if mask is None else np.asarray(mask, bool)
    rows, missing = [], []
    for j in range(X.shape[1]):
        x = X[mask, j]
        yy = y[mask]
        for t in np.unique(x[~np.isnan(x)]):
            left = np.bincount(yy[x <= t], minlength=n_classes)
            right = np.bincount(yy[x > t], minlength=n_classes)
            rows.append((j, t, left.tolist(), right.tolist()))
        missing.append(np.bincount(yy[np.isnan(x)], minlength=n_classes).tolist())
    return rows, missing


def _as_rows(c, group=None):
    keep = slice(None) if group is None else c.group == group
    return list(
        zip(
            c.feature[keep].tolist(),
            c.threshold[keep].tolist(),
            c.left[keep].tolist(),
            c.right[keep].tolist(),
            strict=True,
        )
    )


def _integer_data(seed, m=12, n=30, levels=4, n_classes=2):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, levels, size=(m, n)).astype(float)  # ties everywhere, rows < columns
    X[:, 0] = 3.0  # a constant feature
    X[:, 1] = np.arange(m) // 2  # every value twice
    y = rng.integers(0, n_classes, size=m)
    return X, y


# -- fit_error_stumps / predict_stumps ----------------------------------------------------------
@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("seed", range(4))
def test_fit_error_stumps_is_the_plain_loop(seed, n_classes):
    X, y = _integer_data(seed, n_classes=n_classes)
    X[:, 2] = np.round(np.random.default_rng(seed).normal(size=len(y)) * 3) / 3
    table = fit_error_stumps(X, y, n_classes)
    for j in range(X.shape[1]):
        want = ref_stump(X[:, j], y, n_classes)
        got = (
            float(table.threshold[j]),
            int(table.left_class[j]),
            int(table.right_class[j]),
            int(table.train_errors[j]),
        )
        assert got == want, j
    assert table.threshold.dtype == float and table.train_errors.dtype == np.intp


def test_integer_cut_and_equal_values():
    # Two values one apart: the cut is the midpoint; equal values are never split.
    X = np.array([[0.0, 2.0], [1.0, 2.0], [1.0, 3.0], [2.0, 3.0]])
    table = fit_error_stumps(X, [0, 1, 1, 1], 2)
    assert table.threshold.tolist() == [0.5, np.inf]
    assert table.left_class.tolist() == [0, 1] and table.right_class.tolist() == [1, 1]
    assert table.train_errors.tolist() == [0, 1]
    # A value equal to the threshold goes left; just above goes right.
    t = StumpTable(np.array([2.0]), np.array([0]), np.array([1]), np.array([0]))
    assert predict_stumps([[2.0], [np.nextafter(2.0, 3.0)], [1.0]], t).ravel().tolist() == [0, 1, 0]


@pytest.mark.parametrize(
    ("lo", "rounds_up"),
    [(1.0, False), (np.nextafter(1.0, 2.0), True), (-np.nextafter(1.0, 2.0), True)],
)
def test_adjacent_floats_still_split(lo, rounds_up):
    # With an odd last mantissa bit the midpoint rounds up to the upper value: the cut is
    # pulled back to the lower one, so x <= t still separates them.
    hi = np.nextafter(lo, 2.0)
    assert lo + (hi - lo) / 2 == (hi if rounds_up else lo)
    table = fit_error_stumps([[lo], [hi]], [0, 1], 2)
    assert table.threshold.tolist() == [lo] and table.train_errors.tolist() == [0]
    np.testing.assert_array_equal(predict_stumps([[lo], [hi]], table).ravel(), [0, 1])


def test_ties_between_thresholds_and_classes():
    # Cuts after 0 and after 2 both make one error: the smaller threshold wins.
    x = np.array([0.0, 1.0, 2.0, 3.0])
    table = fit_error_stumps(x[:, None], [0, 1, 0, 1], 2)
    assert table.threshold.tolist() == [0.5] and table.train_errors.tolist() == [1]
    # Equal values stay together; the right side {1, 0} ties to the lower code 0.
    x = np.array([[0.0], [0.0], [1.0], [1.0]])
    table = fit_error_stumps(x, [2, 2, 1, 0], 3)
    assert table.threshold.tolist() == [0.5] and table.train_errors.tolist() == [1]
    assert table.left_class.tolist() == [2] and table.right_class.tolist() == [0]
    # The left side {2, 1} ties to the lower code 1.
    table = fit_error_stumps(x, [2, 1, 0, 0], 3)
    assert table.threshold.tolist() == [0.5] and table.train_errors.tolist() == [1]
    assert table.left_class.tolist() == [1] and table.right_class.tolist() == [0]


def test_no_useful_cut_keeps_the_majority():
    # Every cut makes as many errors as the majority (3 of 6 wrong): no threshold.
    x = np.array([[0.0], [0.0], [1.0], [1.0], [2.0], [2.0]])
    table = fit_error_stumps(x, [0, 1, 0, 1, 0, 1], 2)
    assert table.threshold.tolist() == [np.inf] and table.train_errors.tolist() == [3]
    assert table.left_class.tolist() == [0] and table.right_class.tolist() == [0]
    # A majority of class 1 everywhere (a constant feature): predicts 1 on both sides.
    table = fit_error_stumps([[5.0], [5.0], [5.0]], [1, 0, 1], 2)
    assert table.threshold.tolist() == [np.inf]
    assert table.left_class.tolist() == [1] and table.right_class.tolist() == [1]
    assert table.train_errors.tolist() == [1]
    np.testing.assert_array_equal(predict_stumps([[-1e300], [5.0], [1e300]], table).ravel(), 1)
    # One error fewer than the majority is enough.
    table = fit_error_stumps([[0.0], [1.0], [1.0], [2.0]], [0, 1, 1, 0], 2)
    assert table.threshold.tolist() == [0.5] and table.train_errors.tolist() == [1]
    assert table.left_class.tolist() == [0] and table.right_class.tolist() == [1]


def test_wide_table_spans_several_blocks():
    # 9,000 features of 20 rows: three feature blocks of the scan; rows < columns.
    rng = np.random.default_rng(7)
    m, n = 20, 9000
    X = rng.integers(0, 3, size=(m, n)).astype(float)
    y = rng.integers(0, 2, size=m)
    X[:, -1] = y * 2.0  # the last feature separates the classes
    X[:, 4500] = 1.0 - y  # and one in the middle, reversed
    table = fit_error_stumps(X, y, 2)
    for j in range(n):  # every feature, across the block boundaries
        want = ref_stump(X[:, j], y, 2)
        assert (
            float(table.threshold[j]),
            int(table.left_class[j]),
            int(table.right_class[j]),
            int(table.train_errors[j]),
        ) == want, j
    assert table.train_errors[[4500, n - 1]].tolist() == [0, 0]
    assert table.left_class[[4500, n - 1]].tolist() == [1, 0]
    pred = predict_stumps(X, table)
    np.testing.assert_array_equal(pred[:, -1], y)
    np.testing.assert_array_equal((pred != y[:, None]).sum(axis=0), table.train_errors)


def test_predict_stumps_is_the_rule():
    rng = np.random.default_rng(1)
    X, y = _integer_data(2)
    table = fit_error_stumps(X, y, 2)
    X_new = rng.integers(-1, 5, size=(25, X.shape[1])).astype(float)
    X_new[:3] = table.threshold[np.isfinite(table.threshold)].min()  # values at a threshold
    want = np.where(X_new <= table.threshold, table.left_class, table.right_class)
    got = predict_stumps(X_new, table)
    np.testing.assert_array_equal(got, want)
    assert got.shape == X_new.shape


# -- prefix sums, cuts ----------------------------------------------------------------------------
def test_prefix_sums_along_the_sorted_order():
    X, y = _integer_data(3, n=5)
    sf = SortedFeatures.from_matrix(X)
    w = np.arange(len(y)) + 1.0
    out = _prefix_sums(sf, np.column_stack([y, w]), slice(1, 4))
    assert out.shape == (3, len(y) + 1, 2)
    for b, j in enumerate(range(1, 4)):
        order = np.argsort(X[:, j], kind="stable")
        want = np.vstack([[0, 0], np.cumsum(np.column_stack([y, w])[order], axis=0)])
        np.testing.assert_array_equal(out[b], want)
    ints = _prefix_sums(sf, y)
    assert ints.shape == (5, len(y) + 1) and ints.dtype == y.dtype
    assert _prefix_sums(sf, w).dtype == np.float64


def test_valid_cuts_and_thresholds_at_ties():
    odd = np.nextafter(2.0, 3.0)  # its midpoint with the next float rounds up
    X = np.array([[1.0, 0.0], [1.0, -0.0], [odd, 3.0], [np.nextafter(odd, 3.0), 3.0]])
    sf = SortedFeatures.from_matrix(X)
    np.testing.assert_array_equal(sf.valid_cuts(), [[False, True, True], [False, True, False]])
    np.testing.assert_array_equal(sf.valid_cuts(slice(1, 2)), [[False, True, False]])
    t = sf.cut_thresholds()
    assert (
        np.isnan(t[0, 0]) and t[0, 1] == 1.0 + (odd - 1.0) / 2 and t[0, 2] == odd
    )  # adjacent floats: lo
    assert np.isnan(t[1, 0]) and t[1, 1] == 1.5 and np.isnan(t[1, 2])
    assert sf.cut_thresholds(slice(1, 2)).shape == (1, 3)
    # Cuts of large and negative values: the midpoint, strictly below the upper value.
    big = SortedFeatures.from_matrix([[-3.0], [-2.0], [1e308], [np.inf]])
    np.testing.assert_array_equal(big.cut_thresholds()[0, :2], [-2.5, 5e307])


# -- threshold_class_counts, threshold_class_counts_many, run_layout --------------------------------
def _nan_data(seed, m=15, n=6):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 4, size=(m, n)).astype(float)
    X[rng.random((m, n)) < 0.2] = np.nan
    X[:, 0] = np.nan  # a feature with no value at all
    X[:, 1] = 2.0  # one value
    y = rng.integers(0, 3, size=m)
    return X, y


@pytest.mark.parametrize("seed", range(3))
def test_threshold_class_counts_is_the_plain_loop(seed):
    X, y = _nan_data(seed)
    sf = SortedFeatures.from_matrix(X)
    rng = np.random.default_rng(seed)
    for mask in (None, rng.random(len(y)) < 0.6, np.zeros(len(y), bool)):
        c = threshold_class_counts(sf, y, 3, mask)
        rows, missing = ref_counts(X, y, 3, mask)
        assert _as_rows(c) == rows
        assert c.missing.tolist() == missing
        assert c.group is None and c.feature.dtype == np.intp


@pytest.mark.parametrize("seed", range(3))
def test_threshold_class_counts_many_is_each_mask_in_turn(seed):
    X, y = _nan_data(seed)
    sf = SortedFeatures.from_matrix(X)
    rng = np.random.default_rng(10 + seed)
    masks = rng.random((4, len(y))) < 0.5
    masks[0] = True
    masks[1] = False  # covers nothing
    masks[2] = np.isnan(X[:, 2])  # covers only missing values of feature 2
    for layout in (None, run_layout(sf)):
        c = threshold_class_counts_many(sf, y, 3, masks, layout)
        for g, mask in enumerate(masks):
            rows, missing = ref_counts(X, y, 3, mask)
            assert _as_rows(c, g) == rows, g
            assert c.missing[g].tolist() == missing
        assert np.all(np.diff(c.group) >= 0)
    one = threshold_class_counts_many(sf, y, 3, masks[0])
    assert _as_rows(one) == ref_counts(X, y, 3)[0]


def test_run_layout_numbers_the_runs():
    X = np.array([[3.0, 1.0, np.nan], [1.0, 1.0, np.nan], [np.nan, 1.0, np.nan], [1.0, 2.0, 5.0]])
    sf = SortedFeatures.from_matrix(X)
    lay = run_layout(sf)
    # Feature 0 sorted: 1, 1, 3, NaN; feature 1: 1, 1, 1, 2; feature 2: 5, NaN, NaN, NaN.
    assert lay.n_runs == 5
    assert lay.run_id.tolist() == [[0, 0, 1, 5], [2, 2, 2, 3], [4, 7, 7, 7]]
    assert lay.run_feature.tolist() == [0, 0, 1, 1, 2]
    assert lay.run_value.tolist() == [1.0, 3.0, 1.0, 2.0, 5.0]
    assert lay.first_run.tolist() == [0, 2, 4] and lay.end_run.tolist() == [2, 4, 5]
    assert lay.run_id.dtype == np.intp and lay.first_run.dtype == np.intp


def test_run_layout_of_a_feature_without_values():
    X = np.array([[np.nan, 1.0], [np.nan, 0.0]])
    lay = run_layout(SortedFeatures.from_matrix(X))
    assert lay.n_runs == 2 and lay.run_id.tolist() == [[2, 2], [0, 1]]
    assert lay.first_run.tolist() == [0, 0] and lay.end_run.tolist() == [0, 2]


def test_array_likes_of_other_dtypes():
    # Plain lists, integer features, bool class codes and 0/1 masks mean what they say.
    X = [[0, 5], [1, 5], [2, 7], [3, 7]]
    codes = np.array([False, False, True, True])
    table = fit_error_stumps(X, codes, 2)
    assert table.threshold.tolist() == [1.5, 6.0] and table.train_errors.tolist() == [0, 0]
    assert table.left_class.dtype == np.intp and table.train_errors.dtype == np.intp
    assert predict_stumps(X, table).tolist() == [[0, 0], [0, 0], [1, 1], [1, 1]]
    sf = SortedFeatures.from_matrix(X)
    mask = [1, 0, 1, 1]
    c = threshold_class_counts(sf, codes, 2, mask)
    assert (
        _as_rows(c) == ref_counts(np.array(X, float), codes.astype(int), 2, np.array(mask, bool))[0]
    )
    assert c.left.dtype == np.int64 and c.right.dtype == np.int64
    many = threshold_class_counts_many(sf, codes, 2, [mask, [0, 1, 1, 0]])
    assert _as_rows(many, 0) == _as_rows(c)
    assert _as_rows(many, 1) == [
        (0, 1.0, [1, 0], [0, 1]),
        (0, 2.0, [1, 1], [0, 0]),
        (1, 5.0, [1, 0], [0, 1]),
        (1, 7.0, [1, 1], [0, 0]),
    ]
    assert many.left.dtype == np.int64 and many.right.dtype == np.int64


def test_a_given_layout_is_used(monkeypatch):
    from widefs.stumps import _scan

    X, y = _nan_data(0)
    sf = SortedFeatures.from_matrix(X)
    layout = run_layout(sf)
    calls = []
    monkeypatch.setattr(_scan, "run_layout", lambda s: calls.append(s) or layout)
    threshold_class_counts_many(sf, y, 3, np.ones((1, len(y)), bool), layout)
    assert calls == []
    threshold_class_counts_many(sf, y, 3, np.ones((1, len(y)), bool))
    assert calls == [sf]
