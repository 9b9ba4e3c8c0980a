"""The paper's statistic: validation errors of one-feature classifiers, and their nulls.

Discriminative feature selection (Section 5 of Palatucci & Carlson 2008) trains one
classifier per feature on a training part and counts its errors on a validation part. This
module computes those counts for every feature (a block of columns at a time, vectorized
over features, splits and label permutations) and, on request, the label-permutation null
of the counts: the best feature's errors per permutation, the mean errors, and per-feature
p-values, reduced block by block so memory does not grow with features x permutations.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np
from sklearn.model_selection import StratifiedKFold, check_cv

from widefs._utils import (
    DEFAULT_BLOCK_BYTES,
    block_width,
    feature_blocks,
    iter_column_blocks,
    load_columns,
    parallel_calls,
)
from widefs.stats import chance_error_rate
from widefs.univariate._null import PermutationNull
from widefs.univariate._scores import gaussian_nb_split_errors, halves_masks, stump_split_errors

__all__ = [
    "BlockErrors",
    "ChanceNull",
    "ErrorCountsFit",
    "best_score",
    "chance_rate",
    "default_permutations",
    "error_counts_key",
    "fit_error_counts",
    "is_imbalanced",
    "merge_null",
    "score_block",
    "split_masks",
]


@dataclass(frozen=True)
class BlockErrors:
    """What one block of columns contributes: its errors and, for a permutation null,
    its share of the null (reduced over the block's features, so memory stays O(B + F))."""

    errors: np.ndarray  # (Fb,)
    constant: np.ndarray  # (Fb,)
    null_min: np.ndarray | None = None  # (B,) min over the block's eligible features
    null_sum: np.ndarray | None = None  # (B,) sum over them
    pvalues: np.ndarray | None = None  # (Fb,)


def split_masks(cv, y_codes: np.ndarray, n_classes: int, rng):
    """Training and validation masks, each (n_splits, n_samples), of ``cv``.

    ``"halves"``: the paper's stratified equal halves; an int k: shuffled stratified k-fold
    seeded by ``rng``; a splitter: its splits.
    """
    n = y_codes.shape[0]
    if cv == "halves":
        tr, va = halves_masks(y_codes, n_classes, rng)
        return tr[None], va[None]
    if isinstance(cv, numbers.Integral):
        splitter = StratifiedKFold(cv, shuffle=True, random_state=rng)
    else:
        splitter = check_cv(cv, y_codes, classifier=True)
    train, val = [], []
    for tr_idx, va_idx in splitter.split(np.zeros((n, 1)), y_codes):
        tr, va = np.zeros(n, bool), np.zeros(n, bool)
        tr[tr_idx], va[va_idx] = True, True
        train.append(tr)
        val.append(va)
    return np.array(train), np.array(val)


def chance_rate(p_error, y_codes, n_classes, val) -> float:
    """The analytic null's chance error rate: ``"uniform"``, ``"auto"`` or a float."""
    if p_error == "uniform":
        return 1.0 - 1.0 / n_classes
    if p_error == "auto":
        # Validation predictions of each class, over all splits.
        counts = np.bincount(y_codes, weights=val.sum(axis=0), minlength=n_classes)
        return float(chance_error_rate(counts.round()))
    return float(p_error)


def _errors_of(Xs, labels, n_classes, train, val, scorer, var_smoothing):
    if scorer == "gaussian_nb":
        out = gaussian_nb_split_errors(
            Xs, labels, n_classes, train, val, var_smoothing=var_smoothing
        )
    else:
        out = stump_split_errors(Xs, labels, n_classes, train, val)
    # Summed over the splits (one split: its counts as they are, without a copy).
    return out[..., 0, :] if out.shape[-2] == 1 else out.sum(axis=-2)


def score_block(
    Xb, columns, lazy, y_codes, n_classes, train, val, scorer, var_smoothing, y_null=None,
    *, observed=None,
) -> BlockErrors:  # fmt: skip
    """Validation errors (summed over splits) and constancy of one block of columns; with
    a matrix of permuted labels ``y_null`` (B, n), also the block's share of the null.
    ``observed``: the block's ``(errors, constant)`` when the caller has them already (the
    null then scores only the relabellings)."""
    if lazy:
        Xb = load_columns(Xb, columns)
        if not np.isfinite(Xb).all():
            bad = columns.start + np.flatnonzero(~np.isfinite(Xb).all(axis=0))
            raise ValueError(f"Input X contains NaN or infinity (columns {bad[:5].tolist()}...).")
    settings = (n_classes, train, val, scorer, var_smoothing)
    if observed is None:
        errors, constant = _errors_of(Xb, y_codes, *settings), np.ptp(Xb, axis=0) == 0
    else:
        errors, constant = observed
    if y_null is None:
        return BlockErrors(errors, constant)
    n_perm = y_null.shape[0]
    null_min = np.full(n_perm, np.iinfo(np.int64).max)
    null_sum = np.zeros(n_perm, dtype=np.int64)
    pvalues = np.ones(errors.shape)
    bytes_per_feature = 8 * n_perm * train.shape[0]
    for sub in feature_blocks(errors.size, bytes_per_feature, DEFAULT_BLOCK_BYTES):
        keep = np.flatnonzero(~constant[sub]) + sub.start
        if keep.size == 0:
            continue
        null = _errors_of(Xb[:, keep], y_null, *settings)  # (B, k)
        null_min = np.minimum(null_min, null.min(axis=1))
        null_sum += null.sum(axis=1)
        # permutation_pvalues's formula on the integer counts as they are (its float
        # copies and NaN checks of the (B, k) null cost more than the comparison)
        pvalues[keep] = (1.0 + (null <= errors[keep]).sum(axis=0)) / (1.0 + n_perm)
    return BlockErrors(errors, constant, null_min, null_sum, pvalues)


def best_score(scores, eligible) -> float:
    """The best eligible feature's score (any feature's if none is eligible)."""
    return float(scores[eligible].max() if eligible.any() else scores.max())


def merge_null(parts, n_permutations: int, n_scored: int, n_validation: int) -> PermutationNull:
    """The blocks' shares of the permutation null, combined."""
    if n_scored == 0:  # no feature to score: the null minimum is the worst count
        mins = np.full(n_permutations, n_validation, dtype=np.int64)
        return PermutationNull(mins, float(n_validation), float(n_validation), np.ones(0), 0)
    mins = np.minimum.reduce([p.null_min for p in parts])
    total = np.sum([p.null_sum for p in parts], axis=0)
    return PermutationNull(
        min_errors=mins,
        expected_errors=float(total.sum() / (n_permutations * n_scored)),
        expected_min_errors=float(mins.mean()),
        pvalues=np.concatenate([p.pvalues for p in parts]),
        n_permutations=n_permutations,
    )


#: Features x permutations of the error-count permutation null with ``n_permutations="auto"``.
_PERMUTATION_WORK = 20_000_000


def default_permutations(n_features: int, needs_pvalues: bool = True) -> int:
    """Permutations of the error-count null with ``n_permutations="auto"``.

    1000 when per-feature p-values matter (their floor is ``1 / (B + 1)``), 200 when only
    E[X] and E[X_(1)] do (their standard errors are then a small fraction of an error);
    fewer, at least 100, when features x permutations would exceed 2e7.

    Parameters
    ----------
    n_features : int
        Features the null is drawn for.
    needs_pvalues : bool, default=True
        Whether per-feature p-values (not only E[X] and E[X_(1)]) are needed.

    Returns
    -------
    int
        The number of label permutations.

    See Also
    --------
    DiscriminativeSelector : its ``n_permutations="auto"``.

    Examples
    --------
    >>> default_permutations(2000), default_permutations(2000, False), default_permutations(10**6)
    (1000, 200, 100)
    """
    wanted = 1000 if needs_pvalues else 200
    return int(min(wanted, max(100, _PERMUTATION_WORK // max(n_features, 1))))


@dataclass(frozen=True)
class ChanceNull:
    """One null of the validation error counts.

    Parameters
    ----------
    kind : str
        ``"analytic"`` or ``"permutation"``.
    expected_errors : float
        E[X]: errors of one feature unrelated to the classes.
    expected_min_errors : float
        E[X_(1)]: errors of the best of the M non-constant features.
    pvalues : ndarray of shape (n_features,)
        Per-feature p-values (1 for constant features).
    min_pvalue : float
        The smallest p-value this null can give.
    is_bound : bool
        The analytic null on imbalanced classes: its chance rate is the majority-class
        error, a lower bound on a classifier's chance errors, so E[X_(1)] is a lower bound
        on the best chance errors (the expected best chance accuracy an upper bound).

    See Also
    --------
    DiscriminativeSelector : its ``chance_nulls_`` holds one per null.

    Examples
    --------
    >>> null = ChanceNull("analytic", 15.5, 8.0, np.array([0.5, 1.0]), 1e-9)
    >>> null.kind, null.is_bound
    ('analytic', False)
    """

    kind: str
    expected_errors: float
    expected_min_errors: float
    pvalues: np.ndarray
    min_pvalue: float
    is_bound: bool = False


@dataclass(frozen=True)
class ErrorCountsFit:
    """The errors statistic of a fit: counts, splits' sizes, and the nulls computed."""

    n_errors: np.ndarray
    constant: np.ndarray
    n_validation: int
    p_error: float
    nulls: dict
    null_used: str
    permutations: np.ndarray | None
    null_min_errors: np.ndarray | None


def is_imbalanced(y_codes, val, n_classes) -> bool:
    """More than one validation example away from equal class counts (summed over splits)."""
    counts = np.bincount(y_codes, weights=val.sum(axis=0), minlength=n_classes)
    total = counts.sum()
    return bool(counts.max() - total / n_classes > 1.0 + 1e-9)


def _choose_null(requested, train, val, y_codes, n_classes, cells) -> str:
    """The null the thresholds use (see ``DiscriminativeSelector``'s ``null``)."""
    import warnings

    # A permutation can move a label only within a cell holding two classes.
    room = any(np.unique(y_codes[cells == c]).size > 1 for c in np.unique(cells))
    if requested == "permutation" and not room:
        raise ValueError(
            "The splits leave no room for label permutations: no group of examples "
            "with the same role in every split holds two classes. Use fewer or "
            'disjoint splits, or null="analytic".'
        )
    if requested != "auto":
        return requested
    exact = train.shape[0] == 1 and not is_imbalanced(y_codes, val, n_classes)
    if exact:
        return "analytic"
    if not room:
        warnings.warn(
            "The splits leave no room for label permutations (no group of examples "
            "with the same role in every split holds two classes); the thresholds "
            "use the analytic null.",
            UserWarning,
            stacklevel=6,
        )
        return "analytic"
    return "permutation"


def _analytic_null(errors, eligible, n_validation, p_error, is_bound) -> ChanceNull:
    from widefs.stats import binomial_tail, expected_errors, expected_min_errors

    m = max(int(eligible.sum()), 1)
    return ChanceNull(
        kind="analytic",
        expected_errors=float(expected_errors(n_validation, p_error)),
        expected_min_errors=float(expected_min_errors(m, n_validation, p_error)),
        pvalues=np.where(eligible, binomial_tail(errors, n_validation, p_error), 1.0),
        min_pvalue=float(binomial_tail(0, n_validation, p_error)),
        is_bound=is_bound,
    )


def _score_all(params, X, lazy, y_codes, n_classes, train, val, y_null):
    """Every block of columns scored (in parallel with ``params.n_jobs``)."""
    from joblib import effective_n_jobs

    n_features = X.shape[1]
    # Blocks of columns, scored independently (scores are per feature), so results do not
    # depend on n_jobs or on the block size; each block is widened to float64 on its own.
    width = block_width(X.shape[0])
    if not lazy:  # in memory: a block per worker at least
        width = min(width, -(-n_features // effective_n_jobs(params.n_jobs)))
    settings = (y_codes, n_classes, train, val, params.scorer, params.var_smoothing, y_null)
    return parallel_calls(
        score_block,
        [
            (X if lazy else X[:, b], b, lazy, *settings)
            for b in iter_column_blocks(n_features, width)
        ],
        n_jobs=params.n_jobs,
    )


def fit_error_counts(params, X, y_codes, n_classes, lazy, rng, groups=None) -> ErrorCountsFit:
    """The errors statistic of ``DiscriminativeSelector`` (its parameters in ``params``);
    with ``groups``, splits and relabellings that respect them and the permutation null."""
    from widefs.univariate._grouped_null import grouped_permutations, grouped_split_masks
    from widefs.univariate._null import label_permutations, split_cells

    if groups is None:
        train, val = split_masks(params.cv, y_codes, n_classes, rng)
    else:
        train, val = grouped_split_masks(params.cv, y_codes, groups, rng)
    cells = split_cells(train, val)
    requested = params.null
    if groups is not None and not (params.null == "analytic" and params.threshold == "all"):
        requested = "permutation"  # the analytic null assumes independent samples
    null_used = _choose_null(requested, train, val, y_codes, n_classes, cells)
    perms = y_null = None
    if null_used == "permutation":
        n_perm = params.n_permutations
        if n_perm == "auto":
            needs = params.threshold in ("fdr", "bonferroni")
            n_perm = default_permutations(X.shape[1], needs)
        perms = (
            label_permutations(cells, int(n_perm), rng)
            if groups is None
            else grouped_permutations(cells, y_codes, groups, int(n_perm), rng)
        )
        y_null = y_codes[perms]
    parts = _score_all(params, X, lazy, y_codes, n_classes, train, val, y_null)
    errors = np.concatenate([p.errors for p in parts])
    constant = np.concatenate([p.constant for p in parts])
    eligible = ~constant
    n_validation = int(val.sum())
    p_error = chance_rate(params.p_error, y_codes, n_classes, val)
    bound = params.p_error == "auto" and is_imbalanced(y_codes, val, n_classes)
    nulls = {"analytic": _analytic_null(errors, eligible, n_validation, p_error, bound)}
    null_min = None
    if perms is not None:
        null = merge_null(parts, perms.shape[0], int(eligible.sum()), n_validation)
        null_min = null.min_errors
        nulls["permutation"] = ChanceNull(
            kind="permutation",
            expected_errors=null.expected_errors,
            expected_min_errors=null.expected_min_errors,
            pvalues=null.pvalues if null.pvalues.size else np.ones(errors.shape),
            min_pvalue=1.0 / (perms.shape[0] + 1),
        )
    return ErrorCountsFit(
        errors, constant, n_validation, p_error, nulls, null_used, perms, null_min
    )


def error_counts_key(params, X, y_codes, n_classes, groups) -> bytes:
    """Everything :func:`fit_error_counts` reads but the generator, as bytes: the key of
    :func:`widefs._utils.shared_fit` under which selectors that differ only in their cut
    share one computation (the threshold counts only through what it changes: the
    permutations' count, and the analytic null allowed with groups under ``"all"``)."""
    from widefs._utils import array_key, data_digest

    threshold = params.threshold
    settings = (
        params.cv if isinstance(params.cv, str | numbers.Integral) else id(params.cv),
        params.null,
        params.n_permutations,
        params.p_error,
        params.scorer,
        params.var_smoothing,
        isinstance(threshold, str) and threshold in ("fdr", "bonferroni"),
        isinstance(threshold, str) and threshold == "all",
        n_classes,
    )
    parts = [data_digest(X), array_key(y_codes), repr(settings).encode()]
    if groups is not None:
        parts.append(array_key(np.unique(np.asarray(groups), return_inverse=True)[1]))
    return b"errors|" + b"|".join(parts)
