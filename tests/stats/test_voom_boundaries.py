"""voom, lowess and looks_like_counts at their boundaries, against independent computations.

lowess is compared with statsmodels' (a port of Cleveland's clowess) on the inputs where a
comparison decides: ties in x, constant x, windows of two points, exact fits, explicit
``delta`` and ``iterations``; voom with given library sizes with its steps written out;
looks_like_counts at the count range and across its column blocks.
"""

import numpy as np
import pytest

import widefs.stats._voom as voom_module
from widefs.stats import looks_like_counts, lowess, voom

# An exact fit (tiny inputs) leaves 0 / 0 in lowess's unused bisquare weights: numpy warns,
# the values are right.
pytestmark = pytest.mark.filterwarnings("ignore:invalid value encountered in divide:RuntimeWarning")

sm_lowess = pytest.importorskip("statsmodels.nonparametric.smoothers_lowess").lowess


@pytest.fixture(autouse=True)
def _bounded_time():
    """Fail a test that runs for more than 30 s (every one takes well under a second):
    a loop that never ends is a failure, not a hang."""
    import signal

    def stop(*_):
        raise TimeoutError("the test ran for more than 30 s")

    old = signal.signal(signal.SIGALRM, stop)
    signal.alarm(30)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, old)


def _lowest(x, y, xs, nleft, nright, rw):
    """R's ``lowest`` (lowess.c): the local fit at xs, transliterated with loops."""
    n = x.size
    h = max(xs - x[nleft], x[nright] - xs)
    w = np.zeros(n)
    a = 0.0
    j = nleft
    while j < n:
        r = abs(x[j] - xs)
        if r <= 0.999 * h:
            w[j] = 1.0 if r <= 0.001 * h else (1.0 - (r / h) ** 3) ** 3
            w[j] *= rw[j]
            a += w[j]
        elif x[j] > xs:
            break
        j += 1
    if a <= 0:
        return None
    w /= a
    if h > 0:
        a = sum(w[k] * x[k] for k in range(n))
        c = sum(w[k] * (x[k] - a) ** 2 for k in range(n))
        if np.sqrt(c) > 0.001 * (x[-1] - x[0]):
            b = (xs - a) / c
            w = np.array([w[k] * (b * (x[k] - a) + 1.0) for k in range(n)])
    return sum(w[k] * y[k] for k in range(n))


