"""The class-difference screen: per-feature p-values valid for every kind of feature, then FDR."""

from __future__ import annotations

import numbers
import warnings

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
    feature_blocks,
    is_lazy_matrix,
    is_sparse_matrix,
    validate_lazy_xy,
)
from widefs._utils._spill import SpillFile, closed_on_error
from widefs.exceptions import NothingSelectedWarning
from widefs.stats import (
    binary_exact_pvalues,
    looks_like_counts,
    voom,
)
from widefs.univariate._kinds import (
    KIND_NAMES,
    RANKED,
    TWO_VALUED,
    class_design,
    first_pass,
    pooled_variances,
)
from widefs.univariate._lazy import LazyTransformMixin
from widefs.univariate._rank_null import MAX_UNTIED_DRAWS, STRATUM_DRAWS, rank_branch
from widefs.univariate._rank_settle import untied_decision
from widefs.univariate._screen_design import no_design, score_with_design, screen_design
from widefs.univariate._screen_moderated import fits_spilled, moderated_branch
from widefs.univariate._screen_select import (
    CodedValues,
    map_spilled,
    scores,
    select,
    summarize,
    tarone,
)

__all__ = ["ClassDifferenceScreen", "auto_spread_weight", "pooled_variances"]

#: Smallest class size at which the spread statistic gets a share of the level, and the share
#: of the ranked features (and of every feature when ``spread_weight`` is a number).
SPREAD_MIN_CLASS = 12
SPREAD_WEIGHT = 0.35
#: Temporaries of the per-feature steps after the first pass, a block of features at a time.
_BLOCK_BYTES = 4 * 2**20


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


