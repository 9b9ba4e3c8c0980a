"""The presort at its boundaries: index widths, key exactness, dtypes, chunking, validators."""

import numpy as np
import pytest

from widefs.stumps import SortedFeatures, _presort, packed_presort


def test_index_dtype_holds_exactly_its_largest_row_count():
    ok = SortedFeatures.from_matrix(np.zeros((127, 2)), index_dtype=np.int8)
    assert ok.order.dtype == np.int8 and ok.order[0].tolist() == list(range(127))
    with pytest.raises(ValueError, match=r"^128 samples do not fit in int8 indices\.$"):
        SortedFeatures.from_matrix(np.zeros((128, 2)), index_dtype=np.int8)
    with pytest.raises(ValueError, match=r"^X must be two-dimensional \(n_samples, n_features\)"):
        SortedFeatures.from_matrix(np.zeros((2, 2, 2)))


def test_empty_shapes():
    no_features = SortedFeatures.from_matrix(np.zeros((4, 0)))
    assert no_features.order.shape == (0, 4) and no_features.values.shape == (0, 4)
    no_rows = SortedFeatures.from_matrix(np.zeros((0, 3)), index_dtype=np.int32)
    assert no_rows.order.shape == (3, 0) and no_rows.order.dtype == np.int32
    assert no_rows.n_features == 3 and no_rows.n_samples == 0
    one = SortedFeatures.from_matrix([[2.0, -1.0]])
    assert one.order.tolist() == [[0], [0]] and one.values.tolist() == [[2.0], [-1.0]]


@pytest.mark.parametrize(
    ("n_rows", "bits"), [(1, 1), (2, 1), (3, 2), (4, 2), (5, 3), (256, 8), (257, 9)]
)
def test_index_bits(n_rows, bits):
    assert _presort._index_bits(n_rows) == bits


@pytest.mark.parametrize(
    ("n_bits", "dtype"),
    [
        (1, np.uint8),
        (8, np.uint8),
        (9, np.uint16),
        (16, np.uint16),
        (17, np.uint32),
        (32, np.uint32),
        (33, np.uint64),
    ],
)
def test_packed_dtype_is_the_smallest_that_holds_the_bits(n_bits, dtype):
    assert _presort._packed_dtype(n_bits) is dtype


@pytest.mark.parametrize(
    ("m", "end_flags", "dtype"),
    [
        (2, False, np.uint8),
        (128, False, np.uint8),
        (129, False, np.uint16),
        (64, True, np.uint8),
        (65, True, np.uint16),
    ],
)
def test_packed_presort_default_width(m, end_flags, dtype):
    X = np.arange(m, 0, -1, dtype=float)[:, None]  # decreasing: the sort reverses the rows
    X[0] = X[1]  # and one tie
    P = packed_presort(X, end_flags=end_flags).astype(np.int64)
    assert packed_presort(X, end_flags=end_flags).dtype == dtype
    bits = max(1, (m - 1).bit_length())
    order = np.argsort(X[:, 0], kind="stable")
    assert (P[:, 0] & (2**bits - 1)).tolist() == order.tolist()
    v = X[order, 0]
    assert ((P[1:, 0] >> bits) & 1).tolist() == (v[1:] != v[:-1]).tolist()
    assert (P[0, 0] >> bits) & 1 == 0
    ends = (P[:-1, 0] >> (bits + 1)) & 1
    assert ends.tolist() == ((v[1:] != v[:-1]) & end_flags).tolist()


def test_two_rows_pack_with_one_index_bit():
    P = packed_presort(np.array([[2.0, 1.0, 1.0], [1.0, 2.0, 1.0]]), end_flags=True)
    # Column 0 sorts to rows 1, 0; column 1 keeps 0, 1; column 2 is one run.
    assert (P & 1).tolist() == [[1, 0, 0], [0, 1, 1]]
    assert ((P >> 1) & 1).tolist() == [[0, 0, 0], [1, 1, 0]]  # run starts
    assert ((P >> 2) & 1).tolist() == [[1, 1, 0], [0, 0, 0]]  # run ends


@pytest.mark.parametrize(("m", "quantized"), [(1, False), (2, True), (256, True), (257, False)])
def test_32_bit_keys_up_to_256_rows(monkeypatch, m, quantized):
    calls = []
    original = _presort._quantized_keys

    def spy(Xb, bits):
        calls.append(bits)
        return original(Xb, bits)

    monkeypatch.setattr(_presort, "_quantized_keys", spy)
    X = np.random.default_rng(0).integers(0, 5, size=(m, 3)).astype(float)
    P = packed_presort(X)
    assert bool(calls) is quantized
    bits = max(1, (m - 1).bit_length())
    rows = P.astype(np.int64) & (2**bits - 1)
    np.testing.assert_array_equal(rows, np.argsort(X, axis=0, kind="stable"))


