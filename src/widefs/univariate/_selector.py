"""Chance-aware discriminative feature selection (Section 5 of Palatucci & Carlson 2008)."""

from __future__ import annotations

import numbers
import warnings
from numbers import Integral

import numpy as np
from joblib import Parallel, delayed, effective_n_jobs
from sklearn.base import BaseEstimator, _fit_context
from sklearn.feature_selection import SelectorMixin
from sklearn.model_selection import StratifiedKFold, check_cv
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from widefs.exceptions import NothingSelectedWarning
from widefs.stats import (
    benjamini_hochberg,
    binomial_tail,
    bonferroni,
    expected_errors,
    expected_min_errors,
    mgm_threshold,
)
from widefs.univariate._scores import gaussian_nb_split_errors, halves_masks, stump_split_errors
from widefs.utils import (
    block_width,
    is_lazy_matrix,
    iter_column_blocks,
    load_columns,
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
) -> tuple[float, np.ndarray]:
    """Turn a threshold specification into an error cut and a selection mask.

    A feature is selected when it is eligible and its validation errors are strictly
    below the returned cut (for an int ``k``, the k best eligible features, ties to the
    lower index). This is the one place where every threshold rule lives; the selector,
    the experiments and the CLI all call it.

    Parameters
    ----------
    threshold : {"mgm", "max_chance", "fdr", "bonferroni", "all"}, int or float
        ``"mgm"``: fewer errors than ``(E[X] + E[X_(1)]) / 2``; ``"max_chance"``: fewer
        than ``E[X_(1)]``; ``"fdr"`` / ``"bonferroni"``: one-sided binomial test against
        ``p_error``, adjusted by Benjamini-Hochberg / Bonferroni, rejected at ``alpha``;
        int ``k``: the k best; float in (0, 1): validation error rate below the value.
    n_errors : ndarray of shape (n_features,)
        Validation errors of each feature's classifier.
    n_validation : int
        N, the number of validation predictions behind each count.
    p_error : float
        Chance error rate of one prediction.
    n_scored : int, optional
        M, the number of classifiers competing; defaults to the eligible count.
    alpha : float, default=0.05
    eligible : ndarray of bool, optional
        Features that may be selected (constant features are not).

    Returns
    -------
    cut : float
        Threshold in errors.
    selected : ndarray of bool
    """
    n_errors = np.asarray(n_errors)
    eligible = np.ones(n_errors.shape, bool) if eligible is None else np.asarray(eligible, bool)
    m = max(int(eligible.sum()), 1) if n_scored is None else n_scored
    if isinstance(threshold, str):
        if threshold == "mgm":
            cut = float(mgm_threshold(m, n_validation, p_error))
        elif threshold == "max_chance":
            cut = float(expected_min_errors(m, n_validation, p_error))
        elif threshold == "all":
            cut = np.inf
        elif threshold in ("fdr", "bonferroni"):
            # Error counts are integers in 0..N: one tail per level, then a lookup.
            levels = np.asarray(binomial_tail(np.arange(n_validation + 1), n_validation, p_error))
            pvalues = levels[n_errors.astype(np.intp)]
            adjust = benjamini_hochberg if threshold == "fdr" else bonferroni
            adjusted = np.ones(n_errors.shape)
            adjusted[eligible] = adjust(pvalues[eligible])
            rejected = eligible & (adjusted <= alpha)
            # p-values increase with the error count, so the rejections are a prefix in errors.
            cut = float(n_errors[rejected].max() + 1) if rejected.any() else 0.0
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


def _score_block(Xb, columns, lazy, y_codes, n_classes, train, val, scorer, var_smoothing):
    """Validation errors (summed over splits) and constancy of one block of columns."""
    if lazy:
        Xb = load_columns(Xb, columns)
        if not np.isfinite(Xb).all():
            bad = columns.start + np.flatnonzero(~np.isfinite(Xb).all(axis=0))
            raise ValueError(f"Input X contains NaN or infinity (columns {bad[:5].tolist()}...).")
    if scorer == "gaussian_nb":
        errors = gaussian_nb_split_errors(
            Xb, y_codes, n_classes, train, val, var_smoothing=var_smoothing
        )
    else:
        errors = stump_split_errors(Xb, y_codes, n_classes, train, val)
    return errors.sum(axis=0), np.ptp(Xb, axis=0) == 0


