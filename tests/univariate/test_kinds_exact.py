"""The first pass's pieces pinned against independent computations.

The shape gate's limits against scipy's moments of the same fixed-seed Gaussian draws; the
first pass's fits, carriers and tie factors against numpy loops, in blocks and out of core.
"""

import numpy as np
import pytest
from scipy import sparse, stats

import widefs.univariate._kinds as kinds_module
from widefs.univariate._kinds import (
    CONSTANT,
    COUNTS,
    GAUSSIAN,
    RANKED,
    TWO_VALUED,
    class_design,
    first_pass,
    shape_limits,
    tie_factor,
)


def _limits_by_scipy(n, level, draws, width):
    """Quantiles of |skewness| and kurtosis (scipy, biased, not excess) of the draws the gate
    documents: a generator seeded 0, ``draws`` Gaussian columns of n values, ``width`` at a
    time."""
    rng = np.random.default_rng(0)
    blocks = [rng.standard_normal(size=(n, width)) for _ in range(-(-draws // width))]
    Z = np.concatenate(blocks, axis=1)
    skew = np.abs(stats.skew(Z, axis=0))
    kurt = stats.kurtosis(Z, axis=0, fisher=False)
    return np.quantile(skew, 1 - level / 2), np.quantile(kurt, 1 - kinds_module.GATE_LEVEL / 2)


@pytest.fixture
def fresh_limits():
    kinds_module.shape_limits.cache_clear()
    yield
    kinds_module.shape_limits.cache_clear()


@pytest.mark.parametrize("n", [4, 15])
def test_shape_limits_are_the_quantiles_of_the_documented_draws(n, fresh_limits):
    for level in (kinds_module.GATE_LEVEL, kinds_module.GATE_LEVEL_SPREAD):
        expected = _limits_by_scipy(n, level, kinds_module._GATE_DRAWS, 20_000)
        np.testing.assert_allclose(shape_limits(n, level), expected, rtol=1e-10)
    # The default level is the location-only gate's.
    assert shape_limits(n) == shape_limits(n, kinds_module.GATE_LEVEL)


def test_shape_limits_of_large_n_draw_blocks_of_bounded_memory(monkeypatch, fresh_limits):
    # Beyond n = 10,000 the draws come _GATE_BYTES at a time: 7 columns here.
    n = 10_001
    monkeypatch.setattr(kinds_module, "_GATE_DRAWS", 30)
    monkeypatch.setattr(kinds_module, "_GATE_BYTES", 8 * n * 7 + 5)
    expected = _limits_by_scipy(n, 0.2, 30, 7)
    np.testing.assert_allclose(shape_limits(n, 0.2), expected, rtol=1e-10)
    # Fewer bytes than one column: one column at a time.
    monkeypatch.setattr(kinds_module, "_GATE_BYTES", 8)
    monkeypatch.setattr(kinds_module, "_GATE_DRAWS", 3)
    kinds_module.shape_limits.cache_clear()
    np.testing.assert_allclose(shape_limits(n, 0.2), _limits_by_scipy(n, 0.2, 3, 1), rtol=1e-10)


def test_class_design_is_an_intercept_and_class_indicators():
    codes = np.array([2, 0, 1, 1, 2])
    expected = np.array(
        [[1, 0, 1], [1, 0, 0], [1, 1, 0], [1, 1, 0], [1, 0, 1]],
        dtype=float,
    )
    np.testing.assert_array_equal(class_design(codes, 3), expected)
    np.testing.assert_array_equal(class_design(np.array([0, 1, 0]), 2), [[1, 0], [1, 1], [1, 0]])


def _loop_pass(X, codes, C, spread):
    """Class means, residual variances and carriers of every column, by loops."""
    n = X.shape[0]
    out = {"coef": [], "var": [], "scoef": [], "svar": [], "carriers": []}
    for x in X.T:
        means = np.array([x[codes == c].mean() for c in range(C)])
        out["coef"].append(np.r_[means[0], means[1:] - means[0]])
        out["var"].append(np.sum((x - means[codes]) ** 2) / (n - C))
        d = np.abs(x - means[codes])
        dm = np.array([d[codes == c].mean() for c in range(C)])
        out["scoef"].append(np.r_[dm[0], dm[1:] - dm[0]])
        out["svar"].append(np.sum((d - dm[codes]) ** 2) / (n - C))
        values = np.unique(x)
        top = x == values[-1]
        out["carriers"].append(
            [int(np.sum(top & (codes == c))) if values.size == 2 else 0 for c in range(C)]
        )
    return {k: np.array(v) for k, v in out.items()}


def _mixed(rng, n):
    return np.column_stack(
        [
            rng.normal(size=(n, 3)),
            np.where(rng.random((n, 2)) < 0.4, 5.0, -1.0),  # two-valued
            np.r_[np.zeros(n - 4), 1.0, 2.0, 2.0, 7.0],  # tied at 0: ranked
            rng.lognormal(size=n) ** 3,  # skewed: ranked, no ties
            np.full(n, 2.5),  # constant
        ]
    )


@pytest.mark.parametrize("spread", [False, True])
def test_first_pass_equals_loops_over_columns(spread):
    rng = np.random.default_rng(21)
    codes = np.repeat([0, 1, 2], [5, 6, 7])
    X = _mixed(rng, codes.size)
    fp = first_pass(X, codes, 3, spread=spread)
    ref = _loop_pass(X, codes, 3, spread)
    assert fp.kinds.tolist() == [GAUSSIAN] * 3 + [TWO_VALUED] * 2 + [RANKED, RANKED, CONSTANT]
    assert fp.kinds.dtype == np.int8
    # The fits hold the gaussian features' rows and their tested (class) coefficients only;
    # every feature's df enters the cap.
    g = fp.kinds == GAUSSIAN
    coef, var = fp.location.coefficients, fp.location.variances
    np.testing.assert_allclose(coef, ref["coef"][g][:, 1:], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(var, ref["var"][g], rtol=1e-12, atol=1e-14)
    df = np.broadcast_to(fp.location.df_residual, (3,))
    np.testing.assert_array_equal(df, np.full(3, codes.size - 3.0))
    assert fp.pooled_df == 8 * (codes.size - 3.0)
    design = class_design(codes, 3)
    np.testing.assert_allclose(
        fp.location.unscaled_covariance, np.linalg.inv(design.T @ design)[1:, 1:], rtol=1e-12
    )
    if spread:
        scoef, svar = fp.spread.coefficients, fp.spread.variances
        np.testing.assert_allclose(scoef, ref["scoef"][g][:, 1:], rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(svar, ref["svar"][g], rtol=1e-12, atol=1e-14)
    else:
        assert fp.spread is None
    np.testing.assert_array_equal(fp.carriers, ref["carriers"])
    assert fp.carriers.dtype == np.uint8
    t = np.array([14.0, 1, 2, 1])  # tie groups of the sixth column, n = 18
    np.testing.assert_array_equal(fp.tie_index, [5, 6])  # the ranked columns only
    np.testing.assert_allclose(fp.tie_values, [np.sum(t**3 - t) / (18**3 - 18), 0.0], rtol=1e-12)
    np.testing.assert_allclose(fp.ties(np.array([6, 5])), fp.tie_values[::-1], rtol=0)


def test_first_pass_in_blocks_and_out_of_core_is_the_same(monkeypatch, tmp_path):
    rng = np.random.default_rng(22)
    codes = np.repeat([0, 1], [9, 8])
    X = np.column_stack([_mixed(rng, 17) for _ in range(3)])
    whole = first_pass(X, codes, 2, spread=True)
    monkeypatch.setattr(kinds_module, "_KERNEL_COLUMNS", 3)
    monkeypatch.setattr(kinds_module, "_BLOCK_BYTES", 8 * 17 * 5)  # 5 columns per block
    mm = np.memmap(tmp_path / "x.dat", dtype=np.float64, mode="w+", shape=X.shape)
    mm[:] = X
    for data in (X, mm):
        part = first_pass(data, codes, 2, spread=True)
        np.testing.assert_array_equal(part.kinds, whole.kinds)
        np.testing.assert_array_equal(part.carriers, whole.carriers)
        np.testing.assert_array_equal(part.tie_index, whole.tie_index)
        np.testing.assert_array_equal(part.tie_values, whole.tie_values)
        for a, b in ((part.location, whole.location), (part.spread, whole.spread)):
            np.testing.assert_allclose(a.coefficients, b.coefficients, rtol=1e-13, atol=1e-15)
            np.testing.assert_allclose(a.variances, b.variances, rtol=1e-13, atol=1e-15)


def test_integer_columns_are_read_as_their_float_values():
    codes = np.repeat([0, 1], 6)
    Xi = np.column_stack([np.arange(12) * 7 % 12, np.r_[np.zeros(6), np.ones(6)]]).astype(np.int64)
    fp = first_pass(Xi, codes, 2, spread=False)
    ref = first_pass(Xi.astype(np.float64), codes, 2, spread=False)
    np.testing.assert_array_equal(fp.kinds, ref.kinds)
    np.testing.assert_array_equal(fp.location.coefficients, ref.location.coefficients)
    np.testing.assert_array_equal(fp.carriers, [[0, 0], [0, 6]])


def test_a_float32_matrix_out_of_core_keeps_float32_values(tmp_path):
    # float32 blocks stay float32: 0.1f is not 0.1, so the means differ from float64's.
    codes = np.repeat([0, 1], 5)
    rng = np.random.default_rng(23)
    X = (rng.normal(size=(10, 4)) + 0.1).astype(np.float32)
    mm = np.memmap(tmp_path / "x.dat", dtype=np.float32, mode="w+", shape=X.shape)
    mm[:] = X
    lazy = first_pass(mm, codes, 2, spread=False)
    ref = first_pass(X, codes, 2, spread=False)
    np.testing.assert_array_equal(lazy.location.coefficients, ref.location.coefficients)
    np.testing.assert_array_equal(lazy.location.variances, ref.location.variances)
    means = [X[codes == c].astype(np.float64).mean(axis=0) for c in (0, 1)]
    # The kept (tested) coefficient is the class difference, from float32 values.
    np.testing.assert_allclose(lazy.location.coefficients[:, 0], means[1] - means[0], rtol=1e-9)


def test_counts_are_one_kind_except_columns_of_equal_counts():
    rng = np.random.default_rng(24)
    codes = np.repeat([0, 1], 4)
    X = rng.poisson(50, size=(8, 5)).astype(float)
    X[:, 2] = 7.0  # equal counts: constant, though their log-CPM differ with the libraries
    log_cpm = np.log2((X + 0.5) / (X.sum(axis=1, keepdims=True) + 1.0) * 1e6)
    weights = rng.uniform(0.5, 4.0, size=X.shape)
    fp = first_pass(X, codes, 2, spread=True, counts=(log_cpm, weights))
    assert fp.kinds.tolist() == [COUNTS, COUNTS, CONSTANT, COUNTS, COUNTS]
    assert fp.kinds.dtype == np.int8 and fp.carriers.dtype == np.uint8
    assert fp.spread is None
    np.testing.assert_array_equal(fp.carriers, np.zeros((5, 2)))
    assert fp.tie_index.size == 0 and fp.tie_values.size == 0
    assert fp.location.coefficients.shape[0] == 4  # the constant column is not modelled
    # The class design's weighted fit: weighted class means.
    means = [
        np.sum((weights * log_cpm)[codes == c], axis=0) / np.sum(weights[codes == c], axis=0)
        for c in (0, 1)
    ]
    kept = fp.kinds == COUNTS
    coef = fp.location.coefficients
    np.testing.assert_allclose(coef[:, 0], means[0][kept], rtol=1e-12)
    np.testing.assert_allclose(coef[:, 1], (means[1] - means[0])[kept], atol=1e-12)


def test_a_sparse_matrix_has_the_first_pass_of_its_dense_copy():
    rng = np.random.default_rng(26)
    codes = np.repeat([0, 1, 2], [4, 5, 6])
    X = _mixed(rng, 15)
    X[X < 0.3] = 0.0  # mostly implicit zeros
    dense = first_pass(X, codes, 3, spread=True)
    for fmt in (sparse.csc_matrix, sparse.csr_array):
        part = first_pass(fmt(X), codes, 3, spread=True)
        np.testing.assert_array_equal(part.kinds, dense.kinds)
        np.testing.assert_array_equal(part.carriers, dense.carriers)
        np.testing.assert_array_equal(part.tie_index, dense.tie_index)
        np.testing.assert_allclose(part.tie_values, dense.tie_values, rtol=1e-14)
        np.testing.assert_allclose(part.location.variances, dense.location.variances, rtol=1e-13)


def test_non_finite_values_name_the_first_five_columns():
    codes = np.repeat([0, 1], 4)
    X = np.random.default_rng(25).normal(size=(8, 9))
    X[3, [1, 2, 4, 6, 7, 8]] = [np.nan, np.inf, -np.inf, np.nan, np.nan, np.inf]
    message = r"^Input X contains NaN or infinity \(columns \[1, 2, 4, 6, 7\]\)\.$"
    with pytest.raises(ValueError, match=message):
        first_pass(X, codes, 2, spread=False)


def test_tie_factor_finds_ties_away_from_the_minimum():
    X = np.column_stack([[0.0, 1, 2, 2, 5], [0.0, 1, 2, 5, 5], [3.0, 1, 2, 4, 5]])
    expected = [6 / 120, 6 / 120, 0.0]  # one pair: (2^3 - 2) / (5^3 - 5)
    np.testing.assert_allclose(tie_factor(X), expected, rtol=1e-14, atol=0)


def test_kinds_are_gaussian_at_the_shape_limits_themselves():
    # _kinds_of on the kernel's statistics: |skewness| or kurtosis equal to its limit is not
    # beyond it; a hair above is.
    n = 20
    limits = (0.8, 4.5)
    skew = np.array([0.8, -0.8, np.nextafter(0.8, 1), 0.0, 0.0, -np.nextafter(0.8, 1)])
    kurt = np.array([3.0, 3.0, 3.0, 4.5, np.nextafter(4.5, 5), 3.0])
    m = skew.size
    stats_ = (
        np.zeros(m),
        np.ones(m) * 7.5,  # a range of 7.5 < n / 2, but not integers
        np.ones(m, np.int64),
        np.ones(m, np.int64),
        np.zeros(m, bool),
        skew,
        kurt,
    )
    kinds = kinds_module._kinds_of(stats_, n, limits)
    assert kinds.tolist() == [GAUSSIAN, GAUSSIAN, RANKED, GAUSSIAN, RANKED, RANKED]


def test_huge_finite_values_are_not_taken_for_infinities():
    # Their sum overflows (the kernel's finiteness flag is off), but every value is finite:
    # no error; equal huge values are a constant column.
    codes = np.repeat([0, 1], 3)
    X = np.column_stack([np.full(6, 1.5e308), np.arange(6.0)])
    fp = first_pass(X, codes, 2, spread=False)
    assert fp.kinds.tolist() == [CONSTANT, GAUSSIAN]


def _zero_one_matrix(rng, codes):
    X = (rng.random((codes.size, 9)) < 0.3).astype(np.float64)
    X[:, 0] = 0.0  # never present: constant
    X[:, 1] = 1.0  # always present: constant
    X[:, 2] = 0.0
    X[codes == 2, 2] = 1.0  # present in one class only
    return X


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.uint8, np.bool_, np.int64])
def test_zero_one_blocks_give_the_kinds_and_carriers_of_the_loop(dtype):
    # Unequal classes, three of them: carriers counted in the wrong class would show.
    rng = np.random.default_rng(31)
    codes = np.repeat([0, 1, 2], [3, 5, 8])
    X = _zero_one_matrix(rng, codes)
    fp = first_pass(X.astype(dtype), codes, 3, spread=False)
    ref = _loop_pass(X, codes, 3, False)
    expected = [CONSTANT, CONSTANT] + [TWO_VALUED] * 7
    assert fp.kinds.tolist() == expected
    np.testing.assert_array_equal(fp.carriers, ref["carriers"])
    np.testing.assert_array_equal(fp.carriers[:2], 0)  # constants carry no carriers
    np.testing.assert_array_equal(fp.carriers[2], [0, 0, 8])


def test_zero_one_path_is_taken_for_zero_one_blocks_only(monkeypatch):
    calls = []
    real = kinds_module._binary_block
    monkeypatch.setattr(kinds_module, "_binary_block", lambda *a: calls.append(a[1]) or real(*a))
    rng = np.random.default_rng(32)
    codes = np.repeat([0, 1], [4, 6])
    first_pass(_zero_one_matrix(rng, np.r_[codes, 2, 2])[:10], codes, 2, spread=False)
    assert len(calls) == 1
    calls.clear()
    first_pass(rng.normal(size=(10, 5)), codes, 2, spread=False)
    assert calls == []


def test_zero_one_is_every_value_zero_or_one():
    zero_one = kinds_module._zero_one
    assert zero_one(np.array([[0, 1], [1, 1]], np.uint8)) is True
    assert zero_one(np.array([[0, 2], [1, 1]], np.uint8)) is False
    assert zero_one(np.array([[True, False]])) is True
    assert zero_one(np.array([[0.0, 1.0], [1.0, 0.0]])) is True
    assert zero_one(np.array([[0.0, 1.0], [np.nan, 0.0]])) is False
    assert zero_one(np.array([[0, -1]], np.int8)) is False
    assert zero_one(np.array([[0.0, 0.5]])) is False
    assert zero_one(np.zeros((3, 0))) is False  # an empty block is not a 0/1 block
    assert zero_one(np.ones((1, 1), np.uint16)) is True  # one value: still 0/1
    assert zero_one([[0, 1]]) is True  # array-likes read as arrays


def test_kept_ranks_with_no_ranked_feature_are_an_empty_matrix():
    kept = kinds_module.KeptRanks(6).close()
    assert kept.shape == (6, 0)
    assert kept.index.shape == (0,) and kept.index.dtype == np.intp
    assert kept.stops.shape == (0,)


def test_kept_ranks_read_back_the_mid_ranks_of_every_piece():
    rng = np.random.default_rng(33)
    X = np.round(rng.normal(size=(9, 7)), 1)
    X[:3, 2] = X[3, 2]  # ties: mid-ranks
    kept = kinds_module.KeptRanks(9)
    kept.add(np.array([4, 0]), X[:, [4, 0]])
    kept.add(np.array([2, 5, 6]), X[:, [2, 5, 6]])
    kept.close()
    assert kept.shape == (9, 5) and kept.dtype_kept == np.uint8
    np.testing.assert_array_equal(kept.index, [4, 0, 2, 5, 6])
    every = stats.rankdata(X[:, [4, 0, 2, 5, 6]], axis=0)
    np.testing.assert_array_equal(kept.columns(slice(None)), every)
    np.testing.assert_array_equal(kept.columns(np.array([3, 1])), every[:, [3, 1]])


def test_counts_first_pass_pools_every_features_degrees_of_freedom():
    rng = np.random.default_rng(34)
    codes = np.repeat([0, 1], [3, 5])
    X = rng.poisson(80, size=(8, 6)).astype(float)
    X[:, 1] = 4.0  # constant counts still enter the pooled degrees of freedom (limma's cap)
    log_cpm = np.log2((X + 0.5) / (X.sum(axis=1, keepdims=True) + 1.0) * 1e6)
    fp = first_pass(X, codes, 2, spread=False, counts=(log_cpm, np.ones_like(X)))
    assert fp.pooled_df == 6 * (8 - 2)
    assert fp.tie_index.dtype == np.intp and fp.tie_index.size == 0
