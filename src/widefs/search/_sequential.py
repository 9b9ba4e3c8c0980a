"""Sequential forward / backward selection (SFS / SBS) with leave-one-out scoring."""

from __future__ import annotations

import numbers

import numpy as np

from widefs._compat import Interval, StrOptions
from widefs.search._base import SearchProblem, SearchResult, WrapperSelector, logger
from widefs.search._docs import search_docs

__all__ = ["SequentialSelector"]


@search_docs
class SequentialSelector(WrapperSelector):
    """Sequential forward or backward feature selection, scored by leave-one-out.

    Forward selection (SFS) starts from no feature and adds, at each step, the feature
    whose addition gives the best leave-one-out score; backward selection (SBS) starts
    from all features and removes the one whose removal scores best. All candidates of a
    step are scored at once by the incremental evaluators of :mod:`widefs.search`.

    Ties go to fewer features, then to the lowest feature index: a step takes the
    first best candidate; with ``n_features="auto"`` a forward step must improve the
    score by more than ``tol`` to be taken, and a backward step is taken unless it
    lowers the score by more than ``tol``. With a fixed ``KNNEvaluator(k)`` and an int
    ``n_features``, forward selection picks the same features as scikit-learn's
    ``SequentialFeatureSelector(KNeighborsClassifier(k), cv=LeaveOneOut())`` wherever
    that estimator's tie rules agree with ours (no distance or vote ties).

    Parameters
    ----------
    direction : {"forward", "backward"}, default="forward"
    n_features : "auto", int or float, default="auto"
        ``"auto"``: stop when the score stops improving (see ``tol``); an int: that
        many features (fewer than there are, as in scikit-learn's
        ``SequentialFeatureSelector``); a float in (0, 1]: that fraction of the features
        (at least 1).
    tol : float, default=0.0
        Minimum gain (forward) or largest tolerated loss (backward) for ``"auto"``.
    %(selector_params)s

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
    %(selector_attrs)s

    %(selector_see_also)s

    Examples
    --------
    >>> import numpy as np
    >>> from widefs.search import KNNEvaluator
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 30))
    >>> y = (2 * X[:, 3] + X[:, 17] > 0).astype(int)
    >>> sel = SequentialSelector(n_features=2, evaluator=KNNEvaluator(3)).fit(X, y)
    >>> np.flatnonzero(sel.get_support()).tolist(), round(sel.score_, 3)
    ([3, 17], 0.9)
    >>> auto = SequentialSelector(evaluator=KNNEvaluator(3)).fit(X, y)
    >>> [step["feature"] for step in auto.history_]
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
        self, direction="forward", *, n_features="auto", tol=0.0, evaluator=None, verbose=0
    ):
        self.direction = direction
        self.n_features = n_features
        self.tol = tol
        self.evaluator = evaluator
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

    @staticmethod
    def _finished(size: int, p: int, target, forward: bool) -> bool:
        """Whether the subset has reached its size (or cannot grow or shrink further)."""
        if forward:
            return size == p or (target is not None and size >= target)
        return size == 1 or (target is not None and size <= target)

    def _best_move(self, problem: SearchProblem, mask, state, current: float, target):
        """The first best candidate move ``(feature, score)``; ``None`` when ``"auto"`` stops."""
        ev, crit = problem.evaluator, problem.criterion
        forward = self.direction == "forward"
        size = int(mask.sum())
        cands = np.flatnonzero(mask != forward)
        # A forward step of "auto" is taken only when it beats the current subset (tol
        # >= 0): moves that provably score below it need not be evaluated to the end.
        beat = None
        if forward and target is None and size > 0:
            beat = ev.predict_state(state)
            if float(crit.score(beat)) != current:  # (they agree: the same LOO vote)
                beat = None
        scores = ev.score_moves(state, cands, forward, crit, n_jobs=problem.n_jobs, baseline=beat)
        b = int(np.argmax(scores))  # first maximum: the lowest feature index
        new = float(scores[b])
        if target is None and size > 0:
            accept = new - current > self.tol if forward else current - new <= self.tol
            if not accept:
                return None
        return int(cands[b]), new

    def _search(self, problem: SearchProblem) -> SearchResult:
        """Greedy steps from the empty (forward) or full (backward) subset."""
        ev = problem.evaluator
        p = problem.n_features
        target = self._target_size(p)
        forward = self.direction == "forward"
        mask = np.full(p, not forward)
        state = ev.initial_state(mask)
        history = []
        current = -np.inf
        if not forward:
            current = float(problem.criterion.score(ev.predict_state(state)))
            history.append({"step": 0, "feature": None, "n_features": p, "score": current})
        step = 0
        while not self._finished(int(mask.sum()), p, target, forward):
            move = self._best_move(problem, mask, state, current, target)
            if move is None:
                break
            f, current = move
            mask[f] = forward
            state = ev.apply_move(state, f, add=forward)
            step += 1
            history.append(
                {"step": step, "feature": f, "n_features": int(mask.sum()), "score": current}
            )
            if self.verbose:
                logger.info("%s step: feature %d -> score %.4f", self.direction, f, current)
        return SearchResult(support=mask, score=float(current), history=history)
