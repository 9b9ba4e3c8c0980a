"""When the screen's selection no longer depends on more draws of the untied rank null.

The ranked features without ties share one Monte Carlo null (``_rank_null``); every other
p-value of the screen is final before it is drawn. After B draws, a feature's count b of null
scores at least its own is Binomial(B, p) of its exact p-value p (that of infinitely many
draws), so the Clopper-Pearson interval [L, U] at level ``error`` misses p with probability
at most ``error``. Benjamini-Hochberg and Bonferroni are monotone: lowering p-values never
removes a rejection. If both rules at the screen's level reject the same features with every
untied p-value at its U as at its L, they reject those for any p-values inside the intervals:
the exact ones (unless an interval misses) and the reported ``(1 + b) / (1 + B)`` (each
interval is widened to hold it). Drawing more cannot change the selection then, up to that
error: the rule of Gandy & Hahn (2014, MMCTest), with draws that serve every feature at once,
so that the only choice left is when to stop. Exact bounds of the p-values (``_rank_exact``,
two classes), when known, narrow each interval to ``[max(L, lower), min(U, upper)]`` before it
is widened to hold the estimate: they are always true, so they cost none of the error.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, replace

import numpy as np
from numpy.typing import NDArray

from widefs._utils import feature_blocks
from widefs.univariate._screen_select import _MARGIN

__all__ = ["UntiedDecision", "clopper_pearson", "untied_decision"]

_BLOCK_BYTES = 4 * 2**20  # temporaries of a block of features


def clopper_pearson(count, trials: int, error: float):
    """Two-sided Clopper-Pearson interval of a binomial proportion at level ``error``.

    ``count`` successes of ``trials``: ``P(p < lower) <= error / 2`` and
    ``P(p > upper) <= error / 2`` (0 and 1 at the ends)."""
    from scipy.special import betaincinv

    b = np.asarray(count, dtype=np.float64)
    lower = np.where(b > 0, betaincinv(np.maximum(b, 1.0), trials - b + 1.0, error / 2), 0.0)
    upper = np.where(
        b < trials, betaincinv(b + 1.0, np.maximum(trials - b, 1.0), 1.0 - error / 2), 1.0
    )
    return lower, upper


@dataclass(frozen=True)
class UntiedDecision:
    """The screen's selections at ``alpha`` as a function of the untied features' p-values.

    ``n_testable`` is Benjamini-Hochberg's m (the untied features among them),
    ``bonferroni_cut`` is ``alpha / K`` (Tarone's K) and ``fixed`` the sorted p-values of the
    other testable features that can be Benjamini-Hochberg's cut (at most a hair above
    alpha), computed as ``bh_cut`` computes them.
    """

    alpha: float
    n_testable: int
    bonferroni_cut: float
    fixed: NDArray[np.float64]
    exact_lower: NDArray[np.float64] | None = None
    exact_upper: NDArray[np.float64] | None = None

    def bounded(self, lower, upper) -> UntiedDecision:
        """The decision with exact bounds of the untied features' p-values (in their order)."""
        return replace(self, exact_lower=lower, exact_upper=upper)

    def _bounds(self, rows, estimate):
        """The exact bounds of ``rows``, the lower one widened to hold the estimate."""
        if self.exact_lower is None:
            return np.zeros(estimate.size), np.ones(estimate.size)
        return np.minimum(self.exact_lower[rows], estimate), self.exact_upper[rows]

    def including(self, pvalues) -> UntiedDecision:
        """The decision with ``pvalues`` (the tied ranked features') fixed as well."""
        low = self.alpha * (1.0 + _MARGIN)
        found = np.concatenate([self.fixed, pvalues[pvalues <= low]])
        found.sort(kind="stable")
        return replace(self, fixed=found)

    def cut(self, pvalues) -> tuple[float, int]:
        """Benjamini-Hochberg's cut with these untied p-values (-1 when none), and the
        features it rejects, fixed and untied: the screen's ``bh_cut`` arithmetic."""
        low = self.alpha * (1.0 + _MARGIN)
        ordered = np.concatenate([self.fixed, pvalues[pvalues <= low]])
        ordered.sort(kind="stable")  # a sorted run and a few values: near linear
        scaled = ordered * self.n_testable
        scaled /= np.arange(1, ordered.size + 1)
        passing = np.flatnonzero(scaled <= self.alpha)
        return (float(ordered[passing[-1]]), int(passing[-1]) + 1) if passing.size else (-1.0, 0)

    def rejected(self, pvalues) -> NDArray[np.bool_]:
        """The untied features that Benjamini-Hochberg (first row) and Bonferroni (second
        row) reject with these p-values. The fixed features' rejections follow from them: if
        lowering untied p-values leaves their rejections unchanged, each rejected fixed p-value
        keeps its rank and stays rejected (Benjamini-Hochberg's step-up), and no other joins."""
        cut, _ = self.cut(pvalues)
        return np.vstack([pvalues <= cut, pvalues <= self.bonferroni_cut])

    def _may_settle(self, b, draws: int, error: float) -> bool:
        """Necessary conditions of ``settled``, one binomial tail per feature (no inversion).

        With the estimates, Benjamini-Hochberg rejects n features (R). Lowering p-values
        only adds rejections, raising them only removes some, so the rejections at the
        lower ends are the same as at the upper ends only if no untied feature outside R has
        its lower end at most ``alpha (n + 1) / m`` (n + 1 rejections at the lower ends),
        and none in R has its upper end above ``alpha n / m`` (its cut at the upper ends is
        at most that); Bonferroni likewise at its cut. A lower end is at most t iff
        ``P(Binomial(draws, t) >= b) >= error / 2``, an upper end above t iff
        ``P(Binomial(draws, t) <= b) > error / 2``; and, with exact bounds, iff the exact
        lower bound (or the estimate) is at most t, the exact upper bound above t."""
        from scipy.special import betainc

        estimate = (1.0 + b) / (1.0 + draws)

        def lower_at_most(t, rows):
            c = b[rows]
            tail = betainc(np.maximum(c, 1.0), draws - c + 1.0, t)
            exact = self._bounds(rows, estimate[rows])[0] <= t
            return bool(np.any(((c == 0) | (tail >= error / 2)) & exact))

        def upper_above(t, rows):
            c = b[rows]
            tail = betainc(c + 1.0, np.maximum(draws - c, 1.0), t)
            exact = self._bounds(rows, estimate[rows])[1] > t
            return bool(np.any((c < draws) & (tail < 1.0 - error / 2) & exact))

        cut, n = self.cut(estimate)
        inside = estimate <= cut
        m, low, high = self.n_testable, 1.0 - _MARGIN, 1.0 + _MARGIN
        if lower_at_most(self.alpha * (n + 1) / m * low, ~inside) or upper_above(
            self.alpha * n / m * high, inside
        ):
            return False
        inside = estimate <= self.bonferroni_cut
        return not (
            lower_at_most(self.bonferroni_cut * low, ~inside)
            or upper_above(self.bonferroni_cut * high, inside)
        )

    def settled(self, at_least, draws: int, error: float) -> bool:
        """Whether the selections are the same at the ends of every feature's interval.

        ``at_least``: each untied feature's count of the ``draws`` null scores at least its
        own; ``error``: each interval's level. The cheap necessary conditions first; then
        only intervals whose lower end may be at most alpha are inverted (no rule looks
        above it; an inversion costs 30 times a tail)."""
        from scipy.special import betainc

        b = np.asarray(at_least, dtype=np.float64)
        if not self._may_settle(b, draws, error):
            return False
        low = self.alpha * (1.0 + _MARGIN)
        estimate = (1.0 + b) / (1.0 + draws)
        near = (b == 0) | (betainc(np.maximum(b, 1.0), draws - b + 1.0, low) >= error / 2)
        near &= self._bounds(slice(None), estimate)[0] <= low
        lower, upper = np.ones(b.size), np.ones(b.size)
        lo, hi = clopper_pearson(b[near], draws, error)
        exact_lo, exact_hi = self._bounds(near, estimate[near])
        estimate = estimate[near]
        lower[near] = np.minimum(np.maximum(lo, exact_lo), estimate)
        upper[near] = np.maximum(np.minimum(hi, exact_hi), estimate)
        return bool(np.array_equal(self.rejected(lower), self.rejected(upper)))


