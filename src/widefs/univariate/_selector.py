"""Chance-aware discriminative feature selection (Section 5 of Palatucci & Carlson 2008)."""

from __future__ import annotations

import numbers
import warnings
from dataclasses import dataclass
from numbers import Integral

import numpy as np
from joblib import Parallel, delayed, effective_n_jobs
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin
from sklearn.model_selection import StratifiedKFold, check_cv
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from widefs._compat import Interval, StrOptions, fit_context
from widefs.exceptions import NothingSelectedWarning
from widefs.stats import (
    benjamini_hochberg,
    binomial_tail,
    bonferroni,
    chance_error_rate,
    permutation_pvalues,
)
from widefs.stats import expected_errors as _analytic_errors
from widefs.stats import expected_min_errors as _analytic_min_errors
from widefs.univariate._null import PermutationNull, label_permutations, split_cells
from widefs.univariate._scores import gaussian_nb_split_errors, halves_masks, stump_split_errors
from widefs.utils import (
    DEFAULT_BLOCK_BYTES,
    SupervisedSelectorMixin,
    block_width,
    feature_blocks,
    is_lazy_matrix,
    iter_column_blocks,
    load_columns,
    parallel_calls,
    validate_lazy_xy,
)

__all__ = ["DiscriminativeSelector", "threshold_in_errors"]

_NAMED_THRESHOLDS = ("mgm", "max_chance", "fdr", "bonferroni", "all")


def threshold_in_errors(
    threshold,
    n_errors: np.ndarray,
    n_validation: int,
    p_error: float,
    *,
    n_scored: int | None = None,
    alpha: float = 0.05,
    eligible: np.ndarray | None = None,
    pvalues: np.ndarray | None = None,
    expected_errors: float | None = None,
    expected_min_errors: float | None = None,
) -> tuple[float, np.ndarray]:
    """Turn a threshold specification into an error cut and a selection mask.

    A feature is selected when it is eligible and its validation errors are strictly
    below the returned cut (for an int ``k``, the k best eligible features, ties to the
    lower index). This is the one place where every threshold rule lives; the selector,
    the experiments and the CLI all call it.

    By default the chance quantities come from the analytic null (Theorem 4.1 with
    ``X ~ Binomial(N, p_error)``); pass ``pvalues``, ``expected_errors`` and
    ``expected_min_errors`` from a permutation null to calibrate the rules on it.

    Parameters
    ----------
    threshold : {"mgm", "max_chance", "fdr", "bonferroni", "all"}, int or float
        ``"mgm"``: fewer errors than ``(E[X] + E[X_(1)]) / 2``; ``"max_chance"``: fewer
        than ``E[X_(1)]``; ``"fdr"`` / ``"bonferroni"``: reject the null of each feature
        at ``alpha`` after Benjamini-Hochberg / Bonferroni adjustment of its p-value
        (one-sided binomial test against ``p_error`` unless ``pvalues`` are given);
        ``"all"``: every eligible feature; int ``k``: the k best; float in (0, 1):
        validation error rate below the value.
    n_errors : ndarray of shape (n_features,)
        Validation errors of each feature's classifier.
    n_validation : int
        N, the number of validation predictions behind each count.
    p_error : float
        Chance error rate of one prediction (analytic null).
    n_scored : int, optional
        M, the number of classifiers competing; defaults to the eligible count.
    alpha : float, default=0.05
        Level of the ``"fdr"`` and ``"bonferroni"`` rules.
    eligible : ndarray of bool, optional
        Features that may be selected (constant features are not).
    pvalues : ndarray of shape (n_features,), optional
        Per-feature p-values to adjust instead of the binomial tails.
    expected_errors, expected_min_errors : float, optional
        E[X] and E[X_(1)] to use instead of the analytic values.

    Returns
    -------
    cut : float
        Threshold in errors (for ``"fdr"`` / ``"bonferroni"`` with ``pvalues``, one
        more than the largest rejected error count).
    selected : ndarray of bool
        The selected features.

    See Also
    --------
    DiscriminativeSelector : computes the errors and the null, then calls this.
    widefs.stats.mgm_threshold : the analytic MGM cut.

    Examples
    --------
    >>> errors = np.array([1, 4, 9, 10])
    >>> cut, selected = threshold_in_errors("mgm", errors, 20, 0.5)
    >>> round(cut, 2), selected.tolist()
    (8.86, [True, True, False, False])
    >>> cut, selected = threshold_in_errors(
    ...     "mgm", errors, 20, 0.5, expected_errors=9.0, expected_min_errors=5.0
    ... )
    >>> cut, selected.tolist()
    (7.0, [True, True, False, False])
    """
    n_errors = np.asarray(n_errors)
    eligible = np.ones(n_errors.shape, bool) if eligible is None else np.asarray(eligible, bool)
    m = max(int(eligible.sum()), 1) if n_scored is None else n_scored
    if isinstance(threshold, str):
        if threshold in ("mgm", "max_chance"):
            e_min = (
                float(_analytic_min_errors(m, n_validation, p_error))
                if expected_min_errors is None
                else float(expected_min_errors)
            )
            e_one = (
                float(_analytic_errors(n_validation, p_error))
                if expected_errors is None
                else float(expected_errors)
            )
            cut = 0.5 * (e_one + e_min) if threshold == "mgm" else e_min
        elif threshold == "all":
            cut = np.inf
        elif threshold in ("fdr", "bonferroni"):
            if pvalues is None:
                # Error counts are integers in 0..N: one tail per level, then a lookup.
                levels = np.asarray(
                    binomial_tail(np.arange(n_validation + 1), n_validation, p_error)
                )
                pvalues = levels[n_errors.astype(np.intp)]
            adjust = benjamini_hochberg if threshold == "fdr" else bonferroni
            adjusted = np.ones(n_errors.shape)
            adjusted[eligible] = adjust(np.asarray(pvalues, dtype=float)[eligible])
            rejected = eligible & (adjusted <= alpha)
            # The rejections are the selection. Binomial p-values increase with the error
            # count, so they are then exactly the features below the cut; permutation
            # p-values are per feature and need not be monotone across features.
            cut = float(n_errors[rejected].max() + 1) if rejected.any() else 0.0
            return cut, rejected
        else:
            raise ValueError(f"Unknown threshold {threshold!r}; use one of {_NAMED_THRESHOLDS}.")
        return cut, eligible & (n_errors < cut)
    if isinstance(threshold, numbers.Integral):
        k = min(int(threshold), int(eligible.sum()))
        ranked = np.flatnonzero(eligible)[np.argsort(n_errors[eligible], kind="stable")]
        selected = np.zeros(n_errors.shape, bool)
        selected[ranked[:k]] = True
        cut = float(n_errors[ranked[k - 1]] + 1) if k > 0 else 0.0
        return cut, selected
    cut = float(threshold) * n_validation
    return cut, eligible & (n_errors < cut)


