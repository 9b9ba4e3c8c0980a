"""The one presort (SortedFeatures.from_matrix, packed_presort) against numpy's stable argsort."""

import numpy as np
import pytest

from widefs.stumps import SortedFeatures, packed_presort


def _hard_columns(m, rng):
    """Columns that break a naive keyed sort: ties, signed zeros, collisions, NaN, inf."""
    return np.column_stack(
        [
            rng.normal(size=m),  # continuous
            rng.integers(-3, 4, size=m).astype(float),  # heavy ties, negatives
            # distinct values differing only in the lowest mantissa bits: the row index
            # overwrites those bits of the keys, so the exact re-sort must kick in
            1.0 + rng.permutation(m) * np.finfo(float).eps,
            -1.0 - rng.permutation(m) * np.finfo(float).eps,
            np.where(rng.random(m) < 0.5, 0.0, -0.0),  # signed zeros are one value
            np.full(m, 7.0),
            np.where(rng.random(m) < 0.2, 5e-324, rng.integers(-2, 3, size=m) * 1e-310),
        ]
    )


@pytest.mark.parametrize("index_dtype", [np.intp, np.int32])
def test_from_matrix_is_the_stable_argsort(index_dtype):
    rng = np.random.default_rng(0)
    X = np.column_stack([_hard_columns(300, rng), rng.integers(0, 4, size=(300, 11)) - 1.5])
    X[:5, 7] = [1.0, np.nextafter(1.0, 0.0), np.nextafter(1.0, 2.0), 1.0, -1.0]
    X[3, 8] = np.nan
    X[[0, 9], 9] = [np.nan, -np.nan]  # NaN of either sign sorts last, as argsort puts it
    X[:3, 10] = [np.inf, -np.inf, 5e-324]
    order = np.argsort(X, axis=0, kind="stable").T
    got = SortedFeatures.from_matrix(X, index_dtype=index_dtype, max_bytes=1000)  # 1 per block
    np.testing.assert_array_equal(got.order, order)
    np.testing.assert_array_equal(got.values, np.take_along_axis(X, order.T, axis=0).T)
    assert got.order.dtype == index_dtype and got.values.dtype == np.float64


def test_from_matrix_checks_its_input():
    with pytest.raises(ValueError, match="two-dimensional"):
        SortedFeatures.from_matrix([1.0, 2.0])
    with pytest.raises(ValueError, match="do not fit in int8"):
        SortedFeatures.from_matrix(np.zeros((200, 1)), index_dtype=np.int8)
    empty = SortedFeatures.from_matrix(np.zeros((0, 3)))
    assert empty.order.shape == (3, 0)


@pytest.mark.parametrize("end_flags", [False, True])
def test_packed_presort_orders_every_column(end_flags):
    rng = np.random.default_rng(5)
    m = 37
    X = _hard_columns(m, rng)
    bits = (m - 1).bit_length()
    P = packed_presort(X, bits=bits, end_flags=end_flags)
    assert P.dtype == np.uint8  # 6 index bits and two flags
    rows = (P & (2**bits - 1)).astype(int)
    np.testing.assert_array_equal(rows, np.argsort(X + 0.0, axis=0, kind="stable"))
    for j in range(X.shape[1]):
        v = X[rows[:, j], j]
        np.testing.assert_array_equal((P[1:, j] & 2**bits) != 0, v[1:] != v[:-1])
        assert not P[0, j] & 2**bits
        ends = (P[:, j] & 2 ** (bits + 1)) != 0
        np.testing.assert_array_equal(ends[:-1], (v[1:] != v[:-1]) & end_flags)
        assert not ends[-1]


def test_packed_presort_dtype_grows_with_the_rows():
    X = np.arange(300.0)[:, None]
    P = packed_presort(X)  # 9 index bits + 1 flag
    assert P.dtype == np.uint16
    assert ((P[:, 0] & 511) == np.arange(300)).all()


@pytest.mark.parametrize("seed", range(3))
def test_compact_keeps_the_active_rows_in_order(seed):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 9, size=(40, 5)).astype(float)
    sf = SortedFeatures.from_matrix(X)
    first = rng.random(40) < 0.7
    n = sf.compact(first)
    assert n == first.sum()
    second = first & (rng.random(40) < 0.6)  # a later, smaller active set
    n = sf.compact(second, n)
    assert n == second.sum()
    ref = SortedFeatures.from_matrix(X[second])  # the stable sort of the active rows
    np.testing.assert_array_equal(sf.order[:, :n], np.flatnonzero(second)[ref.order])
    np.testing.assert_array_equal(sf.values[:, :n], ref.values)


def test_subset_renumbers_without_resorting():
    X = np.array([[3.0, 1.0], [1.0, 1.0], [2.0, 0.0], [0.0, 5.0]])
    mask = np.array([True, False, True, True])
    got = SortedFeatures.from_matrix(X).subset(mask)
    ref = SortedFeatures.from_matrix(X[mask])
    np.testing.assert_array_equal(got.order, ref.order)
    np.testing.assert_array_equal(got.values, ref.values)
    np.testing.assert_array_equal(
        SortedFeatures.from_matrix(X).valid_cuts(), [[True, True, True], [True, False, True]]
    )
