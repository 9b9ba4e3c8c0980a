"""The screen's compiled first pass and rank statistics pinned against the numpy reference.

The reference below is the numpy implementation the kernels replaced (whole-block numpy
operations: shape moments, extremes, ``linear_model_fit`` on the class design, one-hot
products for the permutation statistics). The screen run with the reference patched in must
give the same kinds, statistics and p-values (to 1e-12) for the same ``random_state``, on
data of every kind.
"""

import numpy as np
import pytest
from scipy import stats

import widefs.univariate._rank_null as rank_null
import widefs.univariate._screen as screen_module
from widefs.stats import LinearModelFit, linear_model_fit
from widefs.univariate import ClassDifferenceScreen
from widefs.univariate._kinds import (
    CONSTANT,
    GATE_LEVEL,
    GATE_LEVEL_SPREAD,
    GAUSSIAN,
    RANKED,
    TWO_VALUED,
    FirstPass,
    class_design,
    first_pass,
    fit_rows,
    shape_limits,
    tie_factor,
)
from widefs.univariate._screen_kernels import rank_f_scores

pytestmark = pytest.mark.filterwarnings("ignore")


# --- the numpy reference ------------------------------------------------------------------


def _ref_shape(Xb):
    r = Xb - Xb.mean(axis=0)
    r2 = r * r
    m2 = r2.mean(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        skew = np.einsum("ij,ij->j", r2, r) / Xb.shape[0] / m2**1.5
        kurt = np.einsum("ij,ij->j", r2, r2) / Xb.shape[0] / (m2 * m2)
    return np.nan_to_num(skew), np.nan_to_num(kurt, nan=0.0)


def _ref_kinds(Xb, limits):
    n = Xb.shape[0]
    lo, hi = Xb.min(axis=0), Xb.max(axis=0)
    n_lo, n_hi = (Xb == lo).sum(axis=0), (Xb == hi).sum(axis=0)
    integer = np.all(Xb == np.round(Xb), axis=0)
    tied = (np.maximum(n_lo, n_hi) >= max(3, int(np.ceil(0.1 * n)))) | (integer & (hi - lo < n / 2))
    skew, kurt = _ref_shape(Xb)
    odd = (np.abs(skew) > limits[0]) | (kurt > limits[1])
    kinds = np.where(tied | odd, RANKED, GAUSSIAN).astype(np.int8)
    kinds[n_lo + n_hi == n] = TWO_VALUED
    kinds[lo == hi] = CONSTANT
    return kinds, Xb == hi


def _ref_first_pass(X, codes, n_classes, *, spread, counts=None, pooled=False):
    assert counts is None
    X = np.asarray(X, dtype=np.float64)
    n, m = X.shape
    limits = shape_limits(int(n), GATE_LEVEL_SPREAD if spread else GATE_LEVEL)
    design = class_design(codes, n_classes)
    kinds, high = _ref_kinds(X, limits)
    carriers = np.zeros((m, n_classes), np.int64)
    two = kinds == TWO_VALUED
    carriers[two] = (np.eye(n_classes)[codes].T @ high[:, two]).T.astype(np.int64)
    ties = np.zeros(m)
    ties[kinds == RANKED] = tie_factor(X[:, kinds == RANKED])
    loc = linear_model_fit(X, design)
    spr = None
    if spread:
        means = np.stack([X[codes == c].mean(axis=0) for c in range(n_classes)])
        spr = linear_model_fit(np.abs(X - means[codes]), design)
    # The first pass keeps the gaussian features' fits only, and the ranked ones' tie factors.
    fitted = kinds == GAUSSIAN
    ranked = np.flatnonzero(kinds == RANKED)
    return FirstPass(
        kinds,
        fit_rows(loc, fitted),
        fit_rows(spr, fitted) if spread else None,
        carriers,
        ranked,
        ties[ranked],
        float(n - n_classes) * m,
        # The sample variance of each gaussian feature, all classes pooled.
        pooled=X[:, fitted].var(axis=0, ddof=1) if pooled else None,
    )


def _ref_f_stats(R, labels, n_classes, counts):
    n = R.shape[0]
    Rc = R - R.mean(axis=0)
    total = np.sum(Rc * Rc, axis=0)
    between = np.zeros((labels.shape[0], R.shape[1]))
    for c in range(n_classes):
        s = (labels == c).astype(np.float64) @ Rc
        between += s * s / counts[c]
    within = np.maximum(total - between, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        F = (between / (n_classes - 1)) / (within / (n - n_classes))
    return np.where(np.isnan(F), 0.0, F)


def _ref_spread_stats(R, labels, n_classes, counts):
    n = R.shape[0]
    onehot = [(labels == c).astype(np.float64) for c in range(n_classes)]
    means = np.stack([(h @ R) / counts[c] for c, h in enumerate(onehot)], axis=1)
    dev = np.abs(R[None, :, :] - np.take_along_axis(means, labels[:, :, None], axis=1))
    total = dev.sum(axis=1)
    between = sum(np.einsum("bn,bng->bg", h, dev) ** 2 / counts[c] for c, h in enumerate(onehot))
    between = between - total * total / n
    within = np.maximum(np.einsum("bng,bng->bg", dev, dev) - total * total / n - between, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        F = (between / (n_classes - 1)) / (within / (n - n_classes))
    return np.where(np.isnan(F), 0.0, F)


def _ref_scores(R, labels, n_classes, counts, log_w):
    n = R.shape[0]
    d1, d2 = n_classes - 1, n - n_classes
    F_loc = _ref_f_stats(R, labels, n_classes, counts)
    score = log_w[0] - stats.f.logsf(F_loc, d1, d2)
    if np.isfinite(log_w[1]):
        F_spr = _ref_spread_stats(R, labels, n_classes, counts)
        score = np.maximum(score, log_w[1] - stats.f.logsf(F_spr, d1, d2))
        return score, F_loc, F_spr
    return score, F_loc, np.zeros_like(F_loc)


# --- data of every kind -------------------------------------------------------------------


def _mixed(sizes, seed):
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(len(sizes)), sizes)
    n = y.size
    blocks = [
        rng.normal(size=(n, 600)),  # gaussian
        rng.normal(loc=1e4, scale=1e-2, size=(n, 20)),  # far from 0: needs centred sums
        rng.lognormal(size=(n, 80)),  # skewed
        rng.standard_cauchy((n, 60)),  # heavy-tailed
        rng.poisson(0.8, size=(n, 80)).astype(float),  # tied (zero-inflated)
        np.round(rng.normal(size=(n, 40)) * 3),  # few integers
        (rng.random((n, 60)) < 0.15).astype(float),  # two-valued
        np.where(rng.random((n, 10)) < 0.5, -2.5, 7.0),  # two-valued, not 0/1
        np.full((n, 5), 3.25),  # constant
    ]
    X = np.column_stack(blocks)
    X[:, :15] += 1.2 * (y[:, None] == 1)
    X[:, 600:605] *= np.where(y == 0, 3.0, 1.0)[:, None]
    return X, y


FAR = slice(600, 620)  # the features far from 0 (mean / SD = 1e6)


def _fit_both(X, y, monkeypatch, **params):
    """Fit with the kernels and with the numpy reference; also every pooled p-value call."""
    calls = {"fast": [], "ref": []}
    pooled = rank_null.pooled_permutation_pvalues

    def recorder(key):
        def record(obs, pool, **kw):
            p = pooled(obs, pool, **kw)
            calls[key].append((np.asarray(obs), np.asarray(pool), p))
            return p

        return record

    with monkeypatch.context() as mp:
        mp.setattr(rank_null, "pooled_permutation_pvalues", recorder("fast"))
        fast = ClassDifferenceScreen(random_state=7, **params).fit(X, y)
    with monkeypatch.context() as mp:
        mp.setattr(screen_module, "first_pass", _ref_first_pass)
        mp.setattr(rank_null, "_scores", _ref_scores)
        mp.setattr(rank_null, "_fused", lambda n, n_classes, work: False)  # the untied null too
        mp.setattr(rank_null, "pooled_permutation_pvalues", recorder("ref"))
        ref = ClassDifferenceScreen(random_state=7, **params).fit(X, y)
    return fast, ref, calls


def _check_pooled_calls(calls):
    """Permutation p-values agree up to the draws that tie the observed score to rounding.

    The reference computes the spread F of tied labellings (mirror images) with different
    roundings, so which of them it counts as ``>=`` the observed score is arbitrary; the
    kernel's integer sums make them bit-equal. Outside that band the counts must agree."""
    assert len(calls["fast"]) == len(calls["ref"])
    for (obs, pool, p), (obs_r, pool_r, p_r) in zip(calls["fast"], calls["ref"]):
        np.testing.assert_allclose(obs, obs_r, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(np.sort(pool), np.sort(pool_r), rtol=1e-12, atol=1e-12)
        band = 1e-12 * np.maximum(np.abs(obs), 1.0)
        srt = np.sort(pool)
        above = srt.size - np.searchsorted(srt, obs + band, side="right")
        at_least = srt.size - np.searchsorted(srt, obs - band, side="left")
        for q in (p, p_r):
            assert np.all((1 + above) / (1 + srt.size) <= q + 1e-15)
            assert np.all(q <= (1 + at_least) / (1 + srt.size) + 1e-15)
        # Exact agreement wherever no draw lies within the band of the observed score.
        clear = above == at_least
        np.testing.assert_array_equal(p[clear], p_r[clear])


def _assert_same_screen(fast, ref, calls):
    np.testing.assert_array_equal(fast.kinds_, ref.kinds_)
    np.testing.assert_array_equal(fast.min_pvalues_, ref.min_pvalues_)
    _check_pooled_calls(calls)
    near = np.ones(fast.pvalues_.size, bool)
    near[FAR] = False
    near[fast.kinds_ == RANKED] = False  # checked call by call above
    np.testing.assert_allclose(fast.pvalues_[near], ref.pvalues_[near], rtol=1e-12, atol=1e-15)
    for a, b in (
        (fast.location_statistics_, ref.location_statistics_),
        (fast.spread_statistics_, ref.spread_statistics_),
    ):
        np.testing.assert_allclose(a[near], b[near], rtol=1e-11, atol=1e-20)
    # Far from 0 both are float64 roundings of an ill-conditioned mean (condition ~1e6).
    far = np.zeros(fast.pvalues_.size, bool)
    far[FAR] = True
    far &= fast.kinds_ != RANKED
    np.testing.assert_allclose(fast.pvalues_[far], ref.pvalues_[far], rtol=1e-9)
    assert fast.prior_["location"] == pytest.approx(ref.prior_["location"], rel=1e-12)


@pytest.mark.parametrize(
    "sizes, spread_weight",
    [((8, 8), "auto"), ((14, 16), 0.35), ((5, 9, 12), 0.0), ((12, 13, 15), 0.35), ((3, 27), 0.2)],
)
def test_screen_equals_the_numpy_reference_on_every_kind(sizes, spread_weight, monkeypatch):
    X, y = _mixed(sizes, seed=sum(sizes))
    fast, ref, calls = _fit_both(X, y, monkeypatch, spread_weight=spread_weight)
    assert {k for k, v in fast.kind_counts_.items() if v} >= {
        "constant",
        "two_valued",
        "gaussian",
        "ranked",
    }
    _assert_same_screen(fast, ref, calls)


def test_float32_and_memmap_equal_the_reference(monkeypatch, tmp_path):
    X, y = _mixed((15, 15), seed=3)
    X32 = X.astype(np.float32)
    fast, ref, calls = _fit_both(X32, y, monkeypatch, spread_weight=0.35)
    _assert_same_screen(fast, ref, calls)
    mm = np.lib.format.open_memmap(tmp_path / "x.npy", mode="w+", dtype=np.float32, shape=X.shape)
    mm[:] = X32
    mm.flush()
    lazy = ClassDifferenceScreen(random_state=7, spread_weight=0.35).fit(
        np.load(tmp_path / "x.npy", mmap_mode="r"), y
    )
    np.testing.assert_array_equal(lazy.kinds_, fast.kinds_)
    np.testing.assert_allclose(lazy.pvalues_, fast.pvalues_, rtol=1e-12, atol=1e-15)


def test_first_pass_fits_equal_linear_model_fit():
    X, y = _mixed((6, 7, 9), seed=11)
    fast = first_pass(X, y, 3, spread=True, pooled=True)
    ref = _ref_first_pass(X, y, 3, spread=True, pooled=True)
    np.testing.assert_array_equal(fast.kinds, ref.kinds)
    # The fits hold the gaussian features' rows, in feature order.
    gaussian = fast.kinds == GAUSSIAN
    row = np.cumsum(gaussian) - 1
    near = row[np.r_[0:600, 620 : X.shape[1]][gaussian[np.r_[0:600, 620 : X.shape[1]]]]]
    far_features = np.arange(X.shape[1])[FAR]
    far = row[far_features[gaussian[FAR]]]
    assert near.size > 500 and far.size > 10
    # The pooled variances (no labels) of the gaussian features, in the fits' order.
    np.testing.assert_allclose(fast.pooled[near], ref.pooled[near], rtol=1e-11)
    np.testing.assert_allclose(fast.pooled[far], ref.pooled[far], rtol=1e-7)
    for a, b in ((fast.location, ref.location), (fast.spread, ref.spread)):
        # The fast fits keep the tested coefficients (1..C-1 of the full fit) only.
        b = LinearModelFit(
            b.coefficients[:, 1:], b.unscaled_covariance[1:, 1:], b.variances, b.df_residual
        )
        assert isinstance(a, LinearModelFit)
        assert a.variances.size == gaussian.sum()
        np.testing.assert_allclose(
            a.coefficients[near], b.coefficients[near], rtol=1e-11, atol=1e-14
        )
        np.testing.assert_allclose(a.variances[near], b.variances[near], rtol=1e-11, atol=1e-20)
        # Far from 0 (means 1e4, SDs 1e-2): both are float64 roundings of the class means.
        np.testing.assert_allclose(a.coefficients[far], b.coefficients[far], atol=1e-10)
        np.testing.assert_allclose(a.variances[far], b.variances[far], rtol=1e-7)
        np.testing.assert_array_equal(a.df_residual, b.df_residual)
        np.testing.assert_allclose(a.unscaled_covariance, b.unscaled_covariance, rtol=1e-14)
    np.testing.assert_array_equal(fast.carriers, ref.carriers)
    np.testing.assert_array_equal(fast.tie_index, ref.tie_index)
    np.testing.assert_array_equal(fast.tie_values, ref.tie_values)
    assert fast.pooled_df == ref.pooled_df == (X.shape[0] - 3) * X.shape[1]


@pytest.mark.parametrize("n_classes", [2, 3])
def test_rank_statistics_equal_the_reference(n_classes):
    rng = np.random.default_rng(n_classes)
    codes = np.repeat(np.arange(n_classes), [7, 9, 11][:n_classes])
    n = codes.size
    values = np.column_stack(
        [rng.normal(size=n), rng.integers(0, 4, n), np.r_[np.zeros(n - 3), 1, 2, 2], np.zeros(n)]
    )
    R = stats.rankdata(values, axis=0)
    labels = rng.permuted(np.tile(codes, (300, 1)), axis=1)
    counts = np.bincount(codes).astype(float)
    F_loc, F_spr = rank_f_scores(R, labels, counts, True)
    # Sums of half-integers are exact: the location F is bit-identical.
    np.testing.assert_array_equal(F_loc, _ref_f_stats(R, labels, n_classes, counts))
    np.testing.assert_allclose(
        F_spr, _ref_spread_stats(R, labels, n_classes, counts), rtol=1e-12, atol=1e-12
    )
    assert np.all(F_loc[:, -1] == 0) and np.all(F_spr[:, -1] == 0)  # a constant column
    np.testing.assert_array_equal(rank_f_scores(R, labels, counts, False)[1], 0.0)


def test_non_finite_values_are_named():
    X, y = _mixed((6, 6), seed=1)
    X[2, 5] = np.nan
    X[0, 700] = np.inf
    with pytest.raises(ValueError, match=r"NaN or infinity \(columns \[5, 700\]\)"):
        first_pass(X, y, 2, spread=False)


def test_tie_factor_equals_the_tie_groups():
    rng = np.random.default_rng(4)
    n = 23
    X = np.column_stack(
        [rng.normal(size=n), rng.integers(0, 3, n), np.r_[np.zeros(n - 2), 1, 1], np.ones(n)]
    )
    X = np.column_stack([X, rng.lognormal(size=(n, 5)), rng.poisson(2.0, (n, 5))])
    expected = [
        sum(t**3 - t for t in np.unique(col, return_counts=True)[1]) / (n**3 - n) for col in X.T
    ]
    np.testing.assert_allclose(tie_factor(X), expected, rtol=1e-13, atol=1e-16)
    assert tie_factor(X)[0] == 0.0 and tie_factor(X)[3] == 1.0
