"""Search certificates: how good would this search look on labels that mean nothing?

A wrapper search (or a rule learner, or a set covering machine) reports the score it
optimized on its own training data. That score is optimistic by an amount nobody states:
the more the search looked, the better its best find looks even when the labels carry no
information. :func:`search_certificate` measures that optimism directly: it re-runs the
*whole* search, with the same parameters, on label permutations and compares the observed
score with the scores reached on permuted labels (Varma & Simon 2006; Ambroise &
McLachlan 2002 for why the search must be inside the null).

Every widefs estimator exposes the score it certifies as ``search_score_`` (always
oriented so that higher is better), so nothing here depends on the estimator's class. An
estimator may also offer ``permutation_search_scores(X, y, permutations, n_jobs=None)`` or
``out_of_fold_predictions(X, Y, folds, n_jobs=None)``, faster paths that share the work not
depending on the labels; each must equal its plain refit loop, which is used otherwise.

A score that reaches its maximum on noise (CN2's training accuracy) cannot make a p-value.
``score="cv"`` certifies the k-fold cross-validated accuracy (or balanced accuracy) of the
whole estimator instead, and ``score="auto"`` (the default) does so when a pilot of fresh
relabellings finds the search score saturated, or when the estimator has none. The null is
sequential (Besag & Clifford 1991): it stops once ``stop_after`` relabellings score at least
as well as the real labels, which settles a large p-value after a few refits; both stay
exact (``docs/certificates.md``). A certificate whose null sits at the maximum, or whose
method selected nothing, says so (:attr:`SearchCertificate.uninformative`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from widefs.model_selection._cross_validated import (
    CrossValidatedScore,
    check_cv_arguments,
    cross_validated_score,
)
from widefs.model_selection._null_scores import (
    draw_design_permutations,
    fitted_clone,
    null_scores,
    sequential_null_scores,
)

__all__ = ["SearchCertificate", "search_certificate"]

#: Quantiles of the null reported by :attr:`SearchCertificate.quantiles`.
NULL_QUANTILES = (0.05, 0.25, 0.5, 0.75, 0.95)
#: What ``score=`` of :func:`search_certificate` accepts.
SCORES = ("auto", "search", "cv")
#: Fresh relabellings of the pilot with which ``score="auto"`` decides whether the search
#: score saturates: one at the maximum switches to the cross-validated score.
AUTO_PILOT = 4


@dataclass(frozen=True)
class SearchCertificate:
    """The observed search score beside its label-permutation null.

    Parameters
    ----------
    observed : float
        ``search_score_`` of the estimator fitted on the real labels.
    null_scores : ndarray of float, shape (n_permutations,)
        ``search_score_`` after re-running the whole search on ``y[permutations[i]]``.
    permutations : ndarray of int, shape (n_permutations, n_samples)
        The index arrays: ``y[permutations[i]]`` is the i-th relabelling.
    estimator : estimator
        The estimator fitted on the real labels.
    score : {"search", "cv"}, default="search"
        What was certified: ``search_score_``, or the cross-validated ``scoring``.
    scoring : {"accuracy", "balanced_accuracy"} or None, default=None
        The cross-validated score (None for ``score="search"``).
    n_selected : ndarray of int or None, default=None
        Features the method used: on the real labels (``score="search"``, classifiers only),
        in each fold (``"cv"``); None when the estimator does not say (``get_support``).
    cross_validation : CrossValidatedScore or None, default=None
        The real labels' out-of-fold predictions (``score="cv"``): ``accuracy``,
        ``balanced_accuracy``, ``class_recall``, ``classes``, ``n_splits``.
    replaced : SearchCertificate or None, default=None
        With ``score="auto"``, the pilot that found the search score at its maximum on a
        relabelling (its null holds the pilot's scores, the last at the maximum; None when
        the estimator has no search score).
    max_score : float, default=1.0
        The largest score possible (every widefs score is an accuracy).
    stop_after : int or None, default=None
        The null was sequential: it ended once ``stop_after`` of its scores reached
        ``observed`` (None: every planned relabelling was scored).
    n_planned : int or None, default=None
        Relabellings planned (None: ``n_permutations``); a sequential null that stopped
        holds fewer.
    design_case : {"independent", "within groups", "between groups"}, default="independent"
        How the relabellings respect ``groups``: all permutations, labels exchanged within
        groups (pairs, blocks), or whole groups exchanged (repeated samples of a patient).
    design_params : tuple of str, default=()
        The design parameters that reached the estimator's ``fit`` (``"covariates"``,
        ``"groups"``), in every fit of the real and the permuted labels.

    Attributes
    ----------
    pvalue : float
        ``(1 + #{i : null_scores[i] >= observed}) / (1 + n_permutations)``: the chance
        that the search, run on labels unrelated to the features, scores at least as well
        (ties count against the observed score, so the p-value is valid, at worst
        conservative, under exchangeable labels). When the sequential null stopped at its
        ``stop_after``-th such score, after ``k`` relabellings, it is ``stop_after / k``
        (Besag & Clifford 1991), also valid.
    stopped : bool
        The sequential null ended before scoring every planned relabelling.
    null_mean : float
        Mean of ``null_scores``.
    excess : float
        ``observed - null_mean``: the part of the score the search's optimism does not
        explain.
    quantiles : dict {float: float}
        The null's 5, 25, 50, 75 and 95 % quantiles.
    n_permutations : int
        Number of relabellings scored (fewer than ``n_planned`` when ``stopped``).
    pvalue_floor : float
        The smallest p-value any observed score could get against this null:
        ``(1 + #{null_scores >= max_score}) / (1 + n_planned)`` (a lower bound when the
        null stopped: the relabellings not scored might reach the maximum too).
    saturated : bool
        At least half of the null scores reach ``max_score``: whatever the observed score,
        the p-value is above 0.5, so the score cannot tell signal from noise.
    selected_nothing : bool
        The method used no feature (in no fold, for ``score="cv"``): its score is that of
        predicting without features.
    uninformative : str or None
        Why the p-value says nothing, ``"nothing selected"`` or ``"null at maximum"``
        (checked in that order), else None. Report these in words, not as a p-value.

    Methods
    -------
    randomized_pvalue(random_state=None)
        The p-value with ties broken at random: exactly uniform under the null (for
        calibration studies; ``pvalue`` is the one to report).

    See Also
    --------
    search_certificate : Computes it.

    Examples
    --------
    >>> cert = SearchCertificate(0.9, np.array([0.7, 0.9, 0.8]), np.zeros((3, 4), int), None)
    >>> cert.pvalue, round(cert.excess, 3)
    (0.5, 0.1)
    """

    observed: float
    null_scores: np.ndarray
    permutations: np.ndarray
    estimator: object = field(repr=False)
    score: str = "search"
    scoring: str | None = None
    n_selected: np.ndarray | None = None
    cross_validation: CrossValidatedScore | None = field(default=None, repr=False)
    replaced: SearchCertificate | None = field(default=None, repr=False)
    max_score: float = 1.0
    stop_after: int | None = None
    n_planned: int | None = None
    design_case: str = "independent"
    design_params: tuple = ()

    @property
    def n_permutations(self) -> int:
        return int(self.null_scores.shape[0])

    @property
    def stopped(self) -> bool:
        planned = self.n_permutations if self.n_planned is None else self.n_planned
        return self.n_permutations < planned

    @property
    def pvalue(self) -> float:
        from widefs.stats import permutation_pvalues

        if self.stopped:
            beats = np.count_nonzero(np.asarray(self.null_scores) >= self.observed)
            return float(beats / self.n_permutations)
        # Higher is better: the lower tail of the negated scores, with the +1 correction.
        null = -np.asarray(self.null_scores, dtype=float)[:, None]
        return float(permutation_pvalues([-float(self.observed)], null)[0])

    def randomized_pvalue(self, random_state=None) -> float:
        """The p-value with ties broken at random and jittered within its step.

        Search scores are often counts (k of n examples right), so null scores equal to the
        observed one are common; :attr:`pvalue` counts them all against the search, which
        keeps it valid but makes it conservative, not uniform, under the null. Here the rank
        of the observed score among the ``n_permutations + 1`` scores is drawn uniformly
        among the tied positions and the p-value spread uniformly over its step: exactly
        uniform on (0, 1) when the labels are exchangeable, and never above :attr:`pvalue`.
        A calibration tool (it is random); report :attr:`pvalue`.

        Parameters
        ----------
        random_state : int, RandomState instance, Generator or None, default=None
            Source of the tie-breaking draws.

        Returns
        -------
        float
            A p-value in ``(0, pvalue]``.

        Examples
        --------
        >>> cert = SearchCertificate(0.9, np.array([0.7, 0.9, 0.8]), np.zeros((3, 4), int), None)
        >>> 0 < cert.randomized_pvalue(0) <= cert.pvalue
        True
        """
        if self.stopped:
            raise ValueError(
                "randomized_pvalue needs every planned relabelling scored; this null stopped "
                "early: certify with stop_after=None for calibration studies."
            )
        rng = np.random.default_rng(
            random_state
            if not isinstance(random_state, np.random.RandomState)
            else random_state.randint(2**32)
        )
        null = np.asarray(self.null_scores, dtype=float)
        greater = np.count_nonzero(null > self.observed)
        ties = np.count_nonzero(null == self.observed)
        rank = greater + 1 + rng.integers(0, ties + 1)  # uniform on the tied ranks
        return float((rank - rng.random()) / (self.n_permutations + 1))

    @property
    def pvalue_floor(self) -> float:
        at_max = np.count_nonzero(np.asarray(self.null_scores) >= self.max_score)
        planned = self.n_permutations if self.n_planned is None else self.n_planned
        return float((1 + at_max) / (1 + planned))

    @property
    def saturated(self) -> bool:
        at_max = np.count_nonzero(np.asarray(self.null_scores) >= self.max_score)
        return bool(2 * at_max >= self.n_permutations)

    @property
    def selected_nothing(self) -> bool:
        return self.n_selected is not None and not np.any(self.n_selected)

    @property
    def uninformative(self) -> str | None:
        if self.selected_nothing:
            return "nothing selected"
        if self.saturated:
            return "null at maximum"
        return None

    @property
    def null_mean(self) -> float:
        return float(np.mean(self.null_scores))

    @property
    def excess(self) -> float:
        return float(self.observed - self.null_mean)

    @property
    def quantiles(self) -> dict:
        values = np.quantile(self.null_scores, NULL_QUANTILES)
        return {q: float(v) for q, v in zip(NULL_QUANTILES, values, strict=True)}


def search_certificate(
    estimator,
    X,
    y,
    *,
    score="auto",
    cv=5,
    scoring="accuracy",
    n_permutations=199,
    stop_after=10,
    random_state=None,
    n_jobs=None,
    groups=None,
    covariates=None,
) -> SearchCertificate:
    """Certify a search: its score on the real labels against the same search on permuted ones.

    The certified score of the estimator fitted on ``(X, y)`` is the observed value; the
    *whole* search then runs again, with the same parameters, on up to ``n_permutations``
    random relabellings. The p-value is the share of relabellings, counting the real one, on
    which the score is at least as high. It measures the search's optimism, not accuracy.

    Parameters
    ----------
    estimator : estimator
        Any widefs selector or learner (cloned, never modified); any classifier for "cv".
    X : array_like or DataFrame of shape (n_samples, n_features)
        Training data.
    y : array_like of shape (n_samples,)
        Class labels.
    score : {"auto", "search", "cv"}, default="auto"
        "search": ``search_score_``, the criterion the search optimized. "cv": the
        ``cv``-fold cross-validated ``scoring`` of the whole estimator, on folds fixed by
        ``random_state``. "auto": "cv" for a classifier without a search score or whose
        score reaches the maximum on one of :data:`AUTO_PILOT` = 4 relabellings (CN2's
        training accuracy), else "search"; ``uninformative`` says when neither informs.
    cv : int, default=5
        Stratified folds of the cross-validated score (at most the smallest class's size).
    scoring : {"accuracy", "balanced_accuracy"}, default="accuracy"
        The cross-validated score.
    n_permutations : int, default=199
        Label permutations planned (the smallest p-value is ``1 / (n_permutations + 1)``).
    stop_after : int or None, default=10
        Sequential null (Besag & Clifford 1991): stop once this many relabellings score at
        least as well as the real labels (p-value ``stop_after / k`` after ``k``, valid; a
        small p-value never stops early). None scores every relabelling.
    random_state : int, RandomState instance or None, default=None
        Seeds the permutations, then the folds, then the pilot, before any work is split.
    n_jobs : int, default=None
        Permutations scored in parallel (joblib); results do not depend on it.
    groups : array_like of shape (n_samples,), optional
        Patient, subject, pair or block of every sample: only the relabellings the design
        allows (:func:`widefs.stats.permutation_indices`), folds that keep groups whole.
    covariates : array_like, DataFrame or dict of columns, optional
        Passed to every refit whose ``fit`` takes them; else refused, naming the estimator.

    Returns
    -------
    SearchCertificate
        ``observed``, ``null_scores``, ``permutations``, ``pvalue``, ``uninformative``, ...

    See Also
    --------
    SearchCertificate : The result.
    nested_evaluate : Honest accuracy of the final model (a different question).

    Examples
    --------
    >>> from widefs.search import KNNEvaluator, SequentialSelector
    >>> X = np.random.default_rng(0).normal(size=(30, 20))
    >>> y = (X[:, 0] + X[:, 1] > 0).astype(int)
    >>> sfs = SequentialSelector(n_features=2, evaluator=KNNEvaluator(3))
    >>> cert = search_certificate(sfs, X, y, n_permutations=19, random_state=0)
    >>> cert.null_scores.shape, cert.permutations.shape, cert.pvalue, cert.uninformative
    ((19,), (19, 30), 0.05, None)
    """
    y = _checked_labels(estimator, X, y, score, cv, scoring, n_permutations, stop_after)
    design = _design(estimator, y, groups, covariates, (score, cv, scoring))
    plan = _plan(y, n_permutations, stop_after, cv, scoring, random_state, n_jobs, design)
    return _certify(estimator, X, y, score, plan)


def _design(estimator, y, groups, covariates, scored) -> dict:
    """The groups (checked), their exchangeability case and the fit parameters to route;
    covariates that the estimator's ``fit`` does not take are refused, naming it; the folds
    of ``scored = (score, cv, scoring)`` checked against the classes and groups."""
    from widefs.model_selection._nested import _design_params
    from widefs.stats import exchangeability_scheme

    if groups is not None:
        groups = np.asarray(groups)
    case = exchangeability_scheme(y, groups).case  # one label per sample, none missing
    params = _design_params(estimator, groups, covariates, y.shape[0])
    if scored[0] == "cv":
        check_cv_arguments(y, scored[1], scored[2], groups)
    return {"groups": groups, "case": case, "params": params}


def _plan(y, n_permutations, stop_after, cv, scoring, random_state, n_jobs, design) -> dict:
    """The permutations and the folds' seed, drawn in that order from ``random_state`` (the
    generator, left for the pilot), and how the null is scored."""
    from sklearn.utils import check_random_state

    rng = check_random_state(random_state)
    groups = design["groups"]
    permutations = draw_design_permutations(y, groups, int(n_permutations), rng)
    seed = int(rng.randint(np.iinfo(np.int32).max))  # of the folds, drawn before any score
    folds = {"n_splits": int(cv), "seed": seed, "scoring": scoring}
    if groups is not None:
        folds["groups"] = groups
    return {
        "permutations": permutations,
        "stop_after": stop_after,
        "n_jobs": n_jobs,
        "folds": folds,
        "rng": rng,
        "cv": cv,  # as given, for the checks' messages
        "design": design,
    }


def _certify(estimator, X, y, score, plan) -> SearchCertificate:
    """The certificate of ``score`` (``"auto"`` resolved by its pilot), sharing label-free
    work between every fit."""

    from widefs._utils import sharing_label_free_work

    design = plan["design"]
    with sharing_label_free_work():
        fitted = fitted_clone(estimator, X, y, design["params"])
        pilot = None
        if score == "auto":
            score, pilot = _auto_score(estimator, fitted, X, y, plan)
        if score == "cv":
            check_cv_arguments(y, plan["cv"], plan["folds"]["scoring"], design["groups"])
            cert = replace(_cv_certificate(estimator, fitted, X, y, plan), replaced=pilot)
        else:
            cert = _search_certificate(estimator, fitted, X, y, plan)
    return replace(cert, design_case=design["case"], design_params=tuple(design["params"]))


def _checked_labels(estimator, X, y, score, cv, scoring, n_permutations, stop_after):
    """``y`` as a 1-d array after one-line checks of every argument of the certificate."""
    from sklearn.utils import check_consistent_length, column_or_1d

    if not hasattr(estimator, "fit") or not hasattr(estimator, "get_params"):
        raise TypeError(
            f"estimator must be a scikit-learn estimator; got {type(estimator).__name__}."
        )
    if score not in SCORES:
        raise ValueError(f"score must be one of {SCORES}, got {score!r}.")
    if int(n_permutations) != n_permutations or n_permutations < 1:
        raise ValueError(f"n_permutations must be a positive integer, got {n_permutations!r}.")
    if stop_after is not None and (
        isinstance(stop_after, bool) or int(stop_after) != stop_after or stop_after < 1
    ):
        raise ValueError(f"stop_after must be a positive integer or None, got {stop_after!r}.")
    if score == "cv" and not hasattr(estimator, "predict"):
        raise TypeError(
            f"score='cv' needs a classifier with predict; {type(estimator).__name__} has none."
        )
    y = column_or_1d(y, warn=False)
    check_consistent_length(X, y)
    return y


def _missing_search_score(estimator) -> TypeError:
    return TypeError(
        f"{type(estimator).__name__} has no search_score_ after fit: search_certificate "
        "needs the score the estimator's search optimized (every widefs selector and "
        "learner exposes it), or score='cv' for any classifier."
    )


def _auto_score(estimator, fitted, X, y, plan):
    """``("cv" or "search", pilot certificate or None)``: what ``score="auto"`` certifies.

    A classifier's search score is scored on fresh relabellings (drawn after the null's
    permutations and the folds' seed, so the choice is independent of both) one at a time,
    until one reaches the maximum or :data:`AUTO_PILOT` do not. A search score that reaches
    it on relabellings puts that much mass at the p-value's floor (CN2's training accuracy
    on wide data: most of it), so it could not reject. The choice depends on relabellings
    only, never on the real labels' order, so either p-value stays exact.
    """
    if not hasattr(estimator, "predict"):
        return "search", None
    if not hasattr(fitted, "search_score_"):
        return "cv", None
    design = plan["design"]
    pilot = draw_design_permutations(y, design["groups"], AUTO_PILOT, plan["rng"])
    scores = []
    while len(scores) < AUTO_PILOT and not (scores and scores[-1] >= 1.0):
        row = pilot[len(scores) : len(scores) + 1]
        null = null_scores(estimator, X, y, row, n_jobs=plan["n_jobs"], params=design["params"])
        scores.append(float(null[0]))
    k = len(scores)
    cert = SearchCertificate(float(fitted.search_score_), np.array(scores), pilot[:k], fitted)
    return ("cv" if scores[-1] >= cert.max_score else "search"), cert


def _search_certificate(estimator, fitted, X, y, plan) -> SearchCertificate:
    """The certificate of ``search_score_`` (the batched path when the estimator has one)."""
    if not hasattr(fitted, "search_score_"):
        raise _missing_search_score(estimator)
    observed = float(fitted.search_score_)
    null = sequential_null_scores(
        estimator, X, y, plan["permutations"], observed, stop_after=plan["stop_after"],
        n_jobs=plan["n_jobs"], params=plan["design"]["params"],
    )  # fmt: skip
    # A classifier's search score is that of the model it kept (an empty conjunction or rule
    # list scores the default class); a selector's is its search's best find, whatever its
    # threshold then keeps, so only a classifier's selection can make the score empty.
    mask = _support(fitted, X) if hasattr(fitted, "predict") else None
    n_selected = None if mask is None else np.array([mask.sum()])
    return SearchCertificate(
        observed, null, plan["permutations"][: null.size], fitted, n_selected=n_selected,
        stop_after=plan["stop_after"], n_planned=len(plan["permutations"]),
    )  # fmt: skip


def _cv_certificate(estimator, fitted, X, y, plan) -> SearchCertificate:
    """The certificate of the cross-validated score on the folds ``plan["folds"]`` fixes."""
    X = X if hasattr(X, "iloc") else np.asarray(X)
    folds = plan["folds"]
    params = plan["design"]["params"]
    real = cross_validated_score(
        estimator, X, y, n_splits=folds["n_splits"], seed=folds["seed"],
        groups=folds.get("groups"), params=params,
    )  # fmt: skip
    observed = real.value(folds["scoring"])
    null = sequential_null_scores(
        estimator, X, y, plan["permutations"], observed,
        stop_after=plan["stop_after"], cv=folds, n_jobs=plan["n_jobs"], params=params,
    )  # fmt: skip
    return SearchCertificate(
        observed,
        null,
        plan["permutations"][: null.size],
        fitted,
        score="cv",
        scoring=folds["scoring"],
        n_selected=real.n_selected,
        cross_validation=real,
        stop_after=plan["stop_after"],
        n_planned=len(plan["permutations"]),
    )


def _support(fitted, X):
    from widefs.model_selection._nested import selected_feature_mask

    return selected_feature_mask(fitted, np.shape(X)[1])