def _values(kept) -> np.ndarray:
    return kept.toarray() if isinstance(kept, CodedValues) else kept


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
      combined by a weighted Bonferroni ``min(1, p_loc / (1 - w), p_spread / w)``. With
      ``spread_weight="auto"`` the share ``w`` is 0.5 for features whose pooled variance (no
      labels) is at least twice the median, where a spread difference shows, and 0.02 for
      the others (see the methods page).
    - **two_valued** (present / absent, a variant): the exact conditional p-value given the
      margins, over every relabelling (:func:`widefs.stats.binary_exact_pvalues`).
    - **ranked** (skewed, heavy-tailed or tied): the same statistics on mid-ranks, with a
      permutation null pooled only among features with the same amount of ties.
    - **counts** (a whole matrix of raw counts, ``counts``): voom's log-CPM and precision
      weights (Law et al. 2014), then the weighted moderated F, as limma-voom does.

    With ``covariates`` or ``groups`` given to :meth:`fit` (routed through a ``Pipeline`` by
    metadata routing: requested by default), every test uses the design: the moderated F of
    the class coefficients with the covariates (and blocks) in the linear model, group means
    when every group holds one class, and for two-valued and ranked features permutations
    that respect the groups and keep the covariates' effect (Freedman-Lane); ``design_``
    says which case applied and what each kind of feature got.

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
        Share of the level given to the spread test. ``"auto"``: 0 when the smallest class
        has fewer than 12 examples (see :func:`auto_spread_weight`); else 0.35 for ranked
        features and, for gaussian features, 0.5 or 0.02 by their pooled variance
        (at least twice the median: 0.5). A number: that share for every feature.
    counts : "auto" or bool, default="auto"
        Treat ``X`` as raw counts (voom). ``"auto"``: when :func:`widefs.stats.looks_like_counts`
        says so (an in-memory matrix of non-negative integers, zeros among them, reaching 1000).
    random_state : int, RandomState instance or None, default=None
        Seeds the permutations of the ranked features (the only random part).
    rank_draws : {"settled", "all"}, default="settled"
        How long the null of the ranked features without ties (one for all of them) is
        drawn. ``"settled"``: until the selections of ``"fdr"`` and ``"bonferroni"`` at
        ``alpha`` are settled (see Notes); ``"all"``: every draw (``M / alpha``, between
        100,000 and 200,000), as with an int ``threshold``.

    Attributes
    ----------
    pvalues_ : ndarray of shape (n_features,)
        Per-feature p-values (1 for constant features). An out-of-core fit whose fits spill
        to a temporary file (see Notes) keeps only these in memory: its other per-feature
        arrays are read-only ``numpy.memmap`` views of an unnamed temporary file (freed with
        the last view; pickled as plain arrays).
    scores_ : ndarray of shape (n_features,)
        ``-log10(pvalues_)``: higher is more discriminative (computed from ``pvalues_`` when
        read, not stored).
    min_pvalues_ : ndarray of shape (n_features,)
        Smallest p-value each feature could get: 0 (gaussian, counts), the exact floor
        (two_valued), ``1 / (draws + 1)`` of its stratum's draws (ranked; for the untied
        ones, the draws made), 1 (constant).
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
        The spread test's nominal share: that of the ranked features (0 when it is off).
    spread_weights_ : ndarray of shape (n_features,)
        The share each feature's spread test had (0 for two-valued, counts and constant
        features).
    counts_ : bool
        Whether ``X`` was treated as counts (voom).
    note_ : str
        What was done to the data, in one sentence ("" when nothing).
    design_ : dict
        The design of the fit: ``case`` (``"independent"``, ``"within groups"``, ``"between
        groups"``), ``groups`` (that case in words, e.g. ``"blocks (labels exchanged within
        groups)"``), ``covariates`` (names), ``columns`` (the linear model's) and
        ``statement`` (what each kind of feature got; "" without a design).
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
    ``X`` may be a dask array, a zarr array, a numpy memmap, bits packed in a
    :class:`widefs.utils.PackedBits` or a scipy sparse matrix or array: it is read once, a
    block of whole storage chunks at a time (the ranked features' mid-ranks are kept for the
    rank branch); a sparse ``X`` is converted to CSC once and never densified whole, with the
    same kinds and p-values as the dense matrix. Counts must be in memory or sparse (voom
    needs each sample's library size). Memory beyond one block: the fitted arrays (three
    float64 and six one-byte values per feature; zeros take no memory until written), the
    carriers of two-valued and the mid-ranks of ranked features (a byte each up to 127
    examples) and, while it runs, the fits of the gaussian features (40 bytes each with two
    classes and the spread test; in an unnamed temporary file instead when the fits of an
    out-of-core matrix would exceed 64 MB, and then the mid-ranks and the fitted arrays but
    ``pvalues_`` too); every other step works a block of features at a time.

    The ranked features without ties share one exact permutation null. With
    ``rank_draws="settled"`` it is drawn in doubling chunks, and after each chunk every such
    feature's count gets a Clopper-Pearson interval for its exact p-value (the error 1e-3 over
    the whole fit, split evenly over the checks and features); drawing stops once both rules at
    ``alpha``, with every other p-value fixed, reject the same features at the intervals' upper
    ends as at their lower ends (Gandy & Hahn 2014). The selections are then those of the exact
    p-values except with probability at most 1e-3, and the p-values those of the draws made,
    ``(1 + b) / (1 + B)``: valid estimates at that resolution, coarser for other rules or
    levels applied later (``rank_draws="all"`` for full resolution). A fit that does not
    settle draws them all, as ``"all"`` does.

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

    # The design is data: a Pipeline routes it to the screen without a set_fit_request.
    __metadata_request__fit = {"covariates": True, "groups": True}

    _parameter_constraints: dict = {
        "threshold": [
            StrOptions({"fdr", "bonferroni"}),
            Interval(numbers.Integral, 1, None, closed="left"),
        ],
        "alpha": [Interval(numbers.Real, 0, 1, closed="neither")],
        "spread_weight": [StrOptions({"auto"}), Interval(numbers.Real, 0, 1, closed="left")],
        "counts": [StrOptions({"auto"}), "boolean"],
        "random_state": ["random_state"],
        "rank_draws": [StrOptions({"settled", "all"})],
    }

    def __init__(
        self,
        threshold="fdr",
        *,
        alpha=0.05,
        spread_weight="auto",
        counts="auto",
        random_state=None,
        rank_draws="settled",
    ):
        self.threshold = threshold
        self.alpha = alpha
        self.spread_weight = spread_weight
        self.counts = counts
        self.random_state = random_state
        self.rank_draws = rank_draws

    def _validate(self, X, y):
        if is_lazy_matrix(X):
            X = column_major(X)  # sparse: CSC once, then densified a block of columns at a time
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
        in_memory = is_sparse_matrix(X) or not is_lazy_matrix(X)
        if self.counts == "auto":
            return in_memory and looks_like_counts(X)
        if self.counts and not in_memory:
            raise ValueError("counts=True needs X in memory (voom uses every library size).")
        return bool(self.counts)

    @fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, covariates=None, groups=None):
        """Compute every feature's p-value and apply the threshold.

        Parameters
        ----------
        X : array_like, sparse, dask, zarr or memmap matrix of shape (n_samples, n_features)
            Training data.
        y : array_like of shape (n_samples,)
            Class labels.
        covariates : DataFrame, dict of columns or array_like, optional
            Columns to adjust for (numeric, or categorical: strings, booleans, categoricals);
            see :func:`widefs.stats.build_design`.
        groups : array_like of shape (n_samples,), optional
            Subject, pair, patient or block of every sample; see the class description.

        Returns
        -------
        self : ClassDifferenceScreen
            The fitted screen.
        """
        X, codes = self._validate(X, y)
        plan = screen_design(self.classes_[codes], covariates, groups)
        C = self.classes_.size
        sizes = np.bincount(codes, minlength=C)
        self.counts_ = self._resolve_counts(X)
        weight = auto_spread_weight(sizes) if self.spread_weight == "auto" else self.spread_weight
        self.spread_weight_ = 0.0 if self.counts_ or plan is not None else float(weight)
        self.kind_names_ = KIND_NAMES
        self.design_ = no_design(self.classes_)
        spill = None
        if plan is not None:
            score_with_design(self, X, codes, plan, check_random_state(self.random_state))
        elif X.shape[0] <= C:
            self._untestable(X.shape[1])
        else:
            spill = self._score(X, codes, sizes, check_random_state(self.random_state))
        with closed_on_error(spill):  # an error or an interrupt: the file goes too
            summarize(self, np.empty if spill is None else spill.array)
            if spill is not None:
                map_spilled(self, spill)
        # A positive threshold_ is a selected p-value: the support is read only without one.
        if self.threshold_ == 0.0 and not self.support_.any():
            warnings.warn(
                f"No feature passed the {self.threshold!r} threshold at alpha={self.alpha}; "
                "transform will return an empty matrix.",
                NothingSelectedWarning,
                stacklevel=3,
            )
        return self

    def __getstate__(self):
        # Arrays in a read-only map of a temporary file are pickled as plain arrays (in a
        # copy of the state: it may be the instance's own __dict__).
        state = dict(super().__getstate__())
        for name, value in state.items():
            if isinstance(value, np.memmap):
                state[name] = np.array(value)
        return state

    def _fit_rows(self, X, y, rows):
        """``fit(X[rows], y)`` of a C-ordered numpy ``X``, its rows read in place."""
        from widefs.univariate._rows import screen_fit_rows

        return screen_fit_rows(self, X, y, rows)

    @property
    def scores_(self):
        """``-log10(pvalues_)`` (p-values below 1e-300 count as 1e-300), computed when read:
        a wide fit keeps one array per feature fewer."""
        return scores(self.pvalues_)

    # Kept as codes of their few distinct values (CodedValues: one byte per feature), the
    # float64 arrays made when read; an array set as a whole (a design fit) is kept as is.
    min_pvalues_ = property(
        lambda self: _values(self._min_pvalues),
        lambda self, value: setattr(self, "_min_pvalues", value),
        doc="Smallest p-value each feature could get (made from one-byte codes when read).",
    )
    spread_weights_ = property(
        lambda self: _values(self._spread_weights),
        lambda self, value: setattr(self, "_spread_weights", value),
        doc="Share of the level each feature's spread test had (made when read).",
    )

    def select_under(self, threshold, alpha=None):
        """The cut and the selection another rule gives on this fit, without a refit.

        Applies ``threshold`` at ``alpha`` to ``pvalues_`` exactly as ``fit`` applies its own
        (Tarone's testable set included): equal to the ``(threshold_, get_support())`` of a
        screen fitted with that threshold and alpha and otherwise the same parameters. With
        ``rank_draws="settled"``, ``"fdr"`` and ``"bonferroni"`` at the fit's own alpha are
        exactly that; an int or another alpha uses the p-values of the untied rank null's
        draws made (``rank_draws="all"``: every draw).

        Parameters
        ----------
        threshold : {"fdr", "bonferroni"} or int
            A threshold as in the constructor.
        alpha : float in (0, 1), optional
            Level of ``"fdr"`` and ``"bonferroni"``; ``None``: the screen's ``alpha``.

        Returns
        -------
        threshold : float
            The largest selected p-value (0 when none), as ``threshold_``.
        support : ndarray of bool, shape (n_features,)
            The selected features, as ``get_support()``.

        Examples
        --------
        >>> rng = np.random.default_rng(0)
        >>> y = np.repeat([0, 1], 6)
        >>> X = rng.normal(size=(12, 500)); X[:, :10] += 2.5 * y[:, None]
        >>> screen = ClassDifferenceScreen("fdr", random_state=0).fit(X, y)
        >>> cut, support = screen.select_under("bonferroni")
        >>> bool(cut <= screen.threshold_), int(support.sum()) <= int(screen.get_support().sum())
        (True, True)
        """
        check_is_fitted(self)
        alpha = self.alpha if alpha is None else alpha
        if not (
            threshold in ("fdr", "bonferroni")
            or (
                isinstance(threshold, numbers.Integral)
                and not isinstance(threshold, bool)
                and threshold >= 1
            )
        ):
            raise ValueError(
                f"threshold must be 'fdr', 'bonferroni' or an int >= 1; got {threshold!r}."
            )
        if not (isinstance(alpha, numbers.Real) and 0 < alpha < 1):
            raise ValueError(f"alpha must be a number in (0, 1); got {alpha!r}.")
        _, cut, support = select(self, threshold, alpha)
        return cut, support

    def _untestable(self, m):
        warnings.warn(
            f"With {self.classes_.size} examples for {self.classes_.size} classes no feature "
            "can be tested (no within-class variation): every p-value is 1.",
            UserWarning,
            stacklevel=4,
        )
        self.pvalues_, self.min_pvalues_ = np.ones(m), np.ones(m)
        self.location_statistics_, self.spread_statistics_ = np.zeros(m), np.zeros(m)
        self.spread_weights_ = np.zeros(m)
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
        spread = self.spread_weight_ > 0
        auto = spread and self.spread_weight == "auto"
        passed = first_pass(X, codes, C, spread=spread, counts=voomed, pooled=auto)
        self.kinds_ = passed.kinds
        # Fits large enough to wait in a file: the fitted arrays but pvalues_ go to one too.
        spill = SpillFile() if fits_spilled(passed) else None
        try:
            with closed_on_error(spill):
                moderated_branch(self, passed, spill)
                self._two_valued(passed, sizes)
                self._ranked(X, passed, (codes, C), rng, spill)
        finally:
            if passed.ranks is not None:  # the kept mid-ranks (and their file) go
                passed.ranks.release()
        return spill

    def _ranked(self, X, passed, classes, rng, spill):
        codes, C = classes
        blocks = list(feature_blocks(self.kinds_.size, 1, _BLOCK_BYTES))
        ranked = np.concatenate(
            [np.zeros(0, np.intp)]
            + [b.start + np.flatnonzero(self.kinds_[b] == RANKED) for b in blocks]
        )
        n_scored = sum(int(np.count_nonzero(self.kinds_[b])) for b in blocks)
        self._spread_weights.codes[ranked] = 1  # the nominal share
        if spill is not None:
            # The one-byte arrays go to the file before the rank branch runs, whose
            # temporaries are the fit's peak (its floors are then written in the file).
            self.kinds_ = passed.kinds = spill.store(self.kinds_)
            for coded in (self._min_pvalues, self._spread_weights):
                coded.codes = spill.store(coded.codes)
        if ranked.size:
            untied = int(min(MAX_UNTIED_DRAWS, max(STRATUM_DRAWS, np.ceil(n_scored / self.alpha))))
            kept = passed.ranks
            # Out of core, the first pass kept the ranked features' mid-ranks: no second read.
            reread = kept is None or not np.array_equal(kept.index, ranked)
            branch = rank_branch(
                X if reread else kept,
                ranked if reread else np.arange(ranked.size),
                passed.ties(ranked),
                codes,
                C,
                self.spread_weight_,
                rng,
                untied_draws=untied,
                decision=self._untied_decision(ranked, np.empty if spill is None else spill.array),
            )
            self.pvalues_[ranked] = branch.pvalues
            self._min_pvalues.set(ranked, branch.min_pvalues)
            # put: scattered writes to an array in memory or in a file alike
            self.location_statistics_.put(ranked, branch.location)
            self.spread_statistics_.put(ranked, branch.spread)

    def _untied_decision(self, ranked, new=np.empty):
        """What the untied rank null's draws settle (None: draw them all); ``new(shape,
        dtype)`` makes the testable set (in memory, or in the fit's temporary file)."""
        if self.rank_draws == "all":
            return None
        m = self.kinds_.size
        testable, K = tarone(self.kinds_, self._min_pvalues, self.alpha, out=new(m, bool))
        blocks = feature_blocks(m, 16, _BLOCK_BYTES)
        n_testable = sum(int(np.count_nonzero(testable[b])) for b in blocks)
        testable.put(ranked, False)  # their p-values are the rank branch's
        return untied_decision(self.threshold, self.alpha, self.pvalues_, testable, n_testable, K)

    def _two_valued(self, passed, sizes):
        # By blocks of features: the exact p-values' temporaries (several per feature and
        # class) stay bounded however many features are two-valued.
        for block in feature_blocks(self.kinds_.size, 64 * sizes.size, _BLOCK_BYTES):
            rows = block.start + np.flatnonzero(self.kinds_[block] == TWO_VALUED)
            if not rows.size:
                continue
            carriers = passed.carriers[rows].astype(np.int64)
            try:
                p, floors = binary_exact_pvalues(carriers, sizes)
            except ValueError:
                # Too many classes to enumerate the tables: permutations on ranks instead.
                two = np.flatnonzero(self.kinds_ == TWO_VALUED)
                self.kinds_[two] = RANKED
                k = passed.carriers[two].sum(axis=1).astype(float)
                n = float(sizes.sum())
                passed.add_ties(two, (k**3 - k + (n - k) ** 3 - (n - k)) / (n**3 - n))
                return
            self.pvalues_[rows] = p
            self._min_pvalues.set(rows, floors)
            self.location_statistics_.put(rows, self._binary_f(carriers, sizes))

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