def test_quantized_keys_are_exact_up_to_their_widest_span():
    bits = 7
    top = 2.0 ** (32 - bits) - 2
    col = np.array([0.0, top, 1.0, top - 1.0])[:, None]
    keys, exact = _presort._quantized_keys(col, bits)
    assert exact
    assert (keys >> bits).tolist() == [[0], [1], [int(top) - 1], [int(top)]]
    assert (keys & (2**bits - 1)).ravel().tolist() == [0, 2, 3, 1]
    _, exact = _presort._quantized_keys(col + np.array([[0.0], [1.0], [0.0], [0.0]]), bits)
    assert not exact  # span top + 1: scaled
    _, exact = _presort._quantized_keys(np.array([[0.0], [0.5], [3.0]]), bits)
    assert not exact  # a fraction: scaled
    keys, exact = _presort._quantized_keys(np.array([[3.0], [3.0]]), bits)
    assert exact and (keys >> bits).ravel().tolist() == [0, 0]


def test_sorted_keys_are_exact_only_without_low_bits():
    keys, exact = _presort._sorted_keys(np.array([[2.0], [-1.0], [-0.0], [0.0]]), 2)
    assert exact
    assert (keys & 3).ravel().tolist() == [1, 2, 3, 0]  # -0.0 and 0.0 are one value, stable
    _, exact = _presort._sorted_keys(np.array([[1.0], [1.0 + np.finfo(float).eps]]), 2)
    assert not exact


def test_row_chunks_cover_every_row_once():
    chunks = list(_presort._row_chunks(10, 3, entries=7))  # two rows of three entries each
    assert [(c.start, c.stop) for c in chunks] == [(0, 2), (2, 4), (4, 6), (6, 8), (8, 10)]
    assert [(c.start, c.stop) for c in _presort._row_chunks(5, 0, entries=2)] == [
        (0, 2),
        (2, 4),
        (4, 5),
    ]
    assert [(c.start, c.stop) for c in _presort._row_chunks(3, 100, entries=7)] == [
        (0, 1),
        (1, 2),
        (2, 3),
    ]


def test_many_row_chunks_keep_the_sort_exact():
    # 5000 columns: one row per chunk; the exact flag must hold over all chunks, including a
    # fraction met only in the last row.
    rng = np.random.default_rng(2)
    X = rng.integers(-3, 3, size=(12, 5000)).astype(float)
    X[-1, 4999] = 0.5 + 2.0**-40  # collides with 0.5 in the kept bits, and with its row
    X[0, 4999] = 0.5
    sf = SortedFeatures.from_matrix(X)
    np.testing.assert_array_equal(sf.order, np.argsort(X, axis=0, kind="stable").T)


def test_subset_checks_the_mask_length():
    sf = SortedFeatures.from_matrix([[1.0], [0.0], [2.0]])
    for bad in ([True, False], [True] * 4, [[True, False, True]]):
        with pytest.raises(ValueError, match=r"^sample_mask must have one entry per sample\.$"):
            sf.subset(bad)
    assert sf.subset([False, False, False]).order.shape == (1, 0)
    ints = sf.subset([1, 0, 1])  # a 0/1 mask, not indices
    assert ints.order.tolist() == [[0, 1]] and ints.values.tolist() == [[1.0, 2.0]]


def test_compact_with_current_positions():
    X = np.array([[3.0, 0.0], [1.0, 1.0], [2.0, 0.0], [0.0, 2.0]])
    sf = SortedFeatures.from_matrix(X)
    assert sf.compact([True, True, False, True]) == 3  # rows 3, 1, 0 and 0, 1, 3 remain
    assert sf.order[:, :3].tolist() == [[3, 1, 0], [0, 1, 3]]
    # Only the first 3 positions are current: the stale 4th entry is never read back.
    assert sf.compact([True, False, False, True], 3) == 2
    assert sf.order[:, :2].tolist() == [[3, 0], [0, 3]]
    assert sf.values[:, :2].tolist() == [[0.0, 3.0], [0.0, 2.0]]
    again = SortedFeatures.from_matrix(X)
    assert again.compact([1, 1, 0, 1]) == 3  # a 0/1 mask, not indices
    assert again.order[:, :3].tolist() == [[3, 1, 0], [0, 1, 3]]