def untied_decision(threshold, alpha, pvalues, fixed, n_testable, K) -> UntiedDecision | None:
    """The decision the untied draws settle, or None (an int ``threshold``: all the draws).

    Parameters
    ----------
    threshold : {"fdr", "bonferroni"} or int
        The screen's rule: with either rule, both are settled at ``alpha`` (the analysis
        reads Bonferroni's selection off a Benjamini-Hochberg fit); the k smallest p-values
        depend on every p-value's order, not on a level, and take all the draws.
    alpha : float
    pvalues : ndarray of shape (n_features,)
    fixed : ndarray of bool, shape (n_features,)
        The testable features whose p-values are final (the ranked ones apart).
    n_testable : int
        Testable features, the ranked ones included.
    K : int
        Tarone's multiplicity (0: none).

    Returns
    -------
    UntiedDecision or None
    """
    if isinstance(threshold, numbers.Integral):
        return None
    low = alpha * (1.0 + _MARGIN)
    found = [np.zeros(0)]
    for block in feature_blocks(pvalues.size, 16, _BLOCK_BYTES):
        p = pvalues[block]
        found.append(p[fixed[block] & (p <= low)])
    ordered = np.concatenate(found)
    ordered.sort()
    return UntiedDecision(float(alpha), int(n_testable), alpha / K if K else -1.0, ordered)
