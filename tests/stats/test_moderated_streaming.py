"""The prior's fit read a block at a time equals the whole-array computation, bit for bit.

:func:`widefs.stats.fit_f_dist` reads the variances in blocks (no temporary per feature);
the reference here is the earlier whole-array code (np.median, np.mean, np.var on the
joined arrays), kept as the oracle: every prior, hence every moderated p-value, is equal.
"""

import numpy as np
import pytest
from scipy.special import digamma, polygamma

from widefs._utils import _streaming
from widefs._utils._streaming import median, pairwise_sum
from widefs.stats import _moderated, fit_f_dist, trigamma_inverse

# The blocked sums rebuild numpy 2's pairwise summation; numpy 1's add.reduce groups its
# vectorized loop differently, so there the prior agrees to rounding, not bit for bit.
NUMPY1 = np.lib.NumpyVersion(np.__version__) < "2.0.0"


def _same(got, want):
    if NUMPY1:
        np.testing.assert_allclose(got, want, rtol=1e-12)
    else:
        np.testing.assert_array_equal(got, want)


def _whole_array_prior(variances, df):
    x = np.asarray(variances, dtype=np.float64).ravel()
    d = np.broadcast_to(np.asarray(df, dtype=np.float64), x.shape)
    ok = np.isfinite(x) & np.isfinite(d) & (d > 1e-15) & (x > -1e-15)
    x = x[ok]
    np.maximum(x, 0.0, out=x)
    if x.size < 2:
        return float("nan"), float("nan")
    mid = float(np.median(x))
    np.maximum(x, 1e-5 * (mid if mid > 0 else 1.0), out=x)
    one = d.size > 0 and d.min() == d.max()
    values, inverse = (d[:1], None) if one else np.unique(d[ok], return_inverse=True)
    half = values / 2
    e = np.log(x)
    shift = digamma(half) - np.log(half)
    e -= shift[0] if one else shift[inverse]
    e_mean, e_var = float(e.mean()), float(e.var(ddof=1))
    trigammas = np.full(x.size, polygamma(1, half)[0]) if one else polygamma(1, half)[inverse]
    e_var -= float(np.mean(trigammas))
    if e_var > 0:
        d0 = 2.0 * float(trigamma_inverse(e_var))
        return float(np.exp(e_mean + digamma(d0 / 2) - np.log(d0 / 2))), d0
    return float(x.mean()), float("inf")


def _cases(rng):
    for n in (2, 3, 7, 128, 129, 1000, 65_537, 300_001):
        s2 = rng.chisquare(4, n) / 4 / (rng.chisquare(10, n) / 10) * 10.0 ** rng.normal(0, 1)
        yield s2, 4.0
        df = rng.choice([2.0, 3.0, 5.0], n)
        yield s2, df
        bad = s2.copy()
        special = np.array([np.nan, 0.0, -1e-16, np.inf, -0.0, 0.0])
        at = rng.choice(n, min(n, special.size), replace=False)
        bad[at] = special[: at.size]
        df2 = np.where(rng.random(n) < 0.1, 0.0, df)
        yield bad, df2
        yield np.full(n, 2.5), 6.0  # one common variance: d0 = inf
        yield np.where(rng.random(n) < 0.7, 0.0, s2), 3.0  # the median is 0


def test_blocked_prior_equals_the_whole_array_computation(monkeypatch):
    rng = np.random.default_rng(7)
    monkeypatch.setattr(_moderated, "_BLOCK", 1000)  # many blocks, leaves across blocks
    for s2, df in _cases(rng):
        _same(fit_f_dist(s2, df), _whole_array_prior(s2, df))


def test_blocked_prior_equals_it_with_the_default_blocks():
    rng = np.random.default_rng(8)
    s2 = rng.chisquare(5, 1_000_003) / 5 * rng.gamma(3.0, 1 / 3.0, 1_000_003)
    _same(fit_f_dist(s2, 5.0), _whole_array_prior(s2, 5.0))
    _same(fit_f_dist(s2.astype(np.float32), 5.0), _whole_array_prior(s2.astype(np.float32), 5.0))


def test_pairwise_sum_is_numpys_sum_bit_for_bit():
    rng = np.random.default_rng(3)
    for _ in range(60):
        n = int(rng.integers(1, 200_000))
        x = rng.standard_normal(n) * 10.0 ** rng.integers(-8, 8, n)
        cuts = np.sort(rng.integers(0, n, rng.integers(0, 12)))
        leaf = int(rng.choice([128, 1000, 65_536]))
        _same(pairwise_sum(iter(np.split(x, cuts)), n, leaf), np.add.reduce(x))
    assert pairwise_sum(iter([]), 0) == 0.0
    with pytest.raises(ValueError, match="fewer values"):
        pairwise_sum(iter([np.ones(3)]), 5)


def test_a_sequential_sum_would_differ():
    # The test above can fail: summing the blocks one after the other is not numpy's sum.
    rng = np.random.default_rng(4)
    x = rng.standard_normal(100_000) * 10.0 ** rng.integers(-8, 8, 100_000)
    sequential = sum(float(np.add.reduce(b)) for b in np.array_split(x, 37))
    assert sequential != np.add.reduce(x)


