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


def _assert_packed(X, P, bits, end_flags):
    """``P`` is the stable argsort of every column of ``X`` with exact run flags."""
    P = P.astype(np.int64)
    rows = (P & (2**bits - 1)).astype(int)
    np.testing.assert_array_equal(rows, np.argsort(X + 0.0, axis=0, kind="stable"))
    v = np.take_along_axis(X, rows, axis=0)
    new_run = v[1:] != v[:-1]
    np.testing.assert_array_equal((P[1:] & 2**bits) != 0, new_run)
    assert not (P[0] & 2**bits).any()
    ends = (P & 2 ** (bits + 1)) != 0
    np.testing.assert_array_equal(ends[:-1], new_run & end_flags)
    assert not ends[-1].any()


@pytest.mark.parametrize("end_flags", [False, True])
def test_packed_presort_orders_every_column(end_flags):
    rng = np.random.default_rng(5)
    m = 37
    X = _hard_columns(m, rng)
    bits = (m - 1).bit_length()
    P = packed_presort(X, bits=bits, end_flags=end_flags)
    assert P.dtype == np.uint8  # 6 index bits and two flags
    _assert_packed(X, P, bits, end_flags)


def _quantization_columns(m, rng, big=1.7e308):
    """Columns for the 32-bit keys: exact integer offsets, scaled values, shared keys."""
    top = 2.0 ** (32 - (m - 1).bit_length()) - 2  # the widest exact span of integers
    return np.column_stack(
        [
            rng.integers(-3000, 3000, size=m).astype(float),  # exact offsets, some ties
            rng.integers(0, 3, size=m) * top + 1e9,  # span exactly top: still exact
            rng.integers(0, 3, size=m) * (top + 1.0),  # one more: scaled, no collision
            # one huge outlier squeezes the rest into one key, in reverse row order
            np.r_[1e12, np.arange(m - 1, 0, -1) * 1e-3],
            # distinct values one step apart at most: shared keys, some out of order
            rng.permutation(m) * 2.0**-30 + rng.integers(0, 2, size=m),
            rng.normal(size=m),
            rng.integers(-2, 3, size=m) + 0.5,  # fractions with many ties
            rng.integers(-1, 2, size=m) * 5e-310,  # subnormals: the scale overflows
            rng.integers(-1, 2, size=m) * big,  # the span overflows (in float64)
        ]
    )


@pytest.mark.filterwarnings("error")  # no NaN or overflow on the way
@pytest.mark.parametrize("end_flags", [False, True])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("one_block", [False, True])
def test_packed_presort_on_32_bit_keys_is_exact(end_flags, dtype, one_block):
    rng = np.random.default_rng(11)
    m = 100  # 7 index bits: 32-bit keys
    X = _quantization_columns(m, rng, big=float(np.finfo(dtype).max)).astype(dtype)
    bits = (m - 1).bit_length()
    # A block shares one choice of offsets or scaled keys: also sort each column alone.
    P = (
        np.column_stack(
            [packed_presort(X[:, [j]], bits=bits, end_flags=end_flags) for j in range(X.shape[1])]
        )
        if one_block
        else packed_presort(X, bits=bits, end_flags=end_flags)
    )
    _assert_packed(X.astype(float), P, bits, end_flags)


def test_a_late_fraction_turns_exact_offsets_into_scaled_keys():
    # 4096 columns: a few rows per chunk, so the first chunks are all integers and the
    # fraction in the last row is met after keys were written as offsets.
    rng = np.random.default_rng(3)
    m, w = 40, 4096
    X = rng.integers(0, 50, size=(m, w)).astype(float)
    X[-1, 7] = X[0, 7] + 0.25
    X[-1, 9] = X[0, 9] + 2.0**-40  # differs from an integer below the offsets' precision
    bits = (m - 1).bit_length()
    _assert_packed(X, packed_presort(X, bits=bits, end_flags=True), bits, True)


@pytest.mark.parametrize("integers", [False, True])
def test_wide_rows_use_the_64_bit_keys_alike(integers):
    rng = np.random.default_rng(4)
    m = 300  # 9 index bits: past the 32-bit keys
    if integers:  # exact keys (nothing is checked again), negative and positive
        X = rng.integers(-5, 5, size=(m, 20)).astype(float)
    else:
        X = np.column_stack([_quantization_columns(m, rng), _hard_columns(m, rng)])
    bits = (m - 1).bit_length()
    _assert_packed(X, packed_presort(X, bits=bits, end_flags=True), bits, True)


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