def test_nan_columns_are_sorted_again_beside_collisions():
    # One block: a column whose keys collide (not exact) and one holding -NaN, which the
    # keys would put first; both must come out as numpy's stable argsort.
    eps = np.finfo(float).eps
    X = np.array([[1.0 + 2 * eps, -np.nan], [1.0 + eps, 2.0], [1.0, np.nan], [0.5, -1.0]])
    sf = SortedFeatures.from_matrix(X)
    np.testing.assert_array_equal(sf.order, np.argsort(X, axis=0, kind="stable").T)


def test_sorted_keys_exactness_ends_at_the_index_bits():
    eps = np.finfo(float).eps  # the lowest mantissa bit of 1.0
    _, exact = _presort._sorted_keys(np.array([[1.0], [1.0 + 4 * eps]]), 2)
    assert exact  # bit 2 is above the two index bits
    _, exact = _presort._sorted_keys(np.array([[1.0], [1.0 + 2 * eps]]), 2)
    assert not exact


def test_quantized_keys_are_per_column():
    bits = 7
    top = 2 ** (32 - bits) - 2
    # Each column is keyed from its own minimum over its own span.
    X = np.array([[0.0, 1e9], [top, 1e9 + 3.0], [5.0, 1e9 + 1.0]])
    keys, exact = _presort._quantized_keys(X, bits)
    assert exact
    assert (np.sort(keys >> bits, axis=0)).tolist() == [[0, 0], [5, 1], [top, 3]]
    # Scaled: a span below one still spreads over the keys (distinct values, distinct keys).
    X = np.array([[0.0, 7.0], [0.25, 7.0], [0.5, 7.0]])
    keys, exact = _presort._quantized_keys(X, bits)
    assert not exact
    assert len(set((keys[:, 0] >> bits).tolist())) == 3
    assert (keys[:, 1] >> bits).tolist() == [0, 0, 0]  # a constant column, no warning


@pytest.mark.filterwarnings("error")
def test_constant_columns_in_a_scaled_block():
    X = np.array([[0.5, 3.0, -1.0], [0.25, 3.0, -1.0], [1.0, 3.0, -1.0]])
    P = packed_presort(X)
    assert (P & 3).tolist() == [[1, 0, 0], [0, 1, 1], [2, 2, 2]]


def test_pack_returns_exactly_the_columns_whose_keys_collide():
    bits = 5
    rng = np.random.default_rng(1)
    m = 20
    ties = rng.integers(0, 4, size=m) + 0.5  # scaled keys, equal values share keys: fine
    close = 1.0 + rng.permutation(m) * 2.0**-40  # distinct values, one key
    close[0] = 1e6  # spreads the span so the rest collide
    fine = np.linspace(0.0, 1.0, m)  # scaled, no collision
    X = np.column_stack([ties, close, fine])
    packed, bad = _presort._pack(X, bits, np.uint8, True, _presort._quantized_keys)
    assert bad.tolist() == [1]
    for j in (0, 2):
        order = np.argsort(X[:, j], kind="stable")
        assert (packed[:, j] & 31).tolist() == order.tolist()
        v = X[order, j]
        assert ((packed[1:, j] >> bits) & 1).tolist() == (v[1:] != v[:-1]).tolist()


def test_packed_presort_defaults_and_given_bits():
    X = np.array([[2.0], [1.0], [2.0]])
    P = packed_presort(X)  # default: no end flags
    assert P.dtype == np.uint8 and P[:, 0].tolist() == [1, 0 | 4, 2]
    P = packed_presort(X, bits=4)  # wider index field than needed: flags above it
    assert P[:, 0].tolist() == [1, 0 | 16, 2]
    P = packed_presort(X, bits=4, end_flags=True, dtype=np.uint16)
    assert P.dtype == np.uint16 and P[:, 0].tolist() == [1 | 32, 0 | 16, 2]


def test_pack_catches_a_collision_after_a_smaller_first_value():
    # The column's minimum sorts first on its own; two distinct values behind it share a key
    # and come out in row order, the larger first: only comparing neighbours finds them.
    X = np.array([[-1e6], [1e6], [1.0 + 2.0**-40], [1.0]])
    packed, bad = _presort._pack(X, 2, np.uint8, False, _presort._quantized_keys)
    assert (packed[:, 0] & 3).tolist() == [0, 2, 3, 1] and bad.tolist() == [0]
    P = packed_presort(X)
    assert (P[:, 0] & 3).tolist() == [0, 3, 2, 1]
