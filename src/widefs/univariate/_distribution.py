"""Do a feature's class-conditional distributions differ? A continuous per-feature statistic.

The paper's one-feature Gaussian naive Bayes separates classes by two things: their means
and their spreads (it fits one mean and one variance per class). The statistic scores both,
on all examples, vectorized over features:

- **location**: the one-way ANOVA F of the class means (two classes: the squared t; the
  statistic of ``f_classif``), which sees mean shifts as the F-test does;
- **spread**: the same F on ``|x - mean(x)|``, the absolute deviations from the feature's
  overall mean (Levene's test about the pooled mean): it sees a class whose values are more
  spread out, or bimodal, at equal means, and is far less sensitive to heavy tails than
  squared deviations (Bartlett's test, the Gaussian likelihood).

Each F is turned into a p-value by the F distribution only to put both on one scale; the
score is ``-log10 min(p_loc / w, p_spread / (1 - w))`` with ``w = 0.85``: most of the level
on the mean shifts the F-test finds, enough on the spread to find what it cannot. The
p-values a selector reports are not these: they come from the pooled permutation null
(:func:`widefs.univariate._pooled_null.pooled_null`), which is exact whatever the data's distribution when the
features are exchangeable under the null.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from widefs._utils import (
    feature_blocks,
    is_lazy_matrix,
    load_columns,
    parallel_calls,
    refuse_sparse,
)

__all__ = [
    "LOCATION_WEIGHT",
    "best_scores",
    "check_sizes",
    "class_difference_scores",
    "score_blocks",
]

#: Share of the level given to the location F (the rest goes to the spread F).
LOCATION_WEIGHT = 0.85
_TABLE_SIZE = 4096
_BLOCK_BYTES = 16 * 2**20


def _log_tail_rows(f, dfdu, d1, d2):
    """(log P(F > f), d/du of it) on a grid, given f and df/du there (u the grid variable)."""
    from scipy import stats

    values = stats.f.logsf(f, d1, d2)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        slopes = -np.exp(stats.f.logpdf(f, d1, d2) - values) * dfdu
    # At R = 0 (first row of the sqrt(R) table): 0 for d1 > 1; for d1 = 1, F = t^2 and
    # P(|t| <= sqrt(f)) ~ 2 pdf_t(0) sqrt(f), with sqrt(f) = sqrt(d2) w near w = 0.
    zero = f == 0
    slopes[zero] = 0.0 if d1 > 1 else -2.0 * stats.t.pdf(0.0, d2) * np.sqrt(d2)
    return values, slopes


@functools.lru_cache(maxsize=32)
def _tail_tables(d1: int, d2: int):
    """log P(F(d1, d2) > f) as a function of R = between / total, for cubic Hermite lookup.

    Table A is uniform in ``w = sqrt(R)`` (smooth there, ``-c w^d1`` near 0) up to the split
    where P = e^-14 (or R = 1/2), so the bulk of the null draws needs no logarithm; table B is uniform in
    ``z = -log(1 - R)``, where the tail is nearly linear (``-d2/2`` per unit far out); beyond
    P = e^-650 (no null draw gets near) the log tail goes on along its last slope, still
    decreasing, so features there stay ranked by their F.
    """
    from scipy import stats

    ratio = d2 / d1
    # Past R = 1/2, sqrt(R) no longer smooths the tail (log(1 - R) takes over).
    r_split = min(0.5, 1.0 / (1.0 + ratio / stats.f.isf(np.exp(-14.0), d1, d2)))
    w_split = float(np.sqrt(r_split))
    w = np.linspace(0.0, w_split, _TABLE_SIZE)
    r = w * w
    va, sa = _log_tail_rows(ratio * r / (1 - r), ratio / (1 - r) ** 2 * 2 * w, d1, d2)
    z_lo = float(-np.log1p(-r_split))
    z_hi = z_lo + 1500.0 / d2  # far out the log tail falls by d2 / 2 per unit of z
    z = np.linspace(z_lo, z_hi, _TABLE_SIZE)
    r = -np.expm1(-z)
    with np.errstate(divide="ignore"):
        vb, sb = _log_tail_rows(ratio * r / (1 - r), ratio / (1 - r), d1, d2)
    good = np.isfinite(vb) & (vb > -650) & np.isfinite(sb)
    last = np.flatnonzero(good)[-1]
    vb[last + 1 :] = vb[last] + sb[last] * (z[last + 1 :] - z[last])
    sb[last + 1 :] = sb[last]
    step_a, step_b = w[1] - w[0], z[1] - z[0]
    table_a = np.column_stack([va, sa * step_a])
    table_b = np.column_stack([vb, sb * step_b])
    for t in (table_a, table_b):
        t.setflags(write=False)
    return (w_split, 1.0 / step_a, table_a, z_lo, 1.0 / step_b, table_b, float(sb[-1] * step_b))


def _f_from_share(r, d1, d2):
    """The F statistic of a between-class share R (inf where the classes do not overlap)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(r < 1, (r / d1) / ((1 - r) / d2), np.inf)


