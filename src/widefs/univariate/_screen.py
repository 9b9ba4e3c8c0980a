"""The class-difference screen: per-feature p-values valid for every kind of feature, then FDR."""

from __future__ import annotations

import numbers
import warnings

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import validate_data

from widefs._compat import Interval, StrOptions, fit_context
from widefs._utils import SupervisedSelectorMixin, is_lazy_matrix, validate_lazy_xy
from widefs.exceptions import NothingSelectedWarning
from widefs.stats import (
    binary_exact_pvalues,
    fit_f_dist,
    looks_like_counts,
    moderated_f,
    tarone_testable,
    voom,
)
from widefs.univariate._kinds import (
    COUNTS,
    GAUSSIAN,
    KIND_NAMES,
    RANKED,
    TWO_VALUED,
    class_design,
    first_pass,
)
from widefs.univariate._lazy import LazyTransformMixin
from widefs.univariate._rank_null import MAX_UNTIED_DRAWS, STRATUM_DRAWS, rank_branch
from widefs.univariate._thresholds import top_k

__all__ = ["ClassDifferenceScreen", "auto_spread_weight"]

#: Smallest class size at which the spread statistic gets a share of the level, and the share.
SPREAD_MIN_CLASS = 12
SPREAD_WEIGHT = 0.35


def auto_spread_weight(class_sizes) -> float:
    """Share of the level given to the spread test: 0 below 12 examples in the smallest class.

    With fewer examples per class the spread test has almost no power at the levels
    Benjamini-Hochberg uses (measured: see the methods page), so any share given to it
    would only cost power on mean shifts; from 12 on it gets 0.35.

    Parameters
    ----------
    class_sizes : array_like of int
        Examples per class.

    Returns
    -------
    float
        The spread test's share of the level.

    See Also
    --------
    ClassDifferenceScreen : uses it with ``spread_weight="auto"``.

    Examples
    --------
    >>> auto_spread_weight([4, 4]), auto_spread_weight([15, 15, 30])
    (0.0, 0.35)
    """
    return SPREAD_WEIGHT if int(np.min(class_sizes)) >= SPREAD_MIN_CLASS else 0.0


