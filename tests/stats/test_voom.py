"""voom and lowess against independent computations (statsmodels' lowess, the formulas)."""

import numpy as np
import pytest

from widefs.stats import looks_like_counts, lowess, voom


@pytest.mark.parametrize("n", [2, 60, 3000])
def test_lowess_equals_statsmodels(n):
    sm = pytest.importorskip("statsmodels.nonparametric.smoothers_lowess")
    rng = np.random.default_rng(n)
    x = rng.gamma(2, 2, size=n)
    x[: n // 5] = np.round(x[: n // 5], 1)  # ties
    y = np.sin(x) + 0.3 * rng.standard_t(3, size=n)
    xs, fitted = lowess(x, y, frac=0.5)
    ref = sm.lowess(y, x, frac=0.5, it=3, delta=0.01 * np.ptp(x))
    np.testing.assert_allclose(xs, ref[:, 0])
    np.testing.assert_allclose(fitted, ref[:, 1], rtol=1e-6, atol=1e-7)


def test_lowess_is_robust_to_an_outlier_and_exact_on_a_line():
    x = np.arange(30.0)
    y = 0.5 * x - 2
    np.testing.assert_allclose(lowess(x, y)[1], y, atol=1e-10)
    y_out = y.copy()
    y_out[15] += 100
    fitted = lowess(x, y_out)[1]
    assert abs(fitted[15] - y[15]) < 0.5


def _voom_by_hand(counts, design):
    """voom's four steps written out with statsmodels' lowess and a per-gene lstsq."""
    sm = pytest.importorskip("statsmodels.nonparametric.smoothers_lowess")
    lib = counts.sum(axis=1)
    y = np.log2((counts + 0.5) / (lib[:, None] + 1) * 1e6)
    coef, rss = [], []
    for j in range(y.shape[1]):
        b = np.linalg.lstsq(design, y[:, j], rcond=None)[0]
        coef.append(b)
        rss.append(np.sum((y[:, j] - design @ b) ** 2))
    coef = np.array(coef)
    sigma = np.sqrt(np.array(rss) / (y.shape[0] - design.shape[1]))
    sx = y.mean(axis=0) + np.mean(np.log2(lib + 1)) - np.log2(1e6)
    keep = counts.sum(axis=0) > 0
    fit = sm.lowess(np.sqrt(sigma[keep]), sx[keep], frac=0.5, it=3, delta=0.01 * np.ptp(sx[keep]))
    xs, idx = np.unique(fit[:, 0], return_inverse=True)
    ys = np.bincount(idx, weights=fit[:, 1]) / np.bincount(idx)
    log_count = design @ coef.T + np.log2(lib + 1)[:, None] - np.log2(1e6)
    return y, 1 / np.interp(log_count, xs, ys) ** 4


def test_voom_equals_its_steps_written_out():
    rng = np.random.default_rng(0)
    mu = rng.gamma(0.5, 200, size=500)
    counts = rng.poisson(mu, size=(8, 500)).astype(float)
    counts[:, :3] = 0  # genes never seen: left out of the trend
    design = np.column_stack([np.ones(8), np.repeat([0, 1], 4)])
    log_cpm, weights = voom(counts, design)
    ref_y, ref_w = _voom_by_hand(counts, design)
    np.testing.assert_allclose(log_cpm, ref_y, rtol=1e-12)
    np.testing.assert_allclose(weights, ref_w, rtol=1e-6)
    # Low counts are noisier on the log scale: smaller weights.
    low, high = np.argsort(mu)[50], np.argsort(mu)[-50]
    assert weights[:, low].mean() < weights[:, high].mean()


def test_voom_validation():
    design = np.ones((3, 1))
    with pytest.raises(ValueError, match="non-negative"):
        voom(-np.ones((3, 2)), design)
    with pytest.raises(ValueError, match="library size"):
        voom(np.zeros((3, 2)), design)


@pytest.mark.parametrize(
    ("X", "expected"),
    [
        (np.array([[0, 12, 530], [3, 0, 1200]]), True),
        (np.array([[0, 12, 999], [3, 0, 98]]), False),  # below the range (madelon: 0..999)
        (np.array([[0, 12, 1000], [3, 0, 1]]), True),  # exactly 1000
        (np.array([[1, 12, 1000], [3, 2, 1]]), False),  # no zero (thresholded intensities)
        (np.array([[0, 255], [17, 128]]), False),  # an 8-bit image
        (np.array([[0.5, 12, 530], [3, 0, 1200]]), False),  # not integers
        (np.array([[-1, 12, 530], [3, 0, 1200]]), False),  # negative
        (np.array([[0, 1], [2, 1]]), False),  # genotypes
        (np.array([[np.nan, 200.0]]), False),
        (np.array([["a", "b"]]), False),
        (np.zeros((0, 3)), False),
    ],
)
def test_looks_like_counts(X, expected):
    assert looks_like_counts(X) is expected


def test_the_bundled_data_are_read_as_they_are():
    """The rule on real data: no bundled microarray or tabular set is counts (medulloblastoma_b
    holds integers from 20 to 16000, madelon integers from 0 to 999), simulated RNA-seq is."""
    from widefs.datasets import list_datasets, load_dataset

    for name in list_datasets().index:
        X = load_dataset(name).data
        try:
            X = np.asarray(X, dtype=float)
        except (TypeError, ValueError):
            continue  # categorical tables
        assert not looks_like_counts(X), name
    rng = np.random.default_rng(0)
    means = np.exp(rng.uniform(0, 8, size=500))  # 1 to ~3,000 reads
    counts = rng.negative_binomial(5, 5 / (5 + means), size=(12, 500))
    assert looks_like_counts(counts) and looks_like_counts(counts.astype(np.float32))