def _weights(location_weight: float) -> NDArray[np.float64]:
    with np.errstate(divide="ignore"):
        return np.log(np.array([location_weight, 1.0 - location_weight]))


def _label_rows(labels: NDArray[np.intp], n_classes: int) -> NDArray[np.float64]:
    """(L (C - 1), n) indicators of classes 0..C-2 for each of the L labellings."""
    n_lab, n = labels.shape
    rows = labels[:, None, :] == np.arange(n_classes - 1)[None, :, None]
    return rows.reshape(n_lab * (n_classes - 1), n).astype(np.float64)


@dataclass(frozen=True)
class _Block:
    scores: NDArray[np.float64]  # (L, m): labelling 0 the real labels
    location: NDArray[np.float64]  # (m,)
    spread: NDArray[np.float64]  # (m,)
    constant: NDArray[np.bool_]  # (m,)


def _score_block(X, columns, lazy, rows, counts, log_w) -> _Block:
    """Scores of one block of columns under every labelling (``rows``: (L (C - 1), n))."""
    from widefs.univariate._distribution_kernels import block_sums, combined_statistics

    if lazy:
        Xb = load_columns(X, columns, np.float32 if X.dtype == np.float32 else np.float64)
    else:
        Xb = X
    if lazy and not np.isfinite(Xb).all():
        bad = columns.start + np.flatnonzero(~np.isfinite(Xb).all(axis=0))
        raise ValueError(f"Input X contains NaN or infinity (columns {bad[:5].tolist()}...).")
    n, m = Xb.shape
    sums, ss, constant = block_sums(Xb, rows)
    d1, d2 = counts.size - 1, n - counts.size
    out = np.empty((rows.shape[0] // d1, m))
    r_loc, r_dev = combined_statistics(
        sums, ss, 1.0 / counts, counts.size, _tail_tables(d1, d2), log_w, out
    )
    out /= np.log(10.0)
    return _Block(out, _f_from_share(r_loc, d1, d2), _f_from_share(r_dev, d1, d2), constant)


def _reduced_block(X, columns, lazy, rows, counts, log_w, reduce):
    """One block's scores reduced over its non-constant columns: ``("best",)`` the best
    score per labelling (-inf if none); ``("above", t)`` the scores at least ``t``."""
    block = _score_block(X, columns, lazy, rows, counts, log_w)
    scores = block.scores[:, ~block.constant]
    if reduce[0] == "above":
        return scores[scores >= reduce[1]]
    return scores.max(axis=1) if scores.size else np.full(block.scores.shape[0], -np.inf)


def score_blocks(X, labels, n_classes, location_weight, n_jobs, reduce=None):
    """Score every block of columns of ``X`` under every row of ``labels`` (codes).

    Returns one :class:`_Block` per block, or with ``reduce`` (see :func:`_reduced_block`)
    one reduced array per block, so memory does not grow with features x labellings."""
    counts = np.bincount(labels[0], minlength=n_classes).astype(np.float64)
    rows = _label_rows(labels, n_classes)
    log_w = _weights(location_weight)
    n, n_features = X.shape
    per_column = 8 * (3 * n + 2 * rows.shape[0] + labels.shape[0])
    lazy = is_lazy_matrix(X)
    fixed = (rows, counts, log_w) + ((reduce,) if reduce else ())
    return parallel_calls(
        _reduced_block if reduce else _score_block,
        [
            (X if lazy else X[:, b], b, lazy, *fixed)
            for b in feature_blocks(n_features, per_column, _BLOCK_BYTES)
        ],
        n_jobs=n_jobs,
        prefer="threads",
    )


def check_sizes(n_samples: int, n_classes: int):
    if n_samples <= n_classes:
        raise ValueError(
            f"The class-distribution statistic needs more examples ({n_samples}) than classes "
            f"({n_classes}): the F statistic has n - C degrees of freedom."
        )


def class_difference_scores(X, y, *, location_weight: float = LOCATION_WEIGHT):
    """Per-feature evidence that the class-conditional distributions differ, and its p-values.

    Usable like scikit-learn's ``f_classif`` (for example in ``SelectKBest``). The score is
    ``-log10 min(p_loc / w, p_spread / (1 - w))`` where ``p_loc`` is the F-test p-value of
    the class means and ``p_spread`` that of the class means of ``|x - mean(x)|``; the
    returned p-value is ``min(1, p_loc / w, p_spread / (1 - w))``, a weighted Bonferroni
    combination that relies on the F distribution (Gaussian features). For p-values that do
    not, use ``DiscriminativeSelector("fdr")``, which calibrates the same score on a pooled
    label-permutation null.

    Parameters
    ----------
    X : array_like of shape (n_samples, n_features)
        Finite numeric data.
    y : array_like of shape (n_samples,)
        Class labels (at least 2 classes, fewer classes than examples).
    location_weight : float, default=0.85
        Share ``w`` of the level given to the location test, in (0, 1].

    Returns
    -------
    scores : ndarray of shape (n_features,)
        Larger is stronger evidence (0 for a constant feature).
    pvalues : ndarray of shape (n_features,)
        Asymptotic combined p-values (1 for a constant feature).

    See Also
    --------
    DiscriminativeSelector : with ``statistic="distribution"``, the calibrated screen.
    sklearn.feature_selection.f_classif : the location part alone.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> y = np.repeat([0, 1], 30)
    >>> X = rng.normal(size=(60, 3))
    >>> X[:, 0] += 2 * y            # the means differ
    >>> X[:, 1] *= 1 + 2 * y        # only the spreads differ
    >>> scores, pvalues = class_difference_scores(X, y)
    >>> (pvalues[:2] < 1e-3).tolist(), bool(pvalues[2] > 0.01)
    ([True, True], True)
    """
    refuse_sparse("class_difference_scores", X)
    from sklearn.utils import check_X_y

    X, y = check_X_y(X, y, dtype=[np.float64, np.float32])
    classes, codes = np.unique(y, return_inverse=True)
    if classes.size < 2:
        raise ValueError("class_difference_scores needs at least 2 classes.")
    check_sizes(X.shape[0], classes.size)
    parts = score_blocks(X, codes[None, :], classes.size, location_weight, None)
    scores = np.concatenate([p.scores[0] for p in parts])
    constant = np.concatenate([p.constant for p in parts])
    scores[constant] = 0.0
    pvalues = np.minimum(1.0, 10.0 ** (-scores))
    pvalues[constant] = 1.0
    return scores, pvalues


def best_scores(X, labels, n_classes, *, location_weight=LOCATION_WEIGHT, n_jobs=None):
    """The best non-constant feature's score under each labelling (row of ``labels``).

    The search score of the distribution statistic on many labellings at once (a search
    certificate's permutations), reduced block by block: memory does not grow with
    features x labellings. ``-inf`` when every feature is constant.

    Examples
    --------
    >>> X = np.array([[0.0, 1.0], [0.1, 1.0], [1.0, 1.0], [1.2, 1.0]])
    >>> best = best_scores(X, np.array([[0, 0, 1, 1], [0, 1, 0, 1]]), 2)
    >>> bool(best[0] > best[1])
    True
    """
    check_sizes(X.shape[0], n_classes)
    parts = score_blocks(X, labels, n_classes, location_weight, n_jobs, reduce=("best",))
    return np.max(np.vstack(parts), axis=0)
