"""Chance-aware discriminative feature selection (Section 5 of Palatucci & Carlson 2008)."""

from __future__ import annotations

import numbers
import warnings
from numbers import Integral

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from widefs._compat import Interval, StrOptions, fit_context
from widefs._utils import (
    SupervisedSelectorMixin,
    column_major,
    is_lazy_matrix,
    shared_fit,
    validate_lazy_xy,
)
from widefs.exceptions import UnusedParameterWarning
from widefs.univariate._distribution import LOCATION_WEIGHT
from widefs.univariate._error_counts import error_counts_key, fit_error_counts
from widefs.univariate._grouped_null import check_selector_groups
from widefs.univariate._lazy import LazyTransformMixin
from widefs.univariate._pooled_null import pooled_null
from widefs.univariate._rows import finish_fit, selector_fit_rows
from widefs.univariate._thresholds import (
    NAMED_THRESHOLDS,
    reject_pvalues,
    threshold_in_errors,
    top_k,
)

__all__ = ["DiscriminativeSelector"]

_STATISTICS = ("auto", "errors", "distribution", "location")
_PVALUE_RULES = ("fdr", "bonferroni")
#: ``null_heterogeneity_`` above which a fit warns that pooled p-values are approximate.
HETEROGENEITY_WARNING = 0.3


def _is_threshold(threshold) -> bool:
    """Whether ``threshold`` is a threshold the constructor accepts."""
    if isinstance(threshold, str):
        return threshold in NAMED_THRESHOLDS
    if isinstance(threshold, bool) or not isinstance(threshold, numbers.Real):
        return False
    if isinstance(threshold, numbers.Integral):
        return threshold >= 1
    return 0 < threshold < 1