@pytest.mark.parametrize("n", [1, 2, 3, 10, 1001, 200_000])
def test_median_is_numpys_median(n, monkeypatch):
    rng = np.random.default_rng(n)
    monkeypatch.setattr(_streaming, "_GATHER", 50)  # several radix passes
    for x in (
        rng.standard_normal(n),
        rng.integers(0, 4, n).astype(float),  # ties across the middle
        np.where(rng.random(n) < 0.5, -0.0, 0.0),
        rng.chisquare(2, n) * 1e-300,  # subnormal and tiny values
        np.concatenate([rng.standard_normal(n)[: n - 1], [np.inf]]),
    ):
        cuts = np.sort(rng.integers(0, n, 5))
        got = median(lambda x=x, cuts=cuts: iter(np.split(x, cuts)), n)
        assert got == np.median(x)
    x = rng.standard_normal(n)
    x[n // 2] = np.nan
    assert np.isnan(median(lambda: iter([x]), n))


def test_median_of_many_equal_values():
    x = np.zeros(3_000_001)
    x[::3] = 1.5
    assert median(lambda: iter(np.array_split(x, 7)), x.size) == np.median(x) == 0.0
    x[:] = 2.0
    assert median(lambda: iter([x]), x.size) == 2.0
    assert np.isnan(median(lambda: iter([]), 0))


def test_blocked_prior_keeps_no_temporary_per_feature(monkeypatch):
    import tracemalloc

    monkeypatch.setattr(_moderated, "_BLOCK", 4096)
    monkeypatch.setattr(_streaming, "_GATHER", 4096)
    rng = np.random.default_rng(5)
    m = 500_000
    s2 = rng.chisquare(6, m) / 6
    s2[::1000] = np.nan  # a compressed copy of each block, not of the whole array
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    got = fit_f_dist(s2, 6.0)
    peak = tracemalloc.get_traced_memory()[1] - before
    tracemalloc.stop()
    _same(got, _whole_array_prior(s2, 6.0))
    # Bytes: 2 MB of fixed temporaries (the median's counts of 16-bit digits), half a byte a
    # feature; the whole-array computation took about 25 bytes a feature.
    assert peak < 2**21 + 0.5 * m


def test_median_of_values_that_differ_in_their_last_bits(monkeypatch):
    # Every refinement below the first 16 bits finds the digit 0 (the rank within it kept)
    # until the last 16 bits tell the values apart.
    monkeypatch.setattr(_streaming, "_GATHER", 50)
    rng = np.random.default_rng(2)
    x = rng.permutation(1.0 + np.arange(1001) * 2.0**-52)
    assert median(lambda: iter(np.array_split(x, 3)), x.size) == np.median(x)
    x = np.concatenate([x, [3.0, 0.5]])
    assert median(lambda: iter([x]), x.size) == np.median(x)


def test_median_gathers_as_soon_as_the_candidates_fit(monkeypatch):
    # 41 values share the first 16 bits of the middle one: with room for 41 candidates they
    # are gathered after one histogram (a pass for NaN, one for the histogram, one to gather).
    monkeypatch.setattr(_streaming, "_GATHER", 41)
    x = np.concatenate([1.0 + np.arange(41) * 2.0**-40, np.full(20, 0.25), np.full(20, 8.0)])
    passes = []

    def blocks():
        passes.append(1)
        return iter([x])

    assert median(blocks, x.size) == np.median(x)
    assert len(passes) == 3


def test_used_variances_are_read_in_place_when_all_are_used():
    # Zeros and values below 1 are used as they are: the blocks are views, no copy.
    x = np.array([0.0, 0.5, 2.0, 0.25, 7.0])
    blocks = list(_moderated._UsedVariances(x, 3.0).blocks())
    assert all(np.shares_memory(b, x) for b, _ in blocks)
    # A negative rounding error is raised to 0 in a copy; the input is left as it was.
    y = np.array([-1e-17, 0.5, 2.0])
    (b, _), *_ = _moderated._UsedVariances(y, 3.0).blocks()
    assert not np.shares_memory(b, y) and b[0] == 0.0 and y[0] == -1e-17


def test_prior_when_the_observed_variance_equals_the_sampling_variance_exactly():
    # e_var = 0 to the last bit: one common variance (d0 = inf), not trigamma_inverse(0).
    # Two variances 1 and x with (log x)^2 / 2 = trigamma(2) exactly, found among floats.
    half = np.array([2.0])
    shift, trig = (digamma(half) - np.log(half))[0], polygamma(1, half)[0]
    x0 = np.exp(np.sqrt(2 * trig))
    x = (np.float64(x0).view(np.int64) + np.arange(-20_000, 20_000)).view(np.float64)
    e1, e2 = -shift, np.log(x) - shift
    m = (e1 + e2) / 2
    exact = x[((e1 - m) * (e1 - m) + (e2 - m) * (e2 - m)) - trig == 0.0]
    assert exact.size
    for value in exact[:2]:
        assert fit_f_dist([1.0, value], 4.0) == ((1.0 + value) / 2, np.inf)
    assert np.isfinite(fit_f_dist([1.0, exact[0] * 1.001], 4.0)[1])
