"""voom and looks_like_counts on scipy sparse counts equal the dense computation.

The dense path is the reference (it is checked against limma's formulas in test_voom.py);
a sparse matrix is read a block of columns at a time and must give the same numbers, for
every sparse format, with implicit zeros, repeated entries and columns of zeros.
"""

import numpy as np
import pytest
import scipy.sparse as sp

from widefs._utils import load_columns
from widefs.stats import looks_like_counts, voom
from widefs.stats._voom import COUNT_RANGE


def _counts(seed, n=8, m=60, zeros=0.5):
    rng = np.random.default_rng(seed)
    C = rng.poisson(rng.gamma(0.6, 300, size=m), size=(n, m)).astype(float)
    C[rng.random((n, m)) < zeros] = 0.0
    C[:, 3] = 0.0  # a feature never seen: left out of the trend
    return C


def _design(n):
    return np.column_stack([np.ones(n), np.r_[np.zeros(n // 2), np.ones(n - n // 2)]])


@pytest.mark.parametrize("fmt", ["csr", "csc", "coo"])
@pytest.mark.parametrize("seed", [0, 1])
def test_sparse_voom_equals_dense(fmt, seed):
    C = _counts(seed)
    D = _design(C.shape[0])
    dense_cpm, dense_w = voom(C, D)
    log_cpm, weights = voom(sp.coo_matrix(C).asformat(fmt), D)
    assert log_cpm.shape == weights.shape == C.shape
    every = np.arange(C.shape[1])
    np.testing.assert_allclose(load_columns(log_cpm, every), dense_cpm, rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(load_columns(weights, every), dense_w, rtol=1e-10)
    # Any subset of columns, in any order, reads the same values as the dense columns.
    cols = np.array([7, 2, 41, 3])
    np.testing.assert_allclose(load_columns(log_cpm, cols), dense_cpm[:, cols], rtol=1e-13)
    np.testing.assert_allclose(load_columns(weights, cols), dense_w[:, cols], rtol=1e-10)
    np.testing.assert_allclose(load_columns(weights, slice(5, 9)), dense_w[:, 5:9], rtol=1e-10)


def test_sparse_voom_with_library_sizes_and_duplicates():
    C = _counts(3)
    D = _design(C.shape[0])
    lib = C.sum(axis=1) * 1.7
    dense = voom(C, D, lib_size=lib)
    # The same counts as COO with every stored entry split in two repeated entries.
    rows, cols = np.nonzero(C)
    half = np.floor(C[rows, cols] / 2)
    S = sp.coo_matrix(
        (np.r_[half, C[rows, cols] - half], (np.r_[rows, rows], np.r_[cols, cols])), C.shape
    )
    log_cpm, weights = voom(S, D, lib_size=lib)
    every = np.arange(C.shape[1])
    np.testing.assert_allclose(load_columns(log_cpm, every), dense[0], rtol=1e-13)
    np.testing.assert_allclose(load_columns(weights, every), dense[1], rtol=1e-10)


def test_sparse_voom_refuses_what_dense_refuses():
    C = _counts(4)
    D = _design(C.shape[0])
    bad = C.copy()
    bad[1, 5] = -1.0
    with pytest.raises(ValueError, match="non-negative"):
        voom(sp.csr_matrix(bad), D)
    bad[1, 5] = np.nan
    with pytest.raises(ValueError, match="finite"):
        voom(sp.csc_matrix(bad), D)
    empty_row = C.copy()
    empty_row[2] = 0.0
    with pytest.raises(ValueError, match="positive library size"):
        voom(sp.csr_matrix(empty_row), D)


def _judged_alike(dense):
    expected = looks_like_counts(dense)
    for fmt in ("csr", "csc", "coo"):
        assert looks_like_counts(sp.coo_matrix(dense).asformat(fmt)) is expected, fmt
    return expected


def test_looks_like_counts_sparse_follows_the_dense_rule_at_every_boundary():
    C = np.zeros((4, 5))
    C[0, 0], C[1, 1], C[2, 2] = 3.0, COUNT_RANGE, 7.0
    assert _judged_alike(C) is True  # implicit zeros and the range reached
    C[1, 1] = COUNT_RANGE - 1
    assert _judged_alike(C) is False  # the range not reached
    C[1, 1] = COUNT_RANGE + 0.5
    assert _judged_alike(C) is False  # not a whole number
    C[1, 1] = COUNT_RANGE
    C[3, 4] = -2.0
    assert _judged_alike(C) is False  # a negative value
    C[3, 4] = np.inf
    assert _judged_alike(C) is False  # not finite
    assert _judged_alike(np.zeros((3, 3))) is False  # every value 0
    full = np.arange(1.0, 13.0).reshape(3, 4) * 100  # no zero anywhere: not counts
    assert _judged_alike(full) is False
    full[0, 0] = 0.0  # a stored zero, no implicit one: counts again
    assert looks_like_counts(full) is True
    assert _judged_alike(full) is True
    # The zero stored explicitly (no implicit zero): the stored minimum decides.
    S = sp.csr_matrix((full.ravel(), np.nonzero(np.ones_like(full))), full.shape)
    assert S.nnz == full.size and looks_like_counts(S) is True
    S.data[0] = 1.0
    assert looks_like_counts(S) is False


def test_looks_like_counts_sparse_sums_repeated_entries_first():
    # 600 + 600 at one place: 1200 once summed (counts); each alone never reaches the range.
    S = sp.coo_matrix(([600.0, 600.0, 5.0], ([0, 0, 1], [0, 0, 1])), shape=(3, 3))
    assert looks_like_counts(S.toarray()) is True
    assert looks_like_counts(S) is True
    assert looks_like_counts(S.tocsr()) is True
    # Halves that sum to a whole number are counts; whole halves summed to a fraction are not.
    H = sp.coo_matrix(([0.5, 999.5, 2.0], ([0, 0, 1], [0, 0, 1])), shape=(2, 2))
    assert looks_like_counts(H) is looks_like_counts(H.toarray()) is True
    # A non-canonical CSR (unsorted, repeated indices) is summed as well.
    R = sp.csr_matrix(
        (np.array([400.0, 700.0, 3.0]), np.array([1, 1, 0]), np.array([0, 2, 3])), shape=(2, 2)
    )
    assert not R.has_canonical_format
    assert looks_like_counts(R) is looks_like_counts(R.toarray()) is True


def test_looks_like_counts_sparse_integer_and_bool_data():
    C = sp.csr_matrix(np.array([[0, 1500], [3, 0]], dtype=np.int64))
    assert looks_like_counts(C) is True
    B = sp.csr_matrix(np.array([[True, False], [False, True]]))
    assert looks_like_counts(B) is looks_like_counts(B.toarray()) is False
    # More stored values than one check block: every block is checked.
    big = np.zeros((2, 4096 * 256 + 10))
    big[0, :] = 1.0
    big[1, 0] = COUNT_RANGE
    big[0, -1] = 2.5  # the one fraction, in the last block
    assert looks_like_counts(sp.csr_matrix(big)) is looks_like_counts(big) is False
    big[0, -1] = 2.0
    assert looks_like_counts(sp.csr_matrix(big)) is looks_like_counts(big) is True


@pytest.mark.parametrize("fmt", ["lil", "dia", "bsr", "dok"])
def test_looks_like_counts_reads_every_sparse_format_as_its_dense_matrix(fmt):
    C = np.zeros((4, 5))
    C[0, 0], C[1, 1], C[3, 2] = 3.0, COUNT_RANGE, 7.0
    assert looks_like_counts(sp.coo_matrix(C).asformat(fmt)) is True
    C[3, 2] = 7.5
    assert looks_like_counts(sp.coo_matrix(C).asformat(fmt)) is False


def test_looks_like_counts_checks_the_first_stored_value_too():
    C = np.zeros((3, 4))
    C[0, 0], C[1, 1], C[2, 3] = 2.5, COUNT_RANGE, 4.0  # the one fraction is stored first
    assert looks_like_counts(sp.csc_matrix(C)) is looks_like_counts(C) is False


def test_looks_like_counts_refuses_complex_values():
    C = np.array([[0, 1500 + 0j], [3, 0]])
    assert looks_like_counts(C) is False
    assert looks_like_counts(sp.csr_matrix(C)) is False


def test_looks_like_counts_leaves_a_non_canonical_matrix_as_it_was():
    S = sp.csc_matrix(
        (np.array([400.0, 700.0, 3.0]), np.array([1, 1, 0]), np.array([0, 0, 3])), shape=(2, 2)
    )
    data, indices = S.data.copy(), S.indices.copy()
    assert not S.has_canonical_format
    assert looks_like_counts(S) is True
    np.testing.assert_array_equal(S.data, data)
    np.testing.assert_array_equal(S.indices, indices)


def test_sparse_voom_with_three_coefficients_equals_dense():
    C = _counts(5, n=9)
    D = np.column_stack([np.ones(9), np.repeat([0, 1, 0], 3), np.repeat([0, 0, 1], 3)])
    _, dense_w = voom(C, D)
    _, weights = voom(sp.csc_matrix(C), D)
    every = np.arange(C.shape[1])
    np.testing.assert_allclose(load_columns(weights, every), dense_w, rtol=1e-10)
    # The weights are 1 / trend(fitted log-count)^4 of the full 3-coefficient fit.
    assert np.all(np.isfinite(dense_w)) and np.all(dense_w > 0)