class ClassDifferenceScreen(
    LazyTransformMixin, SupervisedSelectorMixin, SelectorMixin, BaseEstimator
):
    """Screen features for class differences with p-values valid for every kind of feature.

    Every feature gets a p-value that is valid *for that feature* (not only on average over
    features), from the reference that fits its kind (``kinds_``):

    - **gaussian** (most continuous features): limma's moderated F (Smyth 2004) of the class
      means, with variances shrunk toward a prior fitted across these features
      (:func:`widefs.stats.moderated_f`); from 12 examples in the smallest class also the
      moderated F of the absolute deviations from the class means (the spread), the two
      combined by a weighted Bonferroni ``min(1, p_loc / (1 - w), p_spread / w)``.
    - **two_valued** (present / absent, a variant): the exact conditional p-value given the
      margins, over every relabelling (:func:`widefs.stats.binary_exact_pvalues`).
    - **ranked** (skewed, heavy-tailed or tied): the same statistics on mid-ranks, with a
      permutation null pooled only among features with the same amount of ties.
    - **counts** (a whole matrix of raw counts, ``counts``): voom's log-CPM and precision
      weights (Law et al. 2014), then the weighted moderated F, as limma-voom does.

    The selection is Benjamini-Hochberg (``"fdr"``) or Bonferroni on ``pvalues_``, counting
    only features whose smallest exact attainable p-value could pass (Tarone 1990, Gilbert
    2005): rare two-valued features cost the others nothing. An int k keeps the k smallest p-values.

    Parameters
    ----------
    threshold : {"fdr", "bonferroni"} or int, default="fdr"
        The rule applied to ``pvalues_``.
    alpha : float, default=0.05
        Level of ``"fdr"`` and ``"bonferroni"``.
    spread_weight : "auto" or float in [0, 1), default="auto"
        Share of the level given to the spread test. ``"auto"``: 0.35 when the smallest class
        has at least 12 examples, else 0 (see :func:`auto_spread_weight`).
    counts : "auto" or bool, default="auto"
        Treat ``X`` as raw counts (voom). ``"auto"``: when :func:`widefs.stats.looks_like_counts`
        says so (an in-memory matrix of non-negative integers, zeros among them, reaching 1000).
    random_state : int, RandomState instance or None, default=None
        Seeds the permutations of the ranked features (the only random part).

    Attributes
    ----------
    pvalues_ : ndarray of shape (n_features,)
        Per-feature p-values (1 for constant features).
    scores_ : ndarray of shape (n_features,)
        ``-log10(pvalues_)``: higher is more discriminative.
    min_pvalues_ : ndarray of shape (n_features,)
        Smallest p-value each feature could get: 0 (gaussian, counts), the exact floor
        (two_valued), ``1 / (draws + 1)`` of its stratum (ranked), 1 (constant).
    kinds_ : ndarray of int8, shape (n_features,)
        Each feature's kind, an index into ``kind_names_``.
    kind_names_ : tuple of str
        ``("constant", "two_valued", "gaussian", "ranked", "counts")``.
    kind_counts_ : dict of str to int
        Features of each kind.
    location_statistics_, spread_statistics_ : ndarray of shape (n_features,)
        The F statistics behind the p-values (moderated for gaussian and counts, on mid-ranks
        for ranked, 0 for the others; spread 0 when its weight is 0).
    prior_ : dict
        ``{"location": (s0^2, d0), "spread": (s0^2, d0) or None}``, the moderated F's prior.
    spread_weight_ : float
        The share of the level the spread test had.
    counts_ : bool
        Whether ``X`` was treated as counts (voom).
    note_ : str
        What was done to the data, in one sentence ("" when nothing).
    testable_ : ndarray of bool, shape (n_features,)
        Features the rule counted (Tarone).
    threshold_ : float
        The largest selected p-value (0 when none).
    n_scored_ : int
        Non-constant features.
    constant_features_ : ndarray of bool, shape (n_features,)
    search_score_ : float
        The best score, ``max(scores_)`` over non-constant features.
    classes_ : ndarray
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when ``X`` has string column names.

    See Also
    --------
    DiscriminativeSelector : the chance-aware error-count protocol (MGM, E[X(1)]).
    widefs.stats.moderated_f : the moderated F.

    Notes
    -----
    ``X`` may be a dask array, a zarr array or a numpy memmap: it is read one block of
    columns at a time, twice for the ranked features (their strata are known after the first
    pass). Counts must be in memory (voom needs each sample's library size).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> y = np.repeat([0, 1], 6)
    >>> X = rng.normal(size=(12, 500)); X[:, :10] += 2.5 * y[:, None]
    >>> screen = ClassDifferenceScreen(random_state=0).fit(X, y)
    >>> int(screen.get_support()[:10].sum()) >= 8, int(screen.get_support()[10:].sum()) <= 2
    (True, True)
    >>> screen.kind_counts_["gaussian"] >= 495
    True
    """

    _parameter_constraints: dict = {
        "threshold": [
            StrOptions({"fdr", "bonferroni"}),
            Interval(numbers.Integral, 1, None, closed="left"),
        ],
        "alpha": [Interval(numbers.Real, 0, 1, closed="neither")],
        "spread_weight": [StrOptions({"auto"}), Interval(numbers.Real, 0, 1, closed="left")],
        "counts": [StrOptions({"auto"}), "boolean"],
        "random_state": ["random_state"],
    }

    def __init__(
        self, threshold="fdr", *, alpha=0.05, spread_weight="auto", counts="auto", random_state=None
    ):
        self.threshold = threshold
        self.alpha = alpha
        self.spread_weight = spread_weight
        self.counts = counts
        self.random_state = random_state

    def _validate(self, X, y):
        if is_lazy_matrix(X):
            y = validate_lazy_xy(self, X, y)
        else:
            X, y = validate_data(self, X, y, dtype=[np.float64, np.float32], ensure_min_samples=2)
        check_classification_targets(y)
        self.classes_, codes = np.unique(y, return_inverse=True)
        if self.classes_.size < 2:
            raise ValueError(
                f"ClassDifferenceScreen needs at least 2 classes; got 1 class "
                f"({self.classes_.tolist()[0]!r})."
            )
        return X, codes

    def _resolve_counts(self, X) -> bool:
        if self.counts == "auto":
            return (not is_lazy_matrix(X)) and looks_like_counts(X)
        if self.counts and is_lazy_matrix(X):
            raise ValueError("counts=True needs X in memory (voom uses every library size).")
        return bool(self.counts)

    @fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Compute every feature's p-value and apply the threshold.

        Parameters
        ----------
        X : array_like, dask array, zarr array or memmap of shape (n_samples, n_features)
            Training data.
        y : array_like of shape (n_samples,)
            Class labels.

        Returns
        -------
        self : ClassDifferenceScreen
            The fitted screen.
        """
        X, codes = self._validate(X, y)
        C = self.classes_.size
        sizes = np.bincount(codes, minlength=C)
        self.counts_ = self._resolve_counts(X)
        weight = auto_spread_weight(sizes) if self.spread_weight == "auto" else self.spread_weight
        self.spread_weight_ = 0.0 if self.counts_ else float(weight)
        self.kind_names_ = KIND_NAMES
        if X.shape[0] <= C:
            self._untestable(X.shape[1])
        else:
            self._score(X, codes, sizes, check_random_state(self.random_state))
        self.constant_features_ = self.kinds_ == 0
        self.n_scored_ = int((~self.constant_features_).sum())
        self.kind_counts_ = {
            name: int(np.sum(self.kinds_ == k)) for k, name in enumerate(KIND_NAMES)
        }
        with np.errstate(divide="ignore"):
            self.scores_ = -np.log10(np.maximum(self.pvalues_, 1e-300))
        scored = self.scores_[~self.constant_features_]
        self.search_score_ = float(scored.max()) if scored.size else -np.inf
        self.testable_, self.threshold_, self.support_ = self._select()
        if not self.support_.any():
            warnings.warn(
                f"No feature passed the {self.threshold!r} threshold at alpha={self.alpha}; "
                "transform will return an empty matrix.",
                NothingSelectedWarning,
                stacklevel=3,
            )
        return self

    def _untestable(self, m):
        warnings.warn(
            f"With {self.classes_.size} examples for {self.classes_.size} classes no feature "
            "can be tested (no within-class variation): every p-value is 1.",
            UserWarning,
            stacklevel=4,
        )
        self.pvalues_, self.min_pvalues_ = np.ones(m), np.ones(m)
        self.location_statistics_, self.spread_statistics_ = np.zeros(m), np.zeros(m)
        self.kinds_ = np.zeros(m, np.int8)
        self.prior_ = {"location": (np.nan, np.nan), "spread": None}
        self.note_ = ""

    def _score(self, X, codes, sizes, rng):
        C = sizes.size
        voomed = voom(X, class_design(codes, C)) if self.counts_ else None
        self.note_ = (
            "The data were read as counts: log-CPM with voom precision weights "
            "(Law et al. 2014), then the weighted moderated F."
            if self.counts_
            else ""
        )
        passed = first_pass(X, codes, C, spread=self.spread_weight_ > 0, counts=voomed)
        m = X.shape[1]
        self.kinds_ = passed.kinds
        self.pvalues_, self.min_pvalues_ = np.ones(m), np.ones(m)
        self.location_statistics_, self.spread_statistics_ = np.zeros(m), np.zeros(m)
        self._parametric(passed)
        self._two_valued(passed, sizes)
        ranked = np.flatnonzero(self.kinds_ == RANKED)
        if ranked.size:
            n_scored = int(np.sum(self.kinds_ != 0))
            untied = int(min(MAX_UNTIED_DRAWS, max(STRATUM_DRAWS, np.ceil(n_scored / self.alpha))))
            branch = rank_branch(
                X,
                ranked,
                passed.ties[ranked],
                codes,
                C,
                self.spread_weight_,
                rng,
                untied_draws=untied,
            )
            self.pvalues_[ranked], self.min_pvalues_[ranked] = branch.pvalues, branch.min_pvalues
            self.location_statistics_[ranked] = branch.location
            self.spread_statistics_[ranked] = branch.spread

    def _parametric(self, passed):
        """Moderated F of the gaussian (or counts) features, priors fitted on them alone."""
        modelled = (self.kinds_ == GAUSSIAN) | (self.kinds_ == COUNTS)
        coefs = list(range(1, self.classes_.size))
        loc = passed.location
        prior = fit_f_dist(loc.variances[modelled], loc.df_residual[modelled])
        test = moderated_f(loc, coefs, prior=prior)
        p = test.pvalues
        self.prior_ = {"location": prior, "spread": None}
        self.location_statistics_[modelled] = test.statistics[modelled]
        w = self.spread_weight_
        if passed.spread is not None and w > 0:
            spr = passed.spread
            prior_s = fit_f_dist(spr.variances[modelled], spr.df_residual[modelled])
            spread = moderated_f(spr, coefs, prior=prior_s)
            self.prior_["spread"] = prior_s
            self.spread_statistics_[modelled] = spread.statistics[modelled]
            p = np.minimum(p / (1.0 - w), spread.pvalues / w)
        self.pvalues_[modelled] = np.minimum(p[modelled], 1.0)
        self.min_pvalues_[modelled] = 0.0

    def _two_valued(self, passed, sizes):
        two = np.flatnonzero(self.kinds_ == TWO_VALUED)
        if not two.size:
            return
        try:
            p, floors = binary_exact_pvalues(passed.carriers[two], sizes)
        except ValueError:
            # Too many classes to enumerate the tables: permutations on ranks instead.
            self.kinds_[two] = RANKED
            k = passed.carriers[two].sum(axis=1).astype(float)
            n = float(sizes.sum())
            passed.ties[two] = (k**3 - k + (n - k) ** 3 - (n - k)) / (n**3 - n)
            return
        self.pvalues_[two], self.min_pvalues_[two] = p, floors
        self.location_statistics_[two] = self._binary_f(passed.carriers[two], sizes)

    @staticmethod
    def _binary_f(a, sizes):
        """One-way F of the 0/1 values from the carriers per class."""
        n, C = sizes.sum(), sizes.size
        k = a.sum(axis=1)
        between = (a * a / sizes).sum(axis=1) - k * k / n
        within = k - (a * a / sizes).sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            F = (between / (C - 1)) / (within / (n - C))
        return np.where(np.isnan(F), 0.0, F)

    def _select(self):
        eligible = self.kinds_ != 0
        if not isinstance(self.threshold, str):
            mask = top_k(self.threshold, self.pvalues_, eligible)
            return eligible, (float(self.pvalues_[mask].max()) if mask.any() else 0.0), mask
        testable = np.zeros(eligible.shape, bool)
        # Tarone counts out the features whose *test* cannot reach a level: the exact floors of
        # two-valued features. A ranked feature's floor is a Monte Carlo resolution, not a
        # property of its test: it stays counted.
        floors = np.where(self.kinds_ == TWO_VALUED, self.min_pvalues_, 0.0)
        t_mask, K = tarone_testable(floors[eligible], self.alpha)
        testable[np.flatnonzero(eligible)[t_mask]] = True
        from widefs.stats import benjamini_hochberg

        mask = np.zeros(eligible.shape, bool)
        if testable.any():
            if self.threshold == "bonferroni":
                mask = testable & (self.pvalues_ <= self.alpha / K)
            else:
                mask[testable] = benjamini_hochberg(self.pvalues_[testable]) <= self.alpha
        return testable, (float(self.pvalues_[mask].max()) if mask.any() else 0.0), mask
