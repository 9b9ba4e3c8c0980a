"""Sequential forward / backward selection (SFS / SBS) with leave-one-out scoring."""

from __future__ import annotations

import numbers

import numpy as np

from widefs._compat import Interval, StrOptions
from widefs.search._base import SearchProblem, SearchResult, WrapperSelector, logger

__all__ = ["SequentialSelector"]

_COMMON_PARAMS = """
    estimator : {"knn", "naive_bayes"} or classifier, default="knn"
        ``"knn"``: k-nearest neighbours, squared Euclidean distance on numeric columns
        plus a 0/1 mismatch per nominal column, distance ties to the lower row index, vote
        ties to the class of the nearest tied neighbour; scored by exact incremental
        leave-one-out. ``"naive_bayes"``: Gaussian on numeric and categorical (Laplace
        ``alpha``) on nominal columns; closed-form leave-one-out. Any other scikit-learn
        classifier is scored by ``cross_val_predict`` with ``cv`` (much slower).
    n_neighbors : "auto" or int, default="auto"
        k for ``"knn"``. ``"auto"``: chosen before the search by leave-one-out on all
        features from ``k_grid`` (Soares 2010, Section 5.2.3), ties to the smaller k.
    k_grid : array-like of int, default=None
        Candidate k for ``"auto"``; ``None`` is the dissertation's
        ``{1..10, 15, 25, n/4, n/2, 3n/4}`` (k < n).
    target_class : label, default=None
        Score only this class (the class-specific criterion of CEFS): with
        ``class_criterion="recall"`` the leave-one-out accuracy on its instances.
        The classifier still learns from all instances.
    class_criterion : {"recall", "balanced"}, default="recall"
        With ``target_class``: ``"recall"`` is Soares' criterion; ``"balanced"`` averages
        that recall with the specificity (instances of other classes not predicted as the
        target), so a classifier that calls everything the target scores 1/2.
    categorical_features : "from_dtype", None or array-like, default="from_dtype"
        Nominal columns (indices, names or a boolean mask). ``"from_dtype"``:
        non-numeric columns of a DataFrame or object array. Nominal values are compared
        for equality only; a missing nominal value is its own category.
    var_smoothing : float, default=1e-9
        Naive Bayes: added to every variance, times the largest variance of any numeric
        column (fixed for all subsets and folds, unlike ``GaussianNB``'s per-fit value).
    alpha : float, default=1.0
        Naive Bayes: Laplace smoothing of the category counts.
    cv : int, cross-validation generator or iterable, default=5
        Only for a scikit-learn ``estimator``: the folds of ``cross_val_predict``
        (an int means stratified k-fold, capped by the smallest class).
    n_jobs : int, default=None
        Threads for scoring candidates (processes for a scikit-learn estimator).
        Results do not depend on it.
    verbose : int, default=0
        Progress through the ``widefs.search`` logger."""

_COMMON_ATTRS = """
    search_score_ : float
        The score the search maximized, ``score_`` (higher is better): what
        :func:`widefs.model_selection.search_certificate` compares with the same search
        on permuted labels.
    n_neighbors_ : int or None
        k used by ``"knn"``.
    k_scores_ : dict or None
        Leave-one-out score of each k tried by ``"auto"``.
    evaluator_factory_ : EvaluatorFactory
        The classifier kind and settings (with the chosen k) that scored the subsets;
        its ``fit_model`` fits that classifier on a subset.
    categorical_features_ : ndarray of bool
        Columns treated as nominal.
    classes_ : ndarray
        Class labels.
    n_features_in_ : int
        Number of features seen in ``fit``.
    feature_names_in_ : ndarray of str
        Only when ``X`` has string column names."""

_SEE_ALSO = """
    See Also
    --------
    SequentialSelector : Forward or backward selection on the same evaluators.
    GeneticSelector : The genetic algorithm on the same evaluators.
    EvaluatorFactory : The leave-one-out evaluators and fitted classifiers.
    widefs.ensemble.ClassSpecificEnsemble : One search per class (CEFS)."""