class DiscriminativeSelector(
    LazyTransformMixin, SupervisedSelectorMixin, SelectorMixin, BaseEstimator
):
    """Select features whose classes differ beyond chance, knowing how many were searched.

    Two per-feature statistics, chosen by ``statistic``:

    - **errors** (the paper's protocol, Section 5 of Palatucci & Carlson 2008): every feature
      gets its own classifier, trained on a training part and scored by its error count on a
      validation part. With M features and N validation examples the best of M *random*
      classifiers is expected to make only ``E[X_(1)]`` errors (Theorem 4.1), far fewer than
      the ``E[X]`` of a single one; the multiplicity-gap midpoint (MGM) keeps features with
      fewer errors than ``(E[X] + E[X_(1)]) / 2``. MGM is a chance-aware cut, **not** an
      error-controlling one: on pure noise with 30/30 classes it keeps about 85 of 2000
      features by design. The chance quantities come from a null of the errors, either
      *analytic* (``X ~ Binomial(N, p_error)``, Theorem 4.1 for M independent features) or
      *permutation* (the same scorer, on the same splits, refitted to label permutations that
      keep every split's class counts: the chance errors of *this* classifier on *these*
      class proportions and *these* correlated features).
    - **distribution**: a continuous score computed on all examples, which sees what a
      one-feature Gaussian classifier separates classes by: the class means (the F statistic
      of ``f_classif``) and the class spreads (the same F on ``|x - mean(x)|``), combined
      as ``-log10 min(p_loc / 0.85, p_spread / 0.15)`` (:func:`class_difference_scores`). Its
      p-values come from a *pooled* permutation null: every feature is scored under every
      one of B label permutations, and a feature's p-value is its rank among all those
      ``M x B`` draws, so their resolution is ``1 / (M B + 1)`` instead of ``1 / (B + 1)``.
      They are exact when the features are exchangeable under the null (identically
      distributed, whatever the distribution); ``null_heterogeneity_`` measures how far the
      features' nulls differ (0 when alike; a fit warns above 0.3). ``"location"`` is the same with the
      location F alone.

    **Deprecated**: the distribution and location statistics (and ``"auto"`` with ``"fdr"`` or
    ``"bonferroni"``, which resolves to the distribution statistic) warn with a
    ``FutureWarning`` and will be removed; :class:`ClassDifferenceScreen` is the FDR screen,
    with p-values valid for every feature. Until then they behave as before.

    ``statistic="auto"`` (the default) uses the distribution statistic for ``"fdr"`` and
    ``"bonferroni"`` (the error-controlling rules, where the continuous statistic on all
    examples finds what the F-test finds, and spread differences it cannot) and the errors
    for the paper's thresholds (``"mgm"``, ``"max_chance"``, an error rate) and for ``"all"``
    and an int k. ``statistic="errors"`` keeps the paper's exact protocol for every rule.

    Parameters
    ----------
    threshold : {"mgm", "max_chance", "fdr", "bonferroni", "all"}, int or float, default="mgm"
        ``"mgm"``: fewer errors than the multiplicity-gap midpoint; ``"max_chance"``: fewer
        than ``E[X_(1)]``; ``"fdr"``: Benjamini-Hochberg at ``alpha`` on the p-values;
        ``"bonferroni"``: the same with Bonferroni; ``"all"``: every non-constant feature;
        an int k: the k best features (ties to the lower index); a float in (0, 1):
        validation error rate below the value (errors statistic only).
    statistic : {"auto", "errors", "distribution", "location"}, default="auto"
        The per-feature statistic (see above). ``"mgm"``, ``"max_chance"`` and a float
        threshold need ``"errors"``.
    scorer : {"gaussian_nb", "stump"}, default="gaussian_nb"
        Errors statistic: the one-feature classifier, Gaussian naive Bayes (the paper's) or
        a decision stump with the fewest training errors.
    cv : "halves", int or cross-validation splitter, default="halves"
        Errors statistic: ``"halves"``, the paper's stratified equal halves (training
        ``floor(n/2)``, validation the rest), seeded by ``random_state``; an int k or a
        splitter: errors summed over the validation folds (N = number of validation
        predictions), each fold's classifier trained on the rest.
    alpha : float, default=0.05
        Level of the ``"fdr"`` and ``"bonferroni"`` rules.
    p_error : "auto", "uniform" or float, default="auto"
        Chance error rate of the analytic null. ``"auto"``: the majority-class error
        ``1 - max_c N_c / N`` of the validation examples (no classifier that ignores the
        labels does better on average, and the binomial lower tail bounds the lower tail of
        any such classifier's errors, Hoeffding 1956: see
        :func:`widefs.stats.chance_error_rate`); ``"uniform"``: ``1 - 1/n_classes``, the
        literal reading of the paper (too lenient on imbalanced classes); a float: that rate.
    null : {"auto", "analytic", "permutation"}, default="auto"
        Errors statistic: which null the thresholds use. ``"auto"``: analytic when the
        errors come from one validation split of balanced classes, where it is an estimate;
        permutation otherwise: on imbalanced classes the analytic null is only a bound (the
        expected best chance accuracy it gives is too high, its thresholds conservative),
        and errors summed over folds whose training parts overlap other folds' validation
        examples have no honest closed form. If the splits leave no room to permute (no
        group of examples with the same role in every split holds two classes), ``"auto"``
        warns and uses the analytic null, ``"permutation"`` raises ``ValueError``.
    n_permutations : "auto" or int, default="auto"
        Label permutations. Errors statistic: ``"auto"`` gives 1000 for ``"fdr"`` and
        ``"bonferroni"`` (the smallest per-feature p-value is ``1 / (n_permutations + 1)``),
        200 for the other rules (which use only E[X] and E[X_(1)]), fewer (at least 100)
        when features x permutations would exceed 2e7. Distribution statistic: the
        permutations of the first stage of the pooled null (``"auto"``: at least 2, and at
        least 100,000 draws in all); a second stage of fresh draws resolves the features
        beyond every first-stage draw whenever the floor could decide, so it never does.
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
    statistic_ : str
        The statistic used: ``"errors"``, ``"distribution"`` or ``"location"``.
    scores_ : ndarray of shape (n_features,)
        Higher is more discriminative: the validation accuracy ``1 - n_errors_ /
        n_validation_`` (errors) or the combined score (distribution).
    pvalues_ : ndarray of shape (n_features,)
        Per-feature p-values of the null in use (1 for constant features). Each tests the
        *marginal* null of one feature (its distribution does not depend on the class);
        ``"fdr"`` controls the expected proportion of selected features for which it holds.
    min_pvalue_ : float
        The smallest p-value the null can give (its floor): ``1 / (n_permutations + 1)``
        (errors, permutation), ``P(Binomial(N, p_error) = 0)`` (errors, analytic),
        ``1 / (D + 1)`` for the D draws of the pooled null's last stage (distribution).
    search_score_ : float
        The best non-constant feature's score, ``max(scores_)``: the score
        :func:`widefs.model_selection.search_certificate` certifies.
    threshold_ : float
        The cut: in errors (errors statistic: a feature is selected below it; for an int
        threshold the k best are taken even among equal counts; for ``"fdr"`` /
        ``"bonferroni"``, one more than the largest selected count) or, for the
        distribution statistic, the largest selected p-value (0 when none).
    n_errors_, n_validation_, p_error_ : errors statistic
        Validation errors of each feature's classifier; N; the analytic chance error rate.
    expected_errors_, expected_min_errors_ : float
        Errors statistic: E[X] and E[X_(1)] of the null in use.
    chance_nulls_ : dict of str to ChanceNull
        Errors statistic: ``"analytic"`` always, ``"permutation"`` when computed; each with
        its E[X], E[X_(1)], p-values and whether it is only a bound.
    null_ : str
        Errors statistic: the null the thresholds used.
    design_case_ : str
        ``"independent"`` without ``groups``, else ``"within groups"`` or ``"between groups"``.
    null_min_errors_ : ndarray of shape (n_permutations,)
        Errors statistic, permutation null: the best feature's errors on each permutation.
    location_statistics_, spread_statistics_ : ndarray of shape (n_features,)
        Distribution statistic: the F statistics of the class means and spreads.
    n_null_draws_ : tuple of int
        Distribution statistic: pooled null draws of the first stage (non-constant features
        x permutations) and of the second (0 when not needed).
    null_heterogeneity_ : float
        Distribution statistic: :func:`widefs.stats.null_heterogeneity` of the draws, the
        relative variation of the features' null tail probabilities (0 when alike).
    permutations_ : ndarray of shape (n_permutations, n_samples)
        The permutation index arrays used (``y[permutations_[b]]``), when a permutation
        null was computed (distribution statistic: those of the first stage).
    n_scored_ : int
        M, the number of non-constant features.
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
    ClassDifferenceScreen : the FDR screen (per-feature valid p-values).
    class_difference_scores : the distribution statistic with asymptotic p-values.
    threshold_in_errors : the paper's threshold rules.
    leave_one_out_threshold_curve : the paper's leave-one-out protocol.
    widefs.stats.expected_min_errors : Theorem 4.1.

    Notes
    -----
    ``X`` may be out of core: a dask array, a zarr array or a numpy memmap is scored one
    block of columns at a time, never loaded whole, with the same result as in memory;
    ``transform`` then loads only the selected columns. float32 data stay float32 in memory:
    the errors statistic widens them to float64 a block of columns at a time.

    Examples
    --------
    >>> from widefs.datasets import load_dataset
    >>> X, y = load_dataset("colon", return_X_y=True)
    >>> sel = DiscriminativeSelector(null="analytic", random_state=0).fit(X, y)
    >>> sel.null_, sel.n_validation_, round(sel.p_error_, 3), round(sel.expected_min_errors_, 2)
    ('analytic', 31, 0.355, 2.73)
    >>> sel.chance_nulls_["analytic"].is_bound  # colon's classes are imbalanced (40 / 22)
    True
    >>> sel.search_score_ > 0.8
    True
    """

    _parameter_constraints: dict = {
        "threshold": [
            StrOptions(set(NAMED_THRESHOLDS)),
            Interval(numbers.Integral, 1, None, closed="left"),
            Interval(numbers.Real, 0, 1, closed="neither"),
        ],
        "statistic": [StrOptions(set(_STATISTICS))],
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
        "n_permutations": [
            StrOptions({"auto"}),
            Interval(numbers.Integral, 1, None, closed="left"),
        ],
        "var_smoothing": [Interval(numbers.Real, 0, None, closed="left")],
        "random_state": ["random_state"],
        "n_jobs": [None, Integral],
    }

    def __init__(
        self,
        threshold="mgm",
        *,
        statistic="auto",
        scorer="gaussian_nb",
        cv="halves",
        alpha=0.05,
        p_error="auto",
        null="auto",
        n_permutations="auto",
        var_smoothing=1e-9,
        random_state=None,
        n_jobs=None,
    ):
        self.threshold = threshold
        self.statistic = statistic
        self.scorer = scorer
        self.cv = cv
        self.alpha = alpha
        self.p_error = p_error
        self.null = null
        self.n_permutations = n_permutations
        self.var_smoothing = var_smoothing
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _resolve_statistic(self) -> str:
        """The statistic ``fit`` uses; a threshold it cannot apply is an error."""
        if self.statistic == "auto":
            return "distribution" if self.threshold in _PVALUE_RULES else "errors"
        continuous = self.statistic in ("distribution", "location")
        needs_errors = self.threshold in ("mgm", "max_chance") or (
            isinstance(self.threshold, numbers.Real)
            and not isinstance(self.threshold, numbers.Integral)
        )
        if continuous and needs_errors:
            raise ValueError(
                f"threshold={self.threshold!r} is a cut on validation errors and needs "
                f"statistic='errors' (or 'auto'), not statistic={self.statistic!r}."
            )
        return self.statistic

    def _validate(self, X, y):
        """Validated ``(X, y_codes, lazy)``; sets ``classes_`` and ``n_features_in_``."""
        lazy = is_lazy_matrix(X)
        if lazy:
            X = column_major(X)  # sparse: CSC once, then densified a block of columns at a time
            y = validate_lazy_xy(self, X, y)
        else:
            # float32 kept: the errors statistic widens a block of columns at a time.
            X, y = validate_data(self, X, y, dtype=[np.float64, np.float32], ensure_min_samples=2)
        check_classification_targets(y)
        self.classes_, y_codes = np.unique(y, return_inverse=True)
        if self.classes_.size < 2:
            raise ValueError(
                f"DiscriminativeSelector needs at least 2 classes; got 1 class ({self.classes_.tolist()[0]!r})."
            )
        return X, y_codes, lazy

    @fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, groups=None):
        """Score every feature, compute the null, apply the threshold.

        Parameters
        ----------
        X : array_like, dask array, zarr array or memmap of shape (n_samples, n_features)
            Training data.
        y : array_like of shape (n_samples,)
            Class labels.
        groups : array_like of shape (n_samples,), optional
            Subject, pair or patient of every sample (errors statistic only): the training
            and validation parts keep every group on one side, and the thresholds use the
            permutation null with relabellings that respect the groups (within groups, or
            whole groups exchanged); ``null="analytic"``, which assumes independent
            samples, is refused (except with ``threshold="all"``, which thresholds nothing).
            ``design_case_`` says which case applied.

        Returns
        -------
        self : DiscriminativeSelector
            The fitted selector.
        """
        self.statistic_ = self._resolve_statistic()
        X, y_codes, lazy = self._validate(X, y)
        groups = check_selector_groups(self, groups, y_codes)
        rng = check_random_state(self.random_state)
        if self.statistic_ != "errors":
            warnings.warn(self._deprecation_message(), FutureWarning, stacklevel=3)
        if self.statistic_ == "errors":
            self._fit_errors(X, y_codes, lazy, rng, groups)
        else:
            self._fit_distribution(X, y_codes, rng)
        return finish_fit(self, stacklevel=4)  # the caller's line: fit context, fit, finish_fit

    @fit_context(prefer_skip_nested_validation=True)
    def _fit_rows(self, X, y, rows):
        """``fit(X[rows], y)`` of a C-ordered numpy ``X``, its rows read in place."""
        return selector_fit_rows(self, X, y, rows)

    def _deprecation_message(self) -> str:
        return (
            f"DiscriminativeSelector({self.threshold!r}) with the {self.statistic_} statistic "
            "is deprecated and will be removed: its pooled permutation p-values are valid only "
            "on average over features. Use widefs.univariate.ClassDifferenceScreen (threshold "
            "'fdr', 'bonferroni' or k; every feature's p-value in pvalues_), whose p-values are "
            "valid for every feature; DiscriminativeSelector keeps the error-count protocol "
            "(statistic='errors')."
        )

    def _fit_errors(self, X, y_codes, lazy, rng, groups=None, key=None):
        n_classes = self.classes_.size

        def compute(generator):  # shared by selectors that differ only in their cut
            return fit_error_counts(self, X, y_codes, n_classes, lazy, generator, groups)

        if key is None and not lazy:  # lazy: not digested
            key = lambda: error_counts_key(self, X, y_codes, n_classes, groups)  # noqa: E731
        result = compute(rng) if key is None else shared_fit(key, compute, rng)
        self.null_ = result.null_used
        if self.p_error != "auto" and self.null_ == "permutation":
            warnings.warn(
                f"p_error={self.p_error!r} does not change the selection: the thresholds use "
                "the permutation null, which does not depend on it; it sets only the analytic "
                "null reported in chance_nulls_['analytic'] (null='analytic' makes the "
                "thresholds use it).",
                UnusedParameterWarning,
                stacklevel=4,
            )
        self.n_errors_ = result.n_errors
        self.constant_features_ = result.constant
        self.n_validation_ = result.n_validation
        self.p_error_ = result.p_error
        self.chance_nulls_ = result.nulls
        in_use = result.nulls[self.null_]
        self.expected_errors_ = in_use.expected_errors
        self.expected_min_errors_ = in_use.expected_min_errors
        self.pvalues_ = in_use.pvalues
        self.min_pvalue_ = in_use.min_pvalue
        self.scores_ = 1.0 - self.n_errors_ / self.n_validation_
        if result.permutations is not None:
            self.permutations_ = result.permutations
            self.null_min_errors_ = result.null_min_errors

    def _fit_distribution(self, X, y_codes, rng):
        if X.shape[0] <= self.classes_.size:
            return self._fit_untestable(X.shape[1])
        null = pooled_null(
            X,
            y_codes,
            self.classes_.size,
            rng,
            n_permutations=None if self.n_permutations == "auto" else int(self.n_permutations),
            alpha=self.alpha,
            rule=self.threshold,
            location_weight=1.0 if self.statistic_ == "location" else LOCATION_WEIGHT,
            n_jobs=self.n_jobs,
        )
        self.scores_ = null.scores
        self.pvalues_ = null.pvalues
        self.location_statistics_ = null.location
        self.spread_statistics_ = null.spread
        self.constant_features_ = null.constant
        self.permutations_ = null.permutations
        self.n_null_draws_ = null.n_draws
        self.min_pvalue_ = null.min_pvalue
        self.null_heterogeneity_ = null.heterogeneity
        if null.heterogeneity > HETEROGENEITY_WARNING:
            warnings.warn(
                f"The features' permutation nulls differ: their tail probabilities vary by "
                f"{100 * null.heterogeneity:.0f}% around the pooled null's (0 when alike), so "
                "the pooled p-values are approximate: liberal for features whose null is wider "
                "than most, conservative for the others. Features of very different kinds "
                "(continuous and nearly constant, counts and ratios) are better screened "
                "separately.",
                UserWarning,
                stacklevel=4,
            )

    def _fit_untestable(self, n_features: int):
        """One example per class: no within-class variation, so no feature can be tested."""
        warnings.warn(
            f"With {self.classes_.size} examples for {self.classes_.size} classes no feature "
            "can be tested (the F statistic needs more examples than classes): every p-value "
            "is 1.",
            UserWarning,
            stacklevel=5,
        )
        zeros = np.zeros(n_features)
        self.scores_, self.location_statistics_, self.spread_statistics_ = zeros, zeros, zeros
        self.pvalues_ = np.ones(n_features)
        self.constant_features_ = np.zeros(n_features, bool)
        self.n_null_draws_, self.min_pvalue_, self.null_heterogeneity_ = (0, 0), 1.0, np.nan

    def select_under(self, threshold):
        """The cut and the selection another threshold rule gives on this fit, without a refit.

        Applies ``threshold`` to the fitted scores, p-values and null exactly as ``fit`` applies
        ``self.threshold``: equal to the ``(threshold_, get_support())`` of a selector fitted
        with that threshold and otherwise the same parameters, whenever the null does not
        depend on the rule (always for the analytic null; for a permutation null, when
        ``n_permutations`` is set, since ``"auto"`` draws more for ``"fdr"`` and
        ``"bonferroni"``).

        Parameters
        ----------
        threshold : {"mgm", "max_chance", "fdr", "bonferroni", "all"}, int or float
            A threshold as in the constructor. ``"mgm"``, ``"max_chance"`` and a float rate
            need the errors statistic.

        Returns
        -------
        threshold : float
            The cut, as ``threshold_`` (errors, or the largest selected p-value).
        support : ndarray of bool, shape (n_features,)
            The selected features, as ``get_support()``.

        Examples
        --------
        >>> rng = np.random.default_rng(0)
        >>> X, y = rng.normal(size=(40, 30)), np.repeat([0, 1], 20)
        >>> X[y == 1, 0] += 3
        >>> sel = DiscriminativeSelector("mgm", null="analytic", random_state=0).fit(X, y)
        >>> cut, support = sel.select_under("max_chance")
        >>> bool(support[0]), cut < sel.threshold_
        (True, True)
        """
        check_is_fitted(self)
        if not _is_threshold(threshold):
            raise ValueError(
                f"threshold must be one of {sorted(NAMED_THRESHOLDS)}, an int >= 1 or a "
                f"float in (0, 1); got {threshold!r}."
            )
        needs_errors = threshold in ("mgm", "max_chance") or not isinstance(
            threshold, (str, numbers.Integral)
        )
        if needs_errors and self.statistic_ != "errors":
            raise ValueError(
                f"threshold={threshold!r} is a cut on validation errors; this selector was "
                f"fitted with the {self.statistic_} statistic."
            )
        return self._select(threshold)

    def _select(self, threshold):
        """``(threshold_, support_)`` of ``threshold`` from the fitted scores and p-values."""
        eligible = ~self.constant_features_
        if self.statistic_ == "errors":
            return threshold_in_errors(
                threshold,
                self.n_errors_,
                self.n_validation_,
                self.p_error_,
                n_scored=max(self.n_scored_, 1),
                alpha=self.alpha,
                eligible=eligible,
                pvalues=self.pvalues_,
                expected_errors=self.expected_errors_,
                expected_min_errors=self.expected_min_errors_,
            )
        if threshold in _PVALUE_RULES:
            mask = reject_pvalues(threshold, self.pvalues_, self.alpha, eligible)
        elif threshold == "all":
            mask = eligible.copy()
        else:
            mask = top_k(threshold, -self.scores_, eligible)
        return (float(self.pvalues_[mask].max()) if mask.any() else 0.0), mask

    def permutation_search_scores(self, X, y, permutations, n_jobs=None):
        """``search_score_`` of a refit on each permuted labelling, without the thresholds' null.

        Equal to ``clone(self).fit(X, y[perm]).search_score_`` for every row ``perm`` of
        ``permutations`` (the refit loop is its test oracle), but ``X`` is validated once,
        and each permutation costs one pass of the statistic over all features: the
        thresholds' own null, which ``search_score_`` does not depend on, is not computed.
        Used by :func:`widefs.model_selection.search_certificate`.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
            Training data (an out-of-core matrix is refitted per permutation).
        y : array_like of shape (n_samples,)
            Class labels.
        permutations : ndarray of int, shape (n_permutations, n_samples)
            Index arrays; row ``i`` gives the labelling ``y[permutations[i]]``.
        n_jobs : int, default=None
            Permutations (errors) or blocks of features (distribution) scored in parallel
            threads. Results do not depend on it.

        Returns
        -------
        scores : ndarray of float, shape (n_permutations,)
        """
        from widefs.univariate._search_scores import permutation_best_scores

        return permutation_best_scores(self, X, y, np.asarray(permutations), n_jobs)

    def _nothing_selected_message(self) -> str:
        unit = "errors" if self.statistic_ == "errors" else "p-value"
        message = (
            f"No feature passed the {self.threshold!r} threshold ({self.statistic_} statistic"
            + (f", {self.null_} null, cut {self.threshold_:.3g} {unit}" if unit == "errors" else "")
            + "); transform will return an empty matrix."
        )
        return message + self._floor_note()

    def _floor_note(self) -> str:
        """Why the p-value floor, not the data, can have decided an empty FDR/Bonferroni pick."""
        if self.threshold not in _PVALUE_RULES:
            return ""
        m = max(self.n_scored_, 1)
        floor = self.min_pvalue_
        if floor <= self.alpha / m:
            return ""
        at_floor = int(np.sum(self.pvalues_[~self.constant_features_] <= floor))
        if self.threshold == "bonferroni":
            need = "Bonferroni cannot reject any feature"
        else:
            need = (
                f"Benjamini-Hochberg can reject only when at least "
                f"{int(np.ceil(m * floor / self.alpha))} features sit at that floor "
                f"({at_floor} do)"
            )
        fix = (
            "use more permutations"
            if getattr(self, "null_", "permutation") == "permutation"
            else "use more examples per validation part or statistic='distribution'"
        )
        return (
            f" The smallest p-value this null can give is {floor:.2g}, above alpha / M = "
            f"{self.alpha / m:.2g}: {need}, so the floor, not the data, decided; {fix}."
        )
