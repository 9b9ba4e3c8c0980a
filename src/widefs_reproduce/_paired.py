"""Paired tests of two methods over repeated random train/test splits.

Used by the Soares (2010) reproduction to compare CEFS with traditional selection split by
split, for our runs and for the dissertation's per-run accuracies (its Appendix A).
"""

from __future__ import annotations

import numpy as np
from scipy import stats

__all__ = ["corrected_resampled_ttest", "paired_tests", "wilcoxon_signed_rank"]


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


def wilcoxon_signed_rank(diff) -> float:
    """Two-sided Wilcoxon signed-rank p-value of paired differences (zeros dropped).

    Exact distribution without ties or zeros, the normal approximation otherwise
    (scipy's choice); 1.0 when every difference is zero.

    Examples
    --------
    >>> round(wilcoxon_signed_rank([1.0, 2.0, 0.0, 3.0, 4.0, 5.0, -0.5]), 3)
    0.062
    """
    d = np.asarray(diff, dtype=float)
    if not np.any(d != 0):
        return 1.0
    return float(stats.wilcoxon(d, zero_method="wilcox", alternative="two-sided").pvalue)


def paired_tests(a, b, n_train: int, n_test: int) -> dict:
    """``b - a`` per split: mean, wins/ties/losses, paired t, corrected t and Wilcoxon p.

    The differences are rounded to 1e-9 first, so that differences that are equal in exact
    arithmetic (accuracies are counts over a test set) but not in floating point count as
    ties, both in wins / ties / losses and in the Wilcoxon ranks.
    """
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    d = np.round(b - a, 9)
    return {
        "mean": float(d.mean()),
        "wins": int((d > 0).sum()),
        "ties": int((d == 0).sum()),
        "losses": int((d < 0).sum()),
        "t_p": corrected_resampled_ttest(d, n_train, 0)[1],
        "corrected_p": corrected_resampled_ttest(d, n_train, n_test)[1],
        "wilcoxon_p": wilcoxon_signed_rank(d),
    }