@dataclass(frozen=True)
class _BlockScores:
    """What one block of columns contributes: its errors and, for a permutation null,
    its share of the null (reduced over the block's features, so memory stays O(B + F))."""

    errors: np.ndarray  # (Fb,)
    constant: np.ndarray  # (Fb,)
    null_min: np.ndarray | None = None  # (B,) min over the block's eligible features
    null_sum: np.ndarray | None = None  # (B,) sum over them
    pvalues: np.ndarray | None = None  # (Fb,)


def _score_block(
    Xb, columns, lazy, y_codes, n_classes, train, val, scorer, var_smoothing, y_null=None
):
    """Validation errors (summed over splits) and constancy of one block of columns; with
    a matrix of permuted labels ``y_null`` (B, n), also the block's share of the null."""
    if lazy:
        Xb = load_columns(Xb, columns)
        if not np.isfinite(Xb).all():
            bad = columns.start + np.flatnonzero(~np.isfinite(Xb).all(axis=0))
            raise ValueError(f"Input X contains NaN or infinity (columns {bad[:5].tolist()}...).")

    def errors_of(Xs, labels):
        if scorer == "gaussian_nb":
            out = gaussian_nb_split_errors(
                Xs, labels, n_classes, train, val, var_smoothing=var_smoothing
            )
        else:
            out = stump_split_errors(Xs, labels, n_classes, train, val)
        return out.sum(axis=-2)  # over splits

    errors = errors_of(Xb, y_codes)
    constant = np.ptp(Xb, axis=0) == 0
    if y_null is None:
        return _BlockScores(errors, constant)
    n_perm = y_null.shape[0]
    null_min = np.full(n_perm, np.iinfo(np.int64).max)
    null_sum = np.zeros(n_perm, dtype=np.int64)
    pvalues = np.ones(errors.shape)
    bytes_per_feature = 8 * n_perm * train.shape[0]
    for sub in feature_blocks(errors.size, bytes_per_feature, DEFAULT_BLOCK_BYTES):
        keep = np.flatnonzero(~constant[sub]) + sub.start
        if keep.size == 0:
            continue
        null = errors_of(Xb[:, keep], y_null)  # (B, k)
        null_min = np.minimum(null_min, null.min(axis=1))
        null_sum += null.sum(axis=1)
        pvalues[keep] = permutation_pvalues(errors[keep], null)
    return _BlockScores(errors, constant, null_min, null_sum, pvalues)


