"""The screen's numpy kernels against the compiled ones and against scipy, and the rule between them.

A screen of moderate size runs the numpy versions (no numba to import or load); a large one
runs the compiled ones. Both must give the
same screen: the rank statistics bit for bit, the first pass equal but for the last bit of
the shape moments.
"""

import numpy as np
import pytest
from scipy import stats

import widefs.univariate._screen_numpy as screen_numpy
from widefs.univariate import ClassDifferenceScreen
from widefs.univariate._screen_kernels import first_pass_block, rank_f_scores
from widefs.univariate._screen_numpy import (
    NUMBA_MIN_WORK,
    first_pass_block_numpy,
    first_pass_kernel,
    rank_f_kernel,
    rank_f_scores_numpy,
)

pytestmark = pytest.mark.filterwarnings("ignore")


def _matrix(codes, seed, dtype=np.float64):
    rng = np.random.default_rng(seed)
    n = codes.size
    X = np.column_stack(
        [
            rng.normal(size=(n, 30)),
            rng.normal(loc=1e4, scale=1e-2, size=(n, 5)),
            rng.lognormal(size=(n, 10)) * 1e3,
            rng.poisson(0.7, size=(n, 10)).astype(float),
            (rng.random((n, 8)) < 0.2).astype(float),
            np.full((n, 3), 2.5),
            np.round(rng.normal(size=(n, 5)) * 3),
        ]
    )
    X[:, :5] += codes[:, None]
    return X.astype(dtype)


CASES = [np.repeat([0, 1], [6, 6]), np.repeat([0, 1], [3, 4]), np.repeat([0, 1, 2], [7, 9, 5])]


@pytest.mark.parametrize("codes", CASES)
@pytest.mark.parametrize("spread", [False, True])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_first_pass_block_equals_the_kernel(codes, spread, dtype):
    X = _matrix(codes, 1, dtype)
    counts = np.bincount(codes).astype(np.float64)
    fast = first_pass_block(X, codes, counts, spread)
    mine = first_pass_block_numpy(X, codes, counts, spread)
    for i, (a, b) in enumerate(zip(fast, mine, strict=True)):
        if i == 10 and not spread:
            continue  # the spread means are not computed without the spread fit
        if i in (6, 7):  # skewness, kurtosis: the power may round differently
            np.testing.assert_allclose(b, a, rtol=1e-13, atol=0)
        else:
            assert a.dtype.kind == b.dtype.kind, i
            np.testing.assert_array_equal(b, a, err_msg=str(i))


def test_first_pass_block_flags_non_finite_columns_and_handles_constants():
    codes = np.repeat([0, 1], 4)
    X = _matrix(codes, 2)[:, :6]
    X[2, 1], X[5, 3] = np.nan, np.inf
    X[:, 4] = 7.0
    counts = np.bincount(codes).astype(np.float64)
    out = first_pass_block_numpy(X, codes, counts, True)
    assert out[12].tolist() == [True, False, True, False, True, True]
    assert out[6][4] == 0.0 and out[7][4] == 0.0  # no variance: no shape
    assert out[0][4] == out[1][4] == 7.0 and out[2][4] == out[3][4] == 8


def _ranks(codes, seed):
    return stats.rankdata(_matrix(codes, seed)[:, :60], axis=0)


@pytest.mark.parametrize("codes", CASES)
@pytest.mark.parametrize("spread", [False, True])
def test_rank_f_scores_are_bit_identical_to_the_kernel(codes, spread):
    rng = np.random.default_rng(3)
    R = _ranks(codes, 4)
    labels = np.stack([rng.permutation(codes) for _ in range(200)])
    counts = np.bincount(codes).astype(np.float64)
    want = rank_f_scores(R, labels, counts, spread)
    for lab in (labels, labels.astype(np.uint8)):
        got = rank_f_scores_numpy(R, lab, counts, spread)
        np.testing.assert_array_equal(got[0], want[0])
        np.testing.assert_array_equal(got[1], want[1])


def test_rank_f_scores_are_one_way_f_and_levene_by_scipy(monkeypatch):
    # Location: one-way ANOVA of the ranks; spread: Levene's test (centred on the class
    # means) of the ranks. Small chunks: the chunk boundaries must not matter.
    monkeypatch.setattr(screen_numpy, "_CHUNK_ENTRIES", 50)
    rng = np.random.default_rng(5)
    codes = CASES[2]
    R = _ranks(codes, 6)[:, [0, 40, 47]]  # gaussian, skewed, tied
    labels = np.stack([rng.permutation(codes) for _ in range(7)])
    F_loc, F_spr = rank_f_scores_numpy(R, labels, np.bincount(codes).astype(float), True)
    for b, lab in enumerate(labels):
        for j in range(R.shape[1]):
            groups = [R[lab == c, j] for c in range(3)]
            assert F_loc[b, j] == pytest.approx(stats.f_oneway(*groups).statistic, rel=1e-10)
            lev = stats.levene(*groups, center="mean").statistic
            assert F_spr[b, j] == pytest.approx(lev, rel=1e-10)


def test_rank_f_scores_of_constant_ranks_and_one_labelling():
    R = np.full((6, 2), 3.5)  # every value tied
    labels = np.repeat([0, 1], 3)[None, :]
    F_loc, F_spr = rank_f_scores_numpy(R, labels, np.array([3.0, 3.0]), True)
    assert F_loc.tolist() == [[0.0, 0.0]] and F_spr.tolist() == [[0.0, 0.0]]
    # Perfect separation: no within-class variation, F infinite (as the kernel).
    R = np.arange(1.0, 7.0)[:, None]
    labels = np.array([[0, 0, 0, 1, 1, 1], [0, 1, 0, 1, 0, 1]])
    got = rank_f_scores_numpy(R, labels, np.array([3.0, 3.0]), True)
    want = rank_f_scores(R, labels, np.array([3.0, 3.0]), True)
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])


def test_the_rule_picks_numpy_below_the_work_that_pays_for_numba():
    assert first_pass_kernel(NUMBA_MIN_WORK - 1) is first_pass_block_numpy
    assert rank_f_kernel(NUMBA_MIN_WORK - 1) is rank_f_scores_numpy
    assert first_pass_kernel(NUMBA_MIN_WORK) is first_pass_block
    assert rank_f_kernel(NUMBA_MIN_WORK) is not rank_f_scores_numpy


@pytest.mark.parametrize("spread_weight", ["auto", 0.0])
def test_a_screen_is_the_same_on_either_path(monkeypatch, spread_weight):
    codes = np.repeat([0, 1], 14)
    X = _matrix(codes, 7)
    screens = {}
    for numba in (False, True):
        monkeypatch.setattr(screen_numpy, "NUMBA_MIN_WORK", 0 if numba else np.inf)
        fit = ClassDifferenceScreen(spread_weight=spread_weight, random_state=0).fit(X, codes)
        screens[numba] = fit
    a, b = screens[False], screens[True]
    assert set(np.unique(a.kinds_)) >= {0, 1, 2, 3}  # every kind takes part
    np.testing.assert_array_equal(a.kinds_, b.kinds_)
    np.testing.assert_array_equal(a.pvalues_, b.pvalues_)
    np.testing.assert_array_equal(a.spread_statistics_, b.spread_statistics_)
    np.testing.assert_array_equal(a.location_statistics_, b.location_statistics_)