class DiscriminativeSelector(SelectorMixin, BaseEstimator):
    """Select features whose one-feature classifier beats the best expected by chance.

    Discriminative feature selection (Section 5 of Palatucci & Carlson 2008): every
    feature gets its own classifier, trained on a training part and scored by its
    error count on a validation part. With M features and N validation examples, the
    best of M *random* classifiers is expected to make only ``E[X_(1)]`` errors
    (Theorem 4.1), far fewer than the ``E[X] = N p_error`` of a single one; the default
    multiplicity-gap midpoint (MGM) keeps features with fewer errors than
    ``(E[X] + E[X_(1)]) / 2``.

    Scoring is vectorized over features (and over the folds of ``cv``); there is no
    Python loop over features.

    Parameters
    ----------
    threshold : {"mgm", "max_chance", "fdr", "bonferroni", "all"}, int or float, default="mgm"
        ``"mgm"``: fewer errors than the multiplicity-gap midpoint; ``"max_chance"``:
        fewer than ``E[X_(1)]``; ``"fdr"``: one-sided binomial test against chance with
        Benjamini-Hochberg at ``alpha``; ``"bonferroni"``: the same with Bonferroni;
        ``"all"``: every non-constant feature; an int k: the k features with the fewest
        errors (ties to the lower index); a float in (0, 1): validation error rate below
        the value.
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
    p_error : "auto" or float, default="auto"
        Chance error rate of one prediction; ``"auto"`` uses ``1 - 1/n_classes``.
    var_smoothing : float, default=1e-9
        Variance smoothing of the naive Bayes scorer, as in ``GaussianNB``.
    random_state : int, RandomState instance or None, default=None
        Seeds the halves split (and the folds for an int ``cv``).
    n_jobs : int, default=None
        Score blocks of features in parallel with joblib (any backend, e.g. Dask through
        ``joblib.parallel_config(backend="dask")``). Results do not depend on it.

    Notes
    -----
    ``X`` may be out of core: a dask array, a zarr array or a numpy memmap is scored one
    block of columns at a time (about 4 MB each), never loaded whole, with the same
    result as in memory; ``transform`` then loads only the selected columns.

    Attributes
    ----------
    n_errors_ : ndarray of shape (n_features,)
        Validation errors of each feature's classifier.
    scores_ : ndarray of shape (n_features,)
        Validation accuracy, ``1 - n_errors_ / n_validation_``.
    pvalues_ : ndarray of shape (n_features,)
        One-sided binomial p-values ``P(Binomial(N, p_error) <= errors)`` (1 for
        constant features).
    threshold_ : float
        The cut in errors: a feature is selected when its errors are below it (for an
        int threshold, the k best are taken even among equal counts).
    expected_errors_ : float
        ``E[X] = N p_error``.
    expected_min_errors_ : float
        ``E[X_(1)]`` for M = the number of non-constant features.
    n_validation_ : int
        N, validation predictions per feature.
    n_scored_ : int
        M, the number of non-constant features scored.
    p_error_ : float
    constant_features_ : ndarray of bool
        Features constant on the fitted data: never selected.
    classes_ : ndarray
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when ``X`` has string column names.

    Examples
    --------
    >>> from widefs.datasets import load_dataset
    >>> X, y = load_dataset("colon", return_X_y=True)
    >>> sel = DiscriminativeSelector(random_state=0).fit(X, y)
    >>> sel.n_validation_, round(sel.expected_min_errors_, 2)
    (31, 6.24)
    >>> bool(sel.get_support().sum() > 0)
    True
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
        "p_error": [StrOptions({"auto"}), Interval(numbers.Real, 0, 1, closed="neither")],
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
        var_smoothing=1e-9,
        random_state=None,
        n_jobs=None,
    ):
        self.threshold = threshold
        self.scorer = scorer
        self.cv = cv
        self.alpha = alpha
        self.p_error = p_error
        self.var_smoothing = var_smoothing
        self.random_state = random_state
        self.n_jobs = n_jobs

    def transform(self, X):
        """Keep the selected columns; an out-of-core X loads only those columns."""
        if is_lazy_matrix(X):
            check_is_fitted(self)
            if X.shape[1] != self.n_features_in_:
                raise ValueError(f"X has {X.shape[1]} features, expected {self.n_features_in_}.")
            return load_columns(X, np.flatnonzero(self.support_))
        return super().transform(X)

    def _split_masks(self, y_codes: np.ndarray, n_classes: int):
        n = y_codes.shape[0]
        if self.cv == "halves":
            tr, va = halves_masks(y_codes, n_classes, self.random_state)
            return tr[None], va[None]
        if isinstance(self.cv, numbers.Integral):
            splitter = StratifiedKFold(self.cv, shuffle=True, random_state=self.random_state)
        else:
            splitter = check_cv(self.cv, y_codes, classifier=True)
        train, val = [], []
        for tr_idx, va_idx in splitter.split(np.zeros((n, 1)), y_codes):
            tr, va = np.zeros(n, bool), np.zeros(n, bool)
            tr[tr_idx], va[va_idx] = True, True
            train.append(tr)
            val.append(va)
        return np.array(train), np.array(val)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Score every feature on the validation part(s) and apply the threshold.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
        y : array_like of shape (n_samples,)

        Returns
        -------
        self
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
        train, val = self._split_masks(y_codes, n_classes)
        n_features = X.shape[1]
        # In memory and serial: one block. Otherwise blocks of columns, scored independently
        # (scores are per feature), so results do not depend on n_jobs or on the block size.
        if lazy or effective_n_jobs(self.n_jobs) > 1:
            width = block_width(X.shape[0])
            if not lazy:
                width = min(width, -(-n_features // effective_n_jobs(self.n_jobs)))
        else:
            width = n_features
        parts = Parallel(n_jobs=self.n_jobs)(
            delayed(_score_block)(
                X[:, b] if not lazy else X,
                b,
                lazy,
                y_codes,
                n_classes,
                train,
                val,
                self.scorer,
                self.var_smoothing,
            )
            for b in iter_column_blocks(n_features, width)
        )
        errors = np.concatenate([p[0] for p in parts])

        self.p_error_ = 1.0 - 1.0 / n_classes if self.p_error == "auto" else float(self.p_error)
        self.constant_features_ = np.concatenate([p[1] for p in parts])
        eligible = ~self.constant_features_
        self.n_validation_ = int(val.sum())
        self.n_scored_ = int(eligible.sum())
        self.n_errors_ = errors
        self.scores_ = 1.0 - errors / self.n_validation_
        self.pvalues_ = np.where(
            eligible, binomial_tail(errors, self.n_validation_, self.p_error_), 1.0
        )
        m = max(self.n_scored_, 1)
        self.expected_errors_ = float(expected_errors(self.n_validation_, self.p_error_))
        self.expected_min_errors_ = float(expected_min_errors(m, self.n_validation_, self.p_error_))
        self.threshold_, self.support_ = threshold_in_errors(
            self.threshold,
            errors,
            self.n_validation_,
            self.p_error_,
            n_scored=m,
            alpha=self.alpha,
            eligible=eligible,
        )
        if not self.support_.any():
            warnings.warn(
                f"No feature passed the {self.threshold!r} threshold "
                f"({self.threshold_:.3g} errors out of {self.n_validation_}); "
                "transform will return an empty matrix.",
                NothingSelectedWarning,
                stacklevel=2,
            )
        return self

    def _get_support_mask(self):
        check_is_fitted(self)
        return self.support_

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        return tags