def _best_score(scores, eligible) -> float:
    """The best eligible feature's validation accuracy (any feature's if none is eligible)."""
    return float(scores[eligible].max() if eligible.any() else scores.max())


def _merge_null(parts, n_permutations: int, n_scored: int, n_validation: int) -> PermutationNull:
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


class DiscriminativeSelector(SupervisedSelectorMixin, SelectorMixin, BaseEstimator):
    """Select features whose one-feature classifier beats the best expected by chance.

    Discriminative feature selection (Section 5 of Palatucci & Carlson 2008): every
    feature gets its own classifier, trained on a training part and scored by its
    error count on a validation part. With M features and N validation examples, the
    best of M *random* classifiers is expected to make only ``E[X_(1)]`` errors
    (Theorem 4.1), far fewer than the ``E[X]`` of a single one; the default
    multiplicity-gap midpoint (MGM) keeps features with fewer errors than
    ``(E[X] + E[X_(1)]) / 2``.

    The chance quantities come from a null distribution of the errors, either

    - **analytic**: ``X ~ Binomial(N, p_error)`` and Theorem 4.1 for M independent
      features. With ``p_error="auto"`` the rate is the majority-class error on the
      validation examples actually used, ``1 - max_c N_c / N``: no classifier that
      ignores the labels does better on average, and the binomial lower tail bounds the
      lower tail of *any* such classifier's errors (Hoeffding 1956, see
      :func:`widefs.stats.chance_error_rate`). The analytic thresholds are therefore
      conservative on imbalanced classes and exact for neither scorer; they assume
      independent features (correlated features make ``E[X_(1)]`` larger than
      computed, so the analytic rules become stricter still); or
    - **permutation**: the same scorer, on the same splits, refitted to
      ``n_permutations`` label permutations that keep every split's class counts
      (labels move only within the training part and within the validation part),
      on all features at once: the chance error of *this* classifier on *these*
      class proportions and *these* correlated features. ``E[X]`` and ``E[X_(1)]``
      are the means over permutations of a feature's errors and of the best
      feature's errors; ``"fdr"`` and ``"bonferroni"`` adjust per-feature
      permutation p-values.

    Scoring is vectorized over features, over the folds of ``cv`` and over the label
    permutations; there is no Python loop over features.

    Parameters
    ----------
    threshold : {"mgm", "max_chance", "fdr", "bonferroni", "all"}, int or float, default="mgm"
        ``"mgm"``: fewer errors than the multiplicity-gap midpoint; ``"max_chance"``:
        fewer than ``E[X_(1)]``; ``"fdr"``: Benjamini-Hochberg at ``alpha`` on the
        null's p-values; ``"bonferroni"``: the same with Bonferroni; ``"all"``: every
        non-constant feature; an int k: the k features with the fewest errors (ties to
        the lower index); a float in (0, 1): validation error rate below the value.
    scorer : {"gaussian_nb", "stump"}, default="gaussian_nb"
        One-feature classifier: Gaussian naive Bayes (the paper's) or a decision stump
        with the fewest training errors.
    cv : "halves", int or cross-validation splitter, default="halves"
        ``"halves"``: the paper's stratified equal halves (training ``floor(n/2)``,
        validation the rest), seeded by ``random_state``. An int k or a splitter:
        errors summed over the validation folds (N = number of validation
        predictions), each fold's classifier trained on the rest.
    alpha : float, default=0.05
        Level of the ``"fdr"`` and ``"bonferroni"`` tests.
    p_error : "auto", "uniform" or float, default="auto"
        Chance error rate of the analytic null. ``"auto"``: the majority-class error
        ``1 - max_c N_c / N`` of the validation examples (``1 - 1/C`` when they are
        balanced); ``"uniform"``: ``1 - 1/n_classes``, the literal reading of the paper
        (too lenient on imbalanced classes: a majority-class predictor beats it on
        noise); a float: that rate.
    null : {"auto", "analytic", "permutation"}, default="auto"
        Which null the thresholds use. ``"auto"``: analytic when the errors come from
        one validation split (``cv="halves"``), where the analytic bound is proven;
        permutation when they are summed over several folds, whose training parts
        overlap the other folds' validation examples so the errors are no longer a
        sum of independent Bernoulli variables and no closed form is honest. If the
        splits leave no room to permute (no group of examples with the same role in
        every split holds two classes, e.g. unshuffled folds of sorted labels), ``"auto"``
        warns and uses the analytic null, ``"permutation"`` raises ``ValueError``.
    n_permutations : int, default=1000
        Label permutations of the permutation null. The smallest permutation p-value
        is ``1 / (n_permutations + 1)``: Bonferroni over M features can reject only
        when that is at most ``alpha / M``.
    var_smoothing : float, default=1e-9
        Variance smoothing of the naive Bayes scorer, as in ``GaussianNB``.
    random_state : int, RandomState instance or None, default=None
        Seeds the halves split (and the folds for an int ``cv``), then the label
        permutations, in that order, from one generator.
    n_jobs : int, default=None
        Score blocks of features in parallel with joblib (any backend, e.g. Dask through
        ``joblib.parallel_config(backend="dask")``). Results do not depend on it: the
        permutations are drawn before the work is split.

    Attributes
    ----------
    n_errors_ : ndarray of shape (n_features,)
        Validation errors of each feature's classifier.
    scores_ : ndarray of shape (n_features,)
        Validation accuracy, ``1 - n_errors_ / n_validation_``.
    search_score_ : float
        The best non-constant feature's validation accuracy, ``max(scores_)`` (higher is
        better; the best feature's validation errors, ``min(n_errors_)``, as an accuracy):
        the score :func:`widefs.model_selection.search_certificate` certifies.
    pvalues_ : ndarray of shape (n_features,)
        Per-feature p-values of the null in use (1 for constant features): analytic,
        ``P(Binomial(N, p_error) <= errors)``; permutation,
        ``(1 + #{b : errors_b <= errors}) / (1 + n_permutations)``. Each tests the
        *marginal* null of one feature (its errors are those of a classifier that does
        not see the labels); ``"fdr"`` controls the expected proportion of selected
        features for which that marginal null holds.
    threshold_ : float
        The cut in errors: a feature is selected when its errors are below it (for an
        int threshold, the k best are taken even among equal counts; for ``"fdr"`` /
        ``"bonferroni"`` on permutation p-values, one more than the largest selected
        count).
    expected_errors_ : float
        E[X]: ``N p_error`` (analytic) or the mean errors of a feature over the
        permutations.
    expected_min_errors_ : float
        E[X_(1)]: Theorem 4.1 for M = the number of non-constant features (analytic)
        or the mean of ``null_min_errors_``.
    null_ : str
        The null the thresholds used, ``"analytic"`` or ``"permutation"``.
    null_min_errors_ : ndarray of shape (n_permutations,)
        Permutation null only: the best non-constant feature's validation errors on
        each label permutation (same splits, same scorer).
    permutations_ : ndarray of shape (n_permutations, n_samples)
        Permutation null only: the index arrays; ``y[permutations_[b]]`` is the b-th
        relabelling.
    n_validation_ : int
        N, validation predictions per feature.
    n_scored_ : int
        M, the number of non-constant features scored.
    p_error_ : float
        Chance error rate of the analytic null (computed whichever null is used).
    constant_features_ : ndarray of bool
        Features constant on the fitted data: never selected.
    classes_ : ndarray
        Class labels.
    n_features_in_ : int
        Number of features seen in fit.
    feature_names_in_ : ndarray of str
        Only when ``X`` has string column names.

    See Also
    --------
    threshold_in_errors : the threshold rules.
    leave_one_out_threshold_curve : the paper's leave-one-out protocol.
    widefs.stats.expected_min_errors : Theorem 4.1.
    widefs.stats.chance_error_rate : the analytic ``p_error="auto"``.

    Notes
    -----
    ``X`` may be out of core: a dask array, a zarr array or a numpy memmap is scored one
    block of columns at a time (about 4 MB each), never loaded whole, with the same
    result as in memory; ``transform`` then loads only the selected columns. The
    permutation null is reduced block by block (the best feature per permutation, the
    sum of errors, per-feature p-values), so its memory does not grow with the number
    of features times permutations.

    Examples
    --------
    >>> from widefs.datasets import load_dataset
    >>> X, y = load_dataset("colon", return_X_y=True)
    >>> sel = DiscriminativeSelector(random_state=0).fit(X, y)
    >>> sel.null_, sel.n_validation_, round(sel.p_error_, 3), round(sel.expected_min_errors_, 2)
    ('analytic', 31, 0.355, 2.73)
    >>> perm = DiscriminativeSelector(null="permutation", n_permutations=200, random_state=0)
    >>> perm = perm.fit(X, y)
    >>> perm.null_min_errors_.shape, bool(perm.expected_min_errors_ > sel.expected_min_errors_)
    ((200,), True)
    """

    _parameter_constraints: dict = {
        "threshold": [
            StrOptions(set(_NAMED_THRESHOLDS)),
            Interval(numbers.Integral, 1, None, closed="left"),
            Interval(numbers.Real, 0, 1, closed="neither"),
        ],
        "scorer": [StrOptions({"gaussian_nb", "stump"})],
        "cv": [
            StrOptions({"halves"}),
            Interval(numbers.Integral, 2, None, closed="left"),
            "cv_object",
        ],
        "alpha": [Interval(numbers.Real, 0, 1, closed="neither")],
        "p_error": [
            StrOptions({"auto", "uniform"}),
            Interval(numbers.Real, 0, 1, closed="neither"),
        ],
        "null": [StrOptions({"auto", "analytic", "permutation"})],
        "n_permutations": [Interval(numbers.Integral, 1, None, closed="left")],
        "var_smoothing": [Interval(numbers.Real, 0, None, closed="left")],
        "random_state": ["random_state"],
        "n_jobs": [None, Integral],
    }

    def __init__(
        self,
        threshold="mgm",
        *,
        scorer="gaussian_nb",
        cv="halves",
        alpha=0.05,
        p_error="auto",
        null="auto",
        n_permutations=1000,
        var_smoothing=1e-9,
        random_state=None,
        n_jobs=None,
    ):
        self.threshold = threshold
        self.scorer = scorer
        self.cv = cv
        self.alpha = alpha
        self.p_error = p_error
        self.null = null
        self.n_permutations = n_permutations
        self.var_smoothing = var_smoothing
        self.random_state = random_state
        self.n_jobs = n_jobs

    def transform(self, X):
        """Keep the selected columns; an out-of-core X loads only those columns.

        Parameters
        ----------
        X : array_like, dask array, zarr array or memmap of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_selected)
        """
        if is_lazy_matrix(X):
            check_is_fitted(self)
            if X.shape[1] != self.n_features_in_:
                raise ValueError(f"X has {X.shape[1]} features, expected {self.n_features_in_}.")
            return load_columns(X, np.flatnonzero(self.support_))
        return super().transform(X)

    def _split_masks(self, y_codes: np.ndarray, n_classes: int, rng):
        n = y_codes.shape[0]
        if self.cv == "halves":
            tr, va = halves_masks(y_codes, n_classes, rng)
            return tr[None], va[None]
        if isinstance(self.cv, numbers.Integral):
            splitter = StratifiedKFold(self.cv, shuffle=True, random_state=rng)
        else:
            splitter = check_cv(self.cv, y_codes, classifier=True)
        train, val = [], []
        for tr_idx, va_idx in splitter.split(np.zeros((n, 1)), y_codes):
            tr, va = np.zeros(n, bool), np.zeros(n, bool)
            tr[tr_idx], va[va_idx] = True, True
            train.append(tr)
            val.append(va)
        return np.array(train), np.array(val)

    def _p_error(self, y_codes, n_classes, val) -> float:
        if self.p_error == "uniform":
            return 1.0 - 1.0 / n_classes
        if self.p_error == "auto":
            # Validation predictions of each class, over all splits.
            counts = np.bincount(y_codes, weights=val.sum(axis=0), minlength=n_classes)
            return float(chance_error_rate(counts.round()))
        return float(self.p_error)

    @fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Score every feature on the validation part(s), compute the null, apply the threshold.

        Parameters
        ----------
        X : array_like, dask array, zarr array or memmap of shape (n_samples, n_features)
            Training data.
        y : array_like of shape (n_samples,)
            Class labels.

        Returns
        -------
        self : DiscriminativeSelector
            The fitted selector.
        """
        lazy = is_lazy_matrix(X)
        if lazy:
            y = validate_lazy_xy(self, X, y)
        else:
            X, y = validate_data(self, X, y, dtype=np.float64, ensure_min_samples=2)
        check_classification_targets(y)
        self.classes_, y_codes = np.unique(y, return_inverse=True)
        n_classes = self.classes_.size
        if n_classes < 2:
            raise ValueError(
                f"DiscriminativeSelector needs at least 2 classes; got 1 class ({self.classes_[0]!r})."
            )
        rng = check_random_state(self.random_state)
        train, val = self._split_masks(y_codes, n_classes, rng)
        cells = split_cells(train, val)
        # A permutation can move a label only within a cell holding two classes.
        room = any(np.unique(y_codes[cells == c]).size > 1 for c in np.unique(cells))
        if self.null == "auto":
            self.null_ = "analytic" if train.shape[0] == 1 or not room else "permutation"
            if train.shape[0] > 1 and not room:
                warnings.warn(
                    "The splits leave no room for label permutations (no group of examples "
                    "with the same role in every split holds two classes); the thresholds "
                    "use the analytic null.",
                    UserWarning,
                    stacklevel=2,
                )
        else:
            self.null_ = self.null
        y_null = None
        if self.null_ == "permutation":
            if not room:
                raise ValueError(
                    "The splits leave no room for label permutations: no group of examples "
                    "with the same role in every split holds two classes. Use fewer or "
                    'disjoint splits, or null="analytic".'
                )
            self.permutations_ = label_permutations(cells, self.n_permutations, rng)
            y_null = y_codes[self.permutations_]
        n_features = X.shape[1]
        # In memory and serial: one block. Otherwise blocks of columns, scored independently
        # (scores are per feature), so results do not depend on n_jobs or on the block size.
        if lazy or effective_n_jobs(self.n_jobs) > 1:
            width = block_width(X.shape[0])
            if not lazy:
                width = min(width, -(-n_features // effective_n_jobs(self.n_jobs)))
        else:
            width = n_features
        parts = parallel_calls(
            _score_block,
            [
                (
                    X[:, b] if not lazy else X,
                    b,
                    lazy,
                    y_codes,
                    n_classes,
                    train,
                    val,
                    self.scorer,
                    self.var_smoothing,
                    y_null,
                )
                for b in iter_column_blocks(n_features, width)
            ],
            n_jobs=self.n_jobs,
        )
        errors = np.concatenate([p.errors for p in parts])
        self.constant_features_ = np.concatenate([p.constant for p in parts])
        eligible = ~self.constant_features_
        self.n_validation_ = int(val.sum())
        self.n_scored_ = int(eligible.sum())
        self.p_error_ = self._p_error(y_codes, n_classes, val)
        self.n_errors_ = errors
        self.scores_ = 1.0 - errors / self.n_validation_
        self.search_score_ = _best_score(self.scores_, eligible)
        m = max(self.n_scored_, 1)
        if self.null_ == "permutation":
            null = _merge_null(parts, self.n_permutations, self.n_scored_, self.n_validation_)
            self.null_min_errors_ = null.min_errors
            self.expected_errors_ = null.expected_errors
            self.expected_min_errors_ = null.expected_min_errors
            self.pvalues_ = null.pvalues if null.pvalues.size else np.ones(errors.shape)
        else:
            self.expected_errors_ = float(_analytic_errors(self.n_validation_, self.p_error_))
            self.expected_min_errors_ = float(
                _analytic_min_errors(m, self.n_validation_, self.p_error_)
            )
            self.pvalues_ = np.where(
                eligible, binomial_tail(errors, self.n_validation_, self.p_error_), 1.0
            )
        self.threshold_, self.support_ = threshold_in_errors(
            self.threshold,
            errors,
            self.n_validation_,
            self.p_error_,
            n_scored=m,
            alpha=self.alpha,
            eligible=eligible,
            pvalues=self.pvalues_,
            expected_errors=self.expected_errors_,
            expected_min_errors=self.expected_min_errors_,
        )
        if not self.support_.any():
            warnings.warn(self._nothing_selected_message(m), NothingSelectedWarning, stacklevel=2)
        return self

    def permutation_search_scores(self, X, y, permutations, n_jobs=None):
        """``search_score_`` of a refit on each permuted labelling, without the internal null.

        Equal to ``clone(self).fit(X, y[perm]).search_score_`` for every row ``perm`` of
        ``permutations`` (the refit loop is its test oracle), but ``X`` is validated once,
        the constant features found once, and each permutation costs one split (drawn as a
        fresh fit would draw it from ``random_state``) and one pass of the scorer over all
        features: the thresholds' own permutation null, which ``search_score_`` does not
        depend on, is not computed. Used by
        :func:`widefs.model_selection.search_certificate`.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
            Training data (an out-of-core matrix is refitted per permutation).
        y : array_like of shape (n_samples,)
            Class labels.
        permutations : ndarray of int, shape (n_permutations, n_samples)
            Index arrays; row ``i`` gives the labelling ``y[permutations[i]]``.
        n_jobs : int, default=None
            Permutations scored in parallel threads. Results do not depend on it.

        Returns
        -------
        scores : ndarray of float, shape (n_permutations,)
        """
        import copy

        from sklearn.base import clone

        permutations = np.asarray(permutations)
        if is_lazy_matrix(X):
            y = np.asarray(y)
            return np.array([clone(self).fit(X, y[p]).search_score_ for p in permutations])
        base = clone(self)
        X, y = validate_data(base, X, y, dtype=np.float64, ensure_min_samples=2)
        check_classification_targets(y)
        classes, y_codes = np.unique(y, return_inverse=True)
        if classes.size < 2:
            raise ValueError(
                f"DiscriminativeSelector needs at least 2 classes; got 1 class ({classes[0]!r})."
            )
        eligible = np.ptp(X, axis=0) > 0
        columns = slice(0, X.shape[1])

        def one(perm) -> float:
            # A fresh fit seeds its generator from a copy of random_state (clone deep-copies).
            rng = check_random_state(copy.deepcopy(self.random_state))
            labels = y_codes[perm]
            train, val = base._split_masks(labels, classes.size, rng)
            scores = _score_block(
                X,
                columns,
                False,
                labels,
                classes.size,
                train,
                val,
                self.scorer,
                self.var_smoothing,
            )
            return _best_score(1.0 - scores.errors / int(val.sum()), eligible)

        chunks = [
            c
            for c in np.array_split(
                np.arange(len(permutations)),
                max(1, min(len(permutations), effective_n_jobs(n_jobs))),
            )
            if c.size
        ]
        parts = Parallel(n_jobs=len(chunks), backend="threading")(
            delayed(lambda idx: [one(permutations[i]) for i in idx])(c) for c in chunks
        )
        return np.array([v for part in parts for v in part], dtype=float)

    def _nothing_selected_message(self, m: int) -> str:
        message = (
            f"No feature passed the {self.threshold!r} threshold "
            f"({self.threshold_:.3g} errors out of {self.n_validation_}, {self.null_} null); "
            "transform will return an empty matrix."
        )
        if self.null_ == "permutation" and self.threshold == "bonferroni":
            smallest = 1.0 / (self.n_permutations + 1)
            if smallest > self.alpha / m:
                message += (
                    f" With {self.n_permutations} permutations the smallest p-value is "
                    f"{smallest:.2g}, above alpha / M = {self.alpha / m:.2g}: Bonferroni cannot "
                    "reject; use more permutations or another threshold."
                )
        return message
