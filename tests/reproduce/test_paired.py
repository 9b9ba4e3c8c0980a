"""Exact Wilcoxon signed-rank p-values and the corrected t-test's rejection threshold,
against brute force."""

import itertools

import numpy as np
import pytest
from scipy import stats

from widefs_reproduce._paired import (
    corrected_resampled_ttest,
    corrected_t_threshold,
    wilcoxon_signed_rank,
)


def _brute_wilcoxon(d):
    """Every sign pattern of the nonzero differences' midranks, counted."""
    d = np.asarray(d, dtype=float)
    d = d[d != 0]
    ranks = stats.rankdata(np.abs(d))
    w = ranks[d > 0].sum()
    sums = np.array([np.dot(s, ranks) for s in itertools.product([0, 1], repeat=d.size)])
    lower, upper = np.mean(sums <= w + 1e-9), np.mean(sums >= w - 1e-9)
    return min(1.0, 2 * min(lower, upper))


@pytest.mark.parametrize("seed", range(30))
def test_exact_wilcoxon_with_ties_and_zeros_matches_enumeration(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 13))
    d = rng.integers(-3, 4, size=n).astype(float) / 3  # many ties and zeros
    if not np.any(d):
        assert wilcoxon_signed_rank(d) == 1.0
        return
    assert wilcoxon_signed_rank(d) == pytest.approx(_brute_wilcoxon(d), rel=1e-12)


def test_exact_wilcoxon_differs_from_the_normal_approximation_on_small_n():
    # Ties force scipy's default to the normal approximation; the exact p is larger here.
    d = np.array([1.0, 1.0, 1.0, 2.0, -1.0])
    approx = stats.wilcoxon(d, method="approx").pvalue
    exact = wilcoxon_signed_rank(d)
    assert exact == pytest.approx(_brute_wilcoxon(d), rel=1e-12)
    assert exact > approx + 0.05


@pytest.mark.parametrize(("J", "n_train", "n_test"), [(15, 136, 150), (15, 194, 2406), (5, 30, 0)])
def test_corrected_t_threshold_is_where_the_test_starts_to_reject(J, n_train, n_test):
    # Differences with a given |mean| / sd: the test rejects just above the threshold and
    # not just below it.
    base = np.linspace(-1, 1, J)
    base = (base - base.mean()) / base.std(ddof=1)
    k = corrected_t_threshold(J, n_train, n_test)
    for factor, rejects in ((1.001, True), (0.999, False)):
        _, p = corrected_resampled_ttest(base + k * factor, n_train, n_test)
        assert (p < 0.05) == rejects