class SequentialSelector(WrapperSelector):
    __doc__ = f"""Sequential forward or backward feature selection, scored by leave-one-out.

    Forward selection (SFS) starts from no feature and adds, at each step, the feature
    whose addition gives the best leave-one-out score; backward selection (SBS) starts
    from all features and removes the one whose removal scores best. All candidates of a
    step are scored at once by the incremental evaluators of :mod:`widefs.search`.

    Ties go to fewer features, then to the lowest feature index: a step takes the
    first best candidate; with ``n_features="auto"`` a forward step must improve the
    score by more than ``tol`` to be taken, and a backward step is taken unless it
    lowers the score by more than ``tol``. With a fixed ``n_neighbors`` and an int
    ``n_features``, forward selection picks the same features as scikit-learn's
    ``SequentialFeatureSelector(KNeighborsClassifier(k), cv=LeaveOneOut())`` wherever
    that estimator's tie rules agree with ours (no distance or vote ties).

    Parameters
    ----------
    direction : {{"forward", "backward"}}, default="forward"
    n_features : "auto", int or float, default="auto"
        ``"auto"``: stop when the score stops improving (see ``tol``); an int: that
        many features (fewer than there are, as in scikit-learn's
        ``SequentialFeatureSelector``); a float in (0, 1]: that fraction of the features
        (at least 1).
    tol : float, default=0.0
        Minimum gain (forward) or largest tolerated loss (backward) for ``"auto"``.
    {_COMMON_PARAMS}

    Attributes
    ----------
    support_ : ndarray of bool
        Selected features.
    score_ : float
        Leave-one-out score of the selected subset.
    history_ : list of dict
        One entry per step: ``step``, ``feature`` (index added or removed; ``None`` for
        the starting full set of backward selection), ``n_features`` and ``score``
        after the step.
    {_COMMON_ATTRS}
    {_SEE_ALSO}

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 30))
    >>> y = (2 * X[:, 3] + X[:, 17] > 0).astype(int)
    >>> sel = SequentialSelector(n_features=2, n_neighbors=3).fit(X, y)
    >>> np.flatnonzero(sel.get_support()).tolist(), round(sel.score_, 3)
    ([3, 17], 0.9)
    >>> [step["feature"] for step in SequentialSelector(n_neighbors=3).fit(X, y).history_]
    [3, 17, 13]
    """

    _parameter_constraints: dict = {
        **WrapperSelector._parameter_constraints,
        "direction": [StrOptions({"forward", "backward"})],
        "n_features": [
            StrOptions({"auto"}),
            Interval(numbers.Integral, 1, None, closed="left"),
            Interval(numbers.Real, 0, 1, closed="right"),
        ],
        "tol": [Interval(numbers.Real, 0, None, closed="left")],
    }

    def __init__(
        self,
        direction="forward",
        *,
        n_features="auto",
        tol=0.0,
        estimator="knn",
        n_neighbors="auto",
        k_grid=None,
        target_class=None,
        class_criterion="recall",
        categorical_features="from_dtype",
        var_smoothing=1e-9,
        alpha=1.0,
        cv=5,
        n_jobs=None,
        verbose=0,
    ):
        self.direction = direction
        self.n_features = n_features
        self.tol = tol
        self.estimator = estimator
        self.n_neighbors = n_neighbors
        self.k_grid = k_grid
        self.target_class = target_class
        self.class_criterion = class_criterion
        self.categorical_features = categorical_features
        self.var_smoothing = var_smoothing
        self.alpha = alpha
        self.cv = cv
        self.n_jobs = n_jobs
        self.verbose = verbose

    def _check_search_params(self, n_features: int) -> None:
        # As scikit-learn's SequentialFeatureSelector: an int must leave something to select.
        n = self.n_features
        if isinstance(n, numbers.Integral) and not isinstance(n, bool) and n >= n_features:
            raise ValueError(
                f"n_features={n} must be smaller than the number of features, but X has "
                f"{n_features} feature(s); use a smaller n_features or 'auto'."
            )

    def _target_size(self, p: int):
        if self.n_features == "auto":
            return None
        if isinstance(self.n_features, numbers.Integral) and not isinstance(self.n_features, bool):
            return int(self.n_features)
        return max(1, int(self.n_features * p))

    def _search(self, problem: SearchProblem) -> SearchResult:
        """Greedy steps from the empty (forward) or full (backward) subset."""
        ev, crit = problem.evaluator, problem.criterion
        p = problem.n_features
        target = self._target_size(p)
        forward = self.direction == "forward"
        mask = np.zeros(p, dtype=bool) if forward else np.ones(p, dtype=bool)
        state = ev.initial_state(mask)
        history = []
        step = 0
        if forward:
            current = -np.inf
        else:
            current = float(crit.score(ev.predict_state(state)))
            history.append({"step": 0, "feature": None, "n_features": p, "score": current})
        while True:
            size = int(mask.sum())
            if forward and (size == p or (target is not None and size >= target)):
                break
            if not forward and (size == 1 or (target is not None and size <= target)):
                break
            cands = np.flatnonzero(mask != forward)
            # A forward step of "auto" is taken only when it beats the current subset (tol
            # >= 0): moves that provably score below it need not be evaluated to the end.
            beat = None
            if forward and target is None and size > 0:
                beat = ev.predict_state(state)
                if float(crit.score(beat)) != current:  # (they agree: the same LOO vote)
                    beat = None
            scores = ev.score_moves(state, cands, forward, crit, n_jobs=self.n_jobs, baseline=beat)
            b = int(np.argmax(scores))  # first maximum: the lowest feature index
            new = float(scores[b])
            if target is None and size > 0:
                accept = new - current > self.tol if forward else current - new <= self.tol
                if not accept:
                    break
            f = int(cands[b])
            mask[f] = forward
            state = ev.apply_move(state, f, add=forward)
            current = new
            step += 1
            history.append(
                {"step": step, "feature": f, "n_features": int(mask.sum()), "score": new}
            )
            if self.verbose:
                logger.info("%s step: feature %d -> score %.4f", self.direction, f, new)
        return SearchResult(support=mask, score=float(current), history=history)
