"""Paired tests of two methods over repeated random train/test splits.

Used by the Soares (2010) reproduction to compare CEFS with traditional selection split by
split, for our runs and for the dissertation's per-run accuracies (its Appendix A).
"""

from __future__ import annotations

import numpy as np
from scipy import stats

__all__ = [
    "corrected_resampled_ttest",
    "corrected_t_threshold",
    "paired_tests",
    "wilcoxon_signed_rank",
]


def corrected_resampled_ttest(diff, n_train: int, n_test: int) -> tuple[float, float]:
    """Nadeau & Bengio's (2003) corrected resampled t-test of paired differences.

    Over J random splits with n_train training and n_test test examples, the differences'
    variance understates the variance of their mean because the training sets overlap; the
    corrected statistic is ``t = mean(d) / sqrt((1/J + n_test/n_train) * var(d))`` with
    J - 1 degrees of freedom (two-sided p-value). With ``n_test = 0`` it is the ordinary
    paired t-test.

    Parameters
    ----------
    diff : array_like of shape (J,)
        Paired differences, one per split.
    n_train, n_test : int
        Training and test set sizes of every split.

    Returns
    -------
    t, p : float
        The statistic and its two-sided p-value; ``(0.0, 1.0)`` when every difference is 0,
        ``(+-inf, 0.0)`` when all are equal and non-zero.

    Examples
    --------
    >>> t, p = corrected_resampled_ttest([1.0, 2.0, 0.0, 3.0], n_train=90, n_test=10)
    >>> round(t, 3), round(p, 3)
    (1.933, 0.149)
    """
    d = np.asarray(diff, dtype=float)
    if d.ndim != 1 or d.size < 2:
        raise ValueError(f"need at least 2 paired differences, got shape {d.shape}")
    if n_train < 1 or n_test < 0:
        raise ValueError(f"need n_train >= 1 and n_test >= 0, got {n_train} and {n_test}")
    J = d.size
    mean, var = d.mean(), d.var(ddof=1)
    if var == 0.0:
        return (0.0, 1.0) if mean == 0.0 else (float(np.sign(mean) * np.inf), 0.0)
    t = mean / np.sqrt((1.0 / J + n_test / n_train) * var)
    return float(t), float(2.0 * stats.t.sf(abs(t), J - 1))


def corrected_t_threshold(J: int, n_train: int, n_test: int, level: float = 0.05) -> float:
    """Smallest ``|mean(d)| / sd(d)`` at which the corrected resampled t-test rejects.

    The test rejects at ``level`` (two-sided) when ``|t| >= t_{1-level/2, J-1}``, that is when
    the differences' standardized mean reaches ``t_{1-level/2, J-1} sqrt(1/J + n_test/n_train)``
    (the plain paired t-test: ``t_{1-level/2, J-1} / sqrt(J)``). It measures the power the
    correction leaves: with ``n_test / n_train`` of 12, a mean difference must exceed about
    7.6 standard deviations of the per-split differences.

    Examples
    --------
    >>> round(corrected_t_threshold(15, 100, 0), 3)  # the plain paired t-test
    0.554
    >>> round(corrected_t_threshold(15, 194, 2406), 2)  # madelon: 2406 test, 194 train
    7.57
    """
    return float(stats.t.ppf(1 - level / 2, J - 1) * np.sqrt(1.0 / J + n_test / n_train))


def _signed_rank_distribution(ranks2: np.ndarray) -> np.ndarray:
    """Null distribution of the sum of the positive doubled ranks: ``counts[s]`` is the
    number of the ``2**n`` sign patterns whose positive ranks sum to s (one pass per rank)."""
    counts = np.zeros(int(ranks2.sum()) + 1)
    counts[0] = 1.0
    for r in ranks2:
        shifted = np.zeros_like(counts)
        shifted[r:] = counts[: counts.size - r]
        counts = counts + shifted
    return counts


def wilcoxon_signed_rank(diff) -> float:
    """Two-sided exact Wilcoxon signed-rank p-value of paired differences.

    Zeros are dropped (Wilcoxon's convention); tied absolute differences get their average
    rank and the null distribution is the exact one of those ranks under random signs
    (the permutation distribution conditional on the ties), computed over all ``2**n``
    sign patterns by counting. 1.0 when every difference is zero. Unlike the normal
    approximation (scipy's choice with ties or zeros), it is exact for the small n of a
    few random splits.

    Examples
    --------
    >>> round(wilcoxon_signed_rank([1.0, 2.0, 0.0, 3.0, 4.0, 5.0, -0.5]), 4)  # n = 6 after the 0
    0.0625
    >>> wilcoxon_signed_rank([1.0, 1.0, 1.0])  # the smallest p-value with n = 3
    0.25
    """
    d = np.asarray(diff, dtype=float)
    d = d[d != 0]
    if d.size == 0:
        return 1.0
    ranks2 = np.rint(2 * stats.rankdata(np.abs(d))).astype(np.int64)  # midranks are halves
    counts = _signed_rank_distribution(ranks2)
    w = int(ranks2[d > 0].sum())
    total = counts.sum()
    lower, upper = counts[: w + 1].sum() / total, counts[w:].sum() / total
    return float(min(1.0, 2.0 * min(lower, upper)))


def paired_tests(a, b, n_train: int, n_test: int) -> dict:
    """``b - a`` per split: mean, wins/ties/losses, paired t, corrected t and exact Wilcoxon p.

    The differences are rounded to 1e-9 first, so that differences that are equal in exact
    arithmetic (accuracies are counts over a test set) but not in floating point count as
    ties, both in wins / ties / losses and in the Wilcoxon ranks. ``std_mean`` is
    ``|mean| / sd`` of the differences, to compare with :func:`corrected_t_threshold`.
    """
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    d = np.round(b - a, 9)
    sd = d.std(ddof=1)
    return {
        "mean": float(d.mean()),
        "wins": int((d > 0).sum()),
        "ties": int((d == 0).sum()),
        "losses": int((d < 0).sum()),
        "t_p": corrected_resampled_ttest(d, n_train, 0)[1],
        "corrected_p": corrected_resampled_ttest(d, n_train, n_test)[1],
        "wilcoxon_p": wilcoxon_signed_rank(d),
        "std_mean": float(abs(d.mean()) / sd) if sd > 0 else (np.inf if d.mean() != 0 else 0.0),
    }