def _clowess(x, y, frac=2 / 3, it=3, delta=None):
    """R's ``clowess`` (lowess.c) with loops: windows, anchors, ties copied, robustness."""
    order = np.argsort(x, kind="stable")
    x, y = np.asarray(x, float)[order], np.asarray(y, float)[order]
    n = x.size
    if n < 2:
        return x, y.copy()
    delta = 0.01 * (x[-1] - x[0]) if delta is None else delta
    ns = max(min(int(frac * n + 1e-7), n), 2)
    rw = np.ones(n)
    ys = np.zeros(n)
    for step in range(it + 1):
        nleft, nright, last, i = 0, ns - 1, -1, 0
        while True:
            while nright < n - 1 and x[i] - x[nleft] > x[nright + 1] - x[i]:
                nleft, nright = nleft + 1, nright + 1
            fit = _lowest(x, y, x[i], nleft, nright, rw)
            ys[i] = y[i] if fit is None else fit
            if last < i - 1:
                for j in range(last + 1, i):
                    alpha = (x[j] - x[last]) / (x[i] - x[last])
                    ys[j] = alpha * ys[i] + (1 - alpha) * ys[last]
            last = i
            cut = x[last] + delta
            i = last + 1
            while i < n and x[i] <= cut:
                if x[i] == x[last]:
                    ys[i] = ys[last]
                    last = i
                i += 1
            i = max(last + 1, i - 1)
            if last >= n - 1:
                break
        if step == it:
            break
        res = np.abs(y - ys)
        srt = np.sort(res)
        cmad = 3 * (srt[n // 2 - 1] + srt[n // 2]) if n % 2 == 0 else 6 * srt[n // 2]
        if cmad < 1e-7 * res.mean():
            break
        rw = np.array(
            [
                1.0
                if r <= 0.001 * cmad
                else (1 - (r / cmad) ** 2) ** 2
                if r <= 0.999 * cmad
                else 0.0
                for r in res
            ]
        )
    return x, ys


def _ref(x, y, frac, it, delta=None):
    return _clowess(x, y, frac, it, delta)


def test_the_transliteration_equals_statsmodels_where_statsmodels_follows_r():
    # Without ties in x statsmodels' lowess is Cleveland's algorithm as R has it.
    rng = np.random.default_rng(0)
    x, y = rng.uniform(0, 10, size=60), rng.standard_t(3, size=60)
    ref = sm_lowess(y, x, frac=0.3, it=3, delta=0.01 * np.ptp(x))
    np.testing.assert_allclose(_clowess(x, y, 0.3, 3)[1], ref[:, 1], rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize(
    ("frac", "it", "delta"),
    [
        (0.5, 3, None),
        (2 / 3, 0, None),
        (0.1, 3, None),
        (0.03, 2, 0.0),
        (1.0, 1, 0.5),
        (0.3, 4, 2.0),
    ],
)
def test_lowess_equals_statsmodels_for_every_setting(frac, it, delta):
    rng = np.random.default_rng(int(10 * frac) + it)
    x = np.round(rng.uniform(0, 20, size=80), 0)  # many ties in x
    y = np.cos(x / 3) + 0.4 * rng.standard_t(2, size=80)
    xs, fitted = lowess(x, y, frac=frac, iterations=it, delta=delta)
    rx, ry = _ref(x, y, frac, it, delta)
    np.testing.assert_array_equal(xs, rx)
    np.testing.assert_allclose(fitted, ry, rtol=1e-9, atol=1e-10)


def test_lowess_keeps_the_input_order_of_tied_x():
    # Narrow windows cut through runs of tied x: which tied points a window holds follows
    # their order in the input (a stable sort, as R's order()), and so does the fit.
    rng = np.random.default_rng(7)
    x = np.round(rng.uniform(0, 3, size=300), 1)
    y = rng.normal(size=300)
    np.testing.assert_allclose(lowess(x, y, frac=0.02)[1], _clowess(x, y, 0.02, 3)[1], rtol=1e-9)


@pytest.mark.parametrize(
    "x",
    [
        np.r_[-5000.0, np.linspace(0.0, 3.0, 30), 5000.0],  # a tight cluster, range 10^4
        np.r_[-2.0, np.linspace(0.0, 3.0, 30), 5000.0],  # the range set by the last point
        np.r_[-5000.0, np.linspace(0.0, 3.0, 30), 3.5],  # the range set by the first point
    ],
)
def test_lowess_slope_guard_uses_the_range_of_x(x):
    # A window whose x spread is below 1/1000 of the range of x gets a local mean, not a
    # local line (R's guard against an ill-conditioned slope).
    y = 0.7 * x + np.sin(7 * x)
    fitted = lowess(x, y, frac=0.3, iterations=1)[1]
    np.testing.assert_allclose(fitted, _clowess(x, y, 0.3, 1)[1], rtol=1e-9, atol=1e-9)


def test_lowess_on_constant_x_is_the_robust_mean():
    rng = np.random.default_rng(1)
    x = np.full(12, 3.0)
    y = rng.normal(size=12)
    for it in (0, 3):
        _xs, fitted = lowess(x, y, iterations=it)
        np.testing.assert_allclose(fitted, _ref(x, y, 2 / 3, it)[1], rtol=1e-12)
    np.testing.assert_allclose(lowess(x, y, iterations=0)[1], y.mean(), rtol=1e-12)


def test_lowess_exact_with_mostly_zero_residuals_and_an_outlier():
    # Most residuals 0: the median absolute residual is 0 and the robustness loop stops.
    x = np.arange(20.0)
    y = 3.0 - 0.25 * x
    y[[4, 13]] += [8.0, -6.0]
    _xs, fitted = lowess(x, y, frac=0.4)
    np.testing.assert_allclose(fitted, _ref(x, y, 0.4, 3)[1], rtol=1e-9, atol=1e-12)


def test_lowess_on_few_points():
    assert lowess([], [])[0].size == 0
    xs, fitted = lowess([2.0], [5.0])
    assert xs.tolist() == [2.0] and fitted.tolist() == [5.0]
    y = np.array([1.0, 4.0])
    xs, fitted = lowess([1.0, 0.0], y)  # sorted by x; two points: the line through them
    assert xs.tolist() == [0.0, 1.0]
    np.testing.assert_allclose(fitted, [4.0, 1.0])
    # Two points at the same x: one window of weight 1 each, both fitted by their mean.
    np.testing.assert_allclose(lowess([1.0, 1.0], [0.0, 2.0])[1], [1.0, 1.0])
    for n in (3, 4, 5):
        rng = np.random.default_rng(n)
        x, yy = rng.normal(size=n), rng.normal(size=n)
        np.testing.assert_allclose(lowess(x, yy, frac=0.5)[1], _ref(x, yy, 0.5, 3)[1], rtol=1e-9)


def test_lowess_window_of_zero_robustness_weight_keeps_the_observation():
    # Four alternating outliers among small noise: after the first pass their robustness
    # weights are 0, so a window of four holding only them has total weight 0 and R's rule
    # keeps the observation itself.
    rng = np.random.default_rng(3)
    x = np.arange(30.0)
    y = 0.01 * rng.normal(size=30)
    y[12:16] += [100.0, -100.0, 100.0, -100.0]
    frac = 4 / 30
    _xs, fitted = lowess(x, y, frac=frac, delta=0.0)
    ref = _clowess(x, y, frac, 3, 0.0)[1]
    np.testing.assert_allclose(fitted, ref, rtol=1e-9, atol=1e-12)
    assert fitted[13] == y[13] and fitted[14] == y[14]


@pytest.mark.parametrize(("noise", "outlier"), [(1e-4, 1e6), (0.1, 1000.0)])
def test_lowess_robustness_stop_rule(noise, outlier):
    # Tiny noise and huge outliers: 6 MAD falls below 1e-7 times the mean absolute residual
    # and the iterations stop; moderate ones: 6 MAD is below the mean, and they go on.
    rng = np.random.default_rng(4)
    x = np.arange(200.0)
    y = 0.3 * x + noise * rng.normal(size=200)
    y[[37, 150]] += outlier
    first = np.abs(y - lowess(x, y, frac=0.05, iterations=0)[1])
    cmad, mean = 6 * np.median(first), first.mean()
    assert (cmad < 1e-7 * mean) if noise < 1e-3 else (1e-7 * mean < cmad < mean)
    fitted = lowess(x, y, frac=0.05)[1]
    np.testing.assert_allclose(fitted, _clowess(x, y, 0.05, 3)[1], rtol=1e-9, atol=1e-9)


def test_lowess_terminates():
    # The anchor walk reaches the last point for every spacing (the alarm fixture fails a
    # run that does not).
    for n, delta in ((2, None), (3, 0.0), (10, None), (10, 100.0), (25, 0.5)):
        x = np.sort(np.random.default_rng(n).normal(size=n))
        _xs, fitted = lowess(x, x**2, frac=0.5, delta=delta)
        np.testing.assert_allclose(fitted, _clowess(x, x**2, 0.5, 3, delta)[1], rtol=1e-9)


def _voom_by_hand(counts, design, lib):
    """voom's steps written out: per-gene lstsq, statsmodels' lowess, interpolation."""
    y = np.log2((counts + 0.5) / (lib[:, None] + 1) * 1e6)
    coef = np.array([np.linalg.lstsq(design, y[:, j], rcond=None)[0] for j in range(y.shape[1])])
    rss = np.sum((y - design @ coef.T) ** 2, axis=0)
    sigma = np.sqrt(rss / (y.shape[0] - design.shape[1]))
    sx = y.mean(axis=0) + np.mean(np.log2(lib + 1)) - np.log2(1e6)
    keep = counts.sum(axis=0) > 0
    fit = sm_lowess(np.sqrt(sigma[keep]), sx[keep], frac=0.5, it=3, delta=0.01 * np.ptp(sx[keep]))
    xs, idx = np.unique(fit[:, 0], return_inverse=True)
    ys = np.bincount(idx, weights=fit[:, 1]) / np.bincount(idx)
    log_count = design @ coef.T + np.log2(lib + 1)[:, None] - np.log2(1e6)
    return y, 1 / np.interp(log_count, xs, ys) ** 4


def test_voom_with_given_library_sizes():
    rng = np.random.default_rng(2)
    counts = rng.poisson(rng.gamma(0.5, 300, size=300), size=(6, 300)).astype(float)
    design = np.column_stack([np.ones(6), [0, 0, 0, 1, 1, 1]])
    lib = np.array([2e6, 1e6, 3e6, 5e5, 2e6, 1.5e6])  # not the column sums
    log_cpm, weights = voom(counts, design, lib_size=lib)
    ref_y, ref_w = _voom_by_hand(counts, design, lib)
    np.testing.assert_allclose(log_cpm, ref_y, rtol=1e-12)
    np.testing.assert_allclose(weights, ref_w, rtol=1e-6)


COUNTS = r"^counts must be a 2-D matrix of finite, non-negative values\.$"
LIBRARY = r"^Every sample needs a positive library size\.$"


@pytest.mark.parametrize(
    ("counts", "lib", "message"),
    [
        (np.ones(4), None, COUNTS),
        (np.ones((1, 2, 2)), None, COUNTS),
        (np.array([[1.0, np.nan], [2.0, 3.0]]), None, COUNTS),
        (np.array([[1.0, np.inf], [2.0, 3.0]]), None, COUNTS),
        (np.array([[1.0, -1.0], [2.0, 3.0]]), None, COUNTS),
        (np.array([[1.0, 0.0], [0.0, 0.0]]), None, LIBRARY),
        (np.ones((2, 2)), [1.0, 0.0], LIBRARY),
        (np.ones((2, 2)), [1.0, -2.0], LIBRARY),
        (np.ones((2, 2)), [0.5, 1.0], None),  # positive, below 1: accepted
        (np.ones((2, 2)), [1.0, np.nan], LIBRARY),
        (np.ones((2, 2)), [1.0, 2.0, 3.0], LIBRARY),
    ],
)
def test_voom_validation(counts, lib, message):
    if message is None:
        log_cpm, _ = voom(counts, np.ones((counts.shape[0], 1)), lib_size=lib)
        np.testing.assert_allclose(log_cpm[:, 0], np.log2(1.5 / (np.array(lib) + 1) * 1e6))
        return
    with pytest.raises(ValueError, match=message):
        voom(counts, np.ones((counts.shape[0], 1)), lib_size=lib)


def test_voom_accepts_zero_counts_and_a_tiny_library():
    counts = np.array([[0.0, 5.0, 9.0, 1.0], [3.0, 0.0, 2.0, 7.0], [1.0, 1.0, 0.0, 4.0]])
    log_cpm, weights = voom(counts, np.ones((3, 1)), lib_size=[1e-3, 1.0, 2.0])
    np.testing.assert_allclose(log_cpm[0, 0], np.log2(0.5 / 1.001 * 1e6))
    assert np.isfinite(weights).all() and (weights > 0).all()


def test_looks_like_counts_at_the_count_range():
    top = voom_module.COUNT_RANGE
    assert looks_like_counts(np.array([[0, 1], [2, top]]))
    assert not looks_like_counts(np.array([[0, 1], [2, top - 1]]))
    assert looks_like_counts(np.array([[0.0, 1.0], [2.0, float(top)]]))  # floats holding integers
    assert not looks_like_counts(np.array([[0.0, 1.0], [2.0, top - 0.5]]))
    assert not looks_like_counts(np.array([[-1, 1], [2, 5 * top]]))
    assert not looks_like_counts(np.array([[0.0, 1.0], [np.inf, 5.0 * top]]))
    assert not looks_like_counts(np.array([[0.0, np.nan], [3.0, 5.0 * top]]))
    assert not looks_like_counts(np.array([[1 + 1j, top]]))
    assert not looks_like_counts(np.array([[True, False]]))
    # A zero is part of the rule: the largest value alone is not counts.
    assert not looks_like_counts(np.array(float(top)))
    assert looks_like_counts(np.array([0.0, float(top)]))
    assert not looks_like_counts(np.array([0.0, top + 0.5]))
    assert looks_like_counts(np.arange(top + 1)) and not looks_like_counts(np.arange(top) + 0.5)


@pytest.mark.parametrize("where", [0, 1, 2, 3])
def test_looks_like_counts_checks_every_column_block(where):
    block = voom_module._COUNT_BLOCK
    X = np.tile(np.arange(3.0)[:, None], (1, 2 * block + 7))
    X[0, 5] = 10 * voom_module.COUNT_RANGE
    assert looks_like_counts(X)
    # One value off the integers, in the first block, at a block's first or last column,
    # or in the last (partial) block.
    col = [3, block, block - 1, 2 * block + 6][where]
    X[2, col] = 1.5
    assert not looks_like_counts(X)
    X[2, col] = np.inf
    assert not looks_like_counts(X)
