"""Nested, leakage-free evaluation: every selection and tuning step inside the training folds."""

from __future__ import annotations

import inspect
import numbers

import numpy as np
from sklearn import config_context
from sklearn.base import clone, is_classifier
from sklearn.model_selection import RepeatedStratifiedKFold, check_cv
from sklearn.pipeline import Pipeline
from sklearn.utils import check_random_state
from sklearn.utils.validation import indexable

from widefs._utils import parallel_calls
from widefs.model_selection._design_splits import DesignKFold, GroupCheckedCV, check_group_splits
from widefs.model_selection._metrics import (
    balanced_accuracy,
    corrected_t_interval,
    recall_counts,
    recall_interval,
)
from widefs.stats import exchangeability_scheme

__all__ = ["nested_evaluate", "selected_feature_mask", "selection_stability"]


def selected_feature_mask(estimator, n_features: int) -> np.ndarray | None:
    """Boolean mask of the input features a fitted estimator uses, or None if it does not say.

    The one protocol is ``get_support()``: every widefs estimator has it (selectors through
    scikit-learn's ``SelectorMixin``, the classifiers through
    :class:`widefs._utils.SupportMixin`), as do scikit-learn's selectors. Pipelines compose
    the masks of their steps (a step without ``get_support`` passes every feature on), and
    a fitted search estimator (``GridSearchCV`` and friends) answers for its
    ``best_estimator_``.

    Parameters
    ----------
    estimator : fitted estimator
        A selector, classifier, pipeline or fitted search estimator.
    n_features : int
        Number of input features ``estimator`` was fitted on.

    Returns
    -------
    mask : ndarray of bool, shape (n_features,), or None
        ``None`` when nothing in ``estimator`` implements ``get_support``.

    See Also
    --------
    nested_evaluate : Keeps the indices of these masks per outer fold.
    selection_stability : Their agreement across folds.

    Examples
    --------
    >>> from sklearn.feature_selection import SelectKBest
    >>> from sklearn.naive_bayes import GaussianNB
    >>> from sklearn.pipeline import make_pipeline
    >>> X = np.array([[0.0, 5.0, 1.0], [0.2, 1.0, 0.0], [1.0, 4.0, 1.0], [1.1, 2.0, 0.0]])
    >>> pipe = make_pipeline(SelectKBest(k=1), GaussianNB()).fit(X, [0, 0, 1, 1])
    >>> selected_feature_mask(pipe, 3).tolist()
    [True, False, False]
    >>> selected_feature_mask(GaussianNB().fit(X, [0, 0, 1, 1]), 3) is None
    True
    """
    if hasattr(estimator, "best_estimator_"):
        return selected_feature_mask(estimator.best_estimator_, n_features)
    if isinstance(estimator, Pipeline):
        mask = np.ones(n_features, bool)
        known = False
        for _, step in estimator.steps:  # None and "passthrough" have no get_support
            inner = selected_feature_mask(step, int(mask.sum()))
            if inner is None:
                continue
            known = True
            positions = np.flatnonzero(mask)
            mask = np.zeros(n_features, bool)
            mask[positions[inner]] = True
        return mask if known else None
    if hasattr(estimator, "get_support"):
        return np.asarray(estimator.get_support(), bool)
    return None


def selection_stability(masks: np.ndarray) -> float:
    """Stability of feature selection across folds (Nogueira, Sechidis & Brown 2018).

    ``1 - mean_f s_f^2 / (k/d (1 - k/d))`` with ``s_f^2`` the unbiased variance of
    feature f's selection indicator over the M folds and k the mean number selected:
    1 when every fold selects the same features, about 0 for random selections of the
    same sizes. NaN when every fold selects nothing or everything.

    Parameters
    ----------
    masks : array_like of bool, shape (n_folds, n_features)
        The features selected in each fold.

    Returns
    -------
    stability : float
        Nogueira's index (NaN for fewer than two folds or a degenerate selection).

    See Also
    --------
    nested_evaluate : Reports this index over its outer folds.

    Examples
    --------
    >>> selection_stability(np.array([[1, 1, 0, 0], [1, 1, 0, 0]], bool))
    1.0
    """
    Z = np.asarray(masks)
    if Z.dtype != bool:  # boolean masks are averaged as they are (no float copy of them)
        Z = Z.astype(float)
    if Z.shape[0] < 2:
        return np.nan
    return _nogueira(Z.mean(axis=0), Z.sum(axis=1), Z.shape[0])


def _nogueira(p, counts, M: int) -> float:
    """Nogueira's index from each feature's selection frequency ``p`` (over ``M >= 2``
    folds) and the number each fold selected (``counts``)."""
    d = p.shape[0]
    s2 = M / (M - 1) * p * (1 - p)
    kbar = counts.mean()
    denom = (kbar / d) * (1 - kbar / d)
    if denom == 0:
        return np.nan
    return float(1 - s2.mean() / denom)


def _inject_inner_cv(estimator, inner_cv):
    """Give a search estimator (``GridSearchCV`` and friends) the inner splitter."""
    if inner_cv is None:
        return estimator
    if "cv" in estimator.get_params():
        return estimator.set_params(cv=inner_cv)
    return estimator


def _fit_score_fold(estimator, X, y, train, test, scoring, params=None):
    """Fit a clone on ``train``; its test score (accuracy unless ``scoring``), predictions and
    the sorted indices of the features it uses (None if it does not say).

    ``params`` (``groups``, ``covariates``) are cut to ``train`` and passed to ``fit`` with
    scikit-learn's metadata routing on, so pipelines and searches route them to the steps
    that request them.
    """
    est = clone(estimator)
    if not params and scoring is None and _rows_fit(est, X):
        # The whole matrix and the fold's rows: no copy of X[train] (same fit, same floats).
        est._fit_rows(X, y[train], train)
        pred = est._predict_rows(X, test)
        return float(np.mean(pred == y[test])), pred, _selected_indices(est, X.shape[1])
    if params:
        with config_context(enable_metadata_routing=True):
            est.fit(
                _take(X, train), y[train], **{k: _take_param(v, train) for k, v in params.items()}
            )
    else:
        est.fit(_take(X, train), y[train])
    Xte = _take(X, test)
    pred = est.predict(Xte)
    score = (
        float(np.mean(pred == y[test])) if scoring is None else float(scoring(est, Xte, y[test]))
    )
    return score, pred, _selected_indices(est, X.shape[1])


def _selected_indices(estimator, n_features: int) -> np.ndarray | None:
    """The sorted indices of :func:`selected_feature_mask` (a fold's selection, kept as
    8 bytes per selected feature rather than 1 byte per feature: small beside the mask when
    a method keeps few of many features, as the wrappers and screens do)."""
    mask = selected_feature_mask(estimator, n_features)
    return None if mask is None else np.flatnonzero(mask)


def _rows_fit(estimator, X) -> bool:
    """Whether ``estimator`` fits on rows of ``X`` in place (``_fit_rows``, ``_predict_rows``:
    :class:`Prescreened`) and ``X`` is a C-ordered numpy matrix it can read them from."""
    return (
        hasattr(estimator, "_fit_rows")
        and isinstance(X, np.ndarray)
        and X.ndim == 2
        and X.flags.c_contiguous
    )


def _take(X, idx):
    return X.iloc[idx] if hasattr(X, "iloc") else X[idx]


def _take_param(value, idx):
    """Rows ``idx`` of a design parameter: a DataFrame, a mapping of columns or an array."""
    if isinstance(value, dict):
        return {k: np.asarray(v)[idx] for k, v in value.items()}
    return value.iloc[idx] if hasattr(value, "iloc") else np.asarray(value)[idx]


def _require_two_classes(y: np.ndarray, estimator) -> np.ndarray:
    """``y``, checked: one class makes every prediction right, a 100% that measures nothing."""
    classes = np.unique(y)
    if classes.size < 2:
        raise ValueError(
            f"y has a single class ({classes.tolist()[0]!r} for all {y.size} examples): an accuracy "
            "on one class measures nothing; nested_evaluate needs at least 2 classes."
            if classes.size
            else "y is empty: nested_evaluate needs examples of at least 2 classes."
        )
    if not is_classifier(estimator) and not hasattr(estimator, "predict"):
        raise TypeError("estimator must be a classifier with fit and predict.")
    return y


def nested_evaluate(
    estimator,
    X,
    y,
    *,
    cv=5,
    inner_cv=None,
    n_repeats: int = 1,
    scoring=None,
    confidence: float = 0.95,
    random_state=None,
    n_jobs=None,
    groups=None,
    covariates=None,
):
    """Evaluate an estimator with every selection and tuning step inside the training folds.

    The estimator (a pipeline, a ``GridSearchCV``, a widefs classifier, ...) is cloned and
    fitted on each outer training fold only; ``inner_cv`` reaches its ``cv`` parameter.

    Parameters
    ----------
    estimator : classifier
    X : array_like or DataFrame of shape (n_samples, n_features)
    y : array_like of shape (n_samples,)
    cv : int, splitter, iterable of (train, test) or None, default=5
        An int k: stratified k-fold, repeated ``n_repeats`` times, shuffled with
        ``random_state``; None: unshuffled stratified 5-fold (with ``groups``: as 5).
    inner_cv : int or splitter, optional
        Splitter given to the estimator's own ``cv`` parameter (nested tuning).
    n_repeats : int, default=1
    scoring : callable ``scorer(estimator, X, y)``, optional
        The per-fold ``test_score``; default accuracy.
    confidence : float, default=0.95
    random_state : int, RandomState instance or None
    n_jobs : int, optional
        Outer folds in parallel (joblib); results do not depend on it.
    groups, covariates : array_like, optional
        ``groups`` (subject, pair, patient): no group on both sides of an outer or inner
        split (:class:`DesignKFold`, other splitters checked). Training rows of both reach
        ``fit`` by metadata routing; covariates that no step requests are refused.

    Returns
    -------
    dict
        ``test_score`` per fold, ``mean``, ``std``, ``ci`` (Nadeau-Bengio corrected t); the
        same with ``balanced_`` for balanced accuracy; ``pooled_accuracy`` and
        ``pooled_balanced_accuracy`` of all test predictions; ``classes``, ``class_support``,
        ``class_recall``, ``class_recall_ci`` (pooled, Clopper-Pearson); ``selected_features``
        (per fold, sorted indices of the features used, or None), ``selection_frequency``
        (share of folds per feature), ``stability``, ``n_selected``; ``predictions``
        (n_repeats, n_samples); ``splits``; ``confidence``; ``design_case``; ``routed_params``.

    See Also
    --------
    selected_feature_mask : How a fold's selection is read (``get_support``).
    majority_baseline : The baseline to compare accuracy and balanced accuracy with.

    Examples
    --------
    >>> from sklearn.naive_bayes import GaussianNB
    >>> from sklearn.pipeline import make_pipeline
    >>> from widefs.univariate import DiscriminativeSelector
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(40, 300)); y = np.repeat([0, 1], 20); X[:, :5] += 2 * y[:, None]
    >>> res = nested_evaluate(make_pipeline(DiscriminativeSelector(random_state=0), GaussianNB()),
    ...                       X, y, cv=5, random_state=0)
    >>> bool(res["mean"] > 0.8), bool(res["class_recall"].min() > 0.8)
    (True, True)
    """
    X, y = indexable(X, y)
    y = _require_two_classes(np.asarray(y), estimator)
    rng = check_random_state(random_state)
    splitter, n_rep = _outer_splitter(cv, n_repeats, y, rng, grouped=groups is not None)
    estimator = _inject_inner_cv(clone(estimator), inner_cv)
    estimator, splits = _grouped_splits(estimator, splitter, X, y, groups, rng)
    params = _design_params(estimator, groups, covariates, y.shape[0])
    calls = [(estimator, X, y, tr, te, scoring, params) for tr, te in splits]
    folds = parallel_calls(_fit_score_fold, calls, n_jobs=n_jobs)
    return _summary(y, splits, folds, n_rep, confidence, (groups, params), X.shape[1])


def _grouped_splits(estimator, splitter, X, y, groups, rng):
    """The outer splits (checked against ``groups``) and the estimator with a grouped inner cv."""
    if groups is None:
        return estimator, list(splitter.split(X, y))
    groups = np.asarray(groups)
    exchangeability_scheme(y, groups)  # one label per sample, none missing: before any fit
    splits = check_group_splits(splitter.split(X, y, groups), groups)
    return _group_inner_cv(estimator, rng), splits


def _group_inner_cv(estimator, rng):
    """Make a search's inner splitter keep groups on one side (int/None: DesignKFold)."""
    if "cv" not in estimator.get_params():
        return estimator
    cv = estimator.get_params()["cv"]
    if cv is None or isinstance(cv, numbers.Integral):
        seed = rng.randint(np.iinfo(np.int32).max)
        return estimator.set_params(cv=DesignKFold(5 if cv is None else cv, random_state=seed))
    if isinstance(cv, DesignKFold | GroupCheckedCV):
        return estimator
    return estimator.set_params(cv=GroupCheckedCV(cv))


def _consumed_fit_params(estimator, names) -> set:
    """Which of ``names`` the estimator's ``fit`` takes, routed as scikit-learn would."""
    from sklearn.utils.metadata_routing import MetadataRouter, get_routing_for_object

    with config_context(enable_metadata_routing=True):
        routing = get_routing_for_object(estimator)
        if isinstance(routing, MetadataRouter):
            return set(routing.consumes("fit", list(names)))
    return {k for k in names if k in inspect.signature(estimator.fit).parameters}


def _design_params(estimator, groups, covariates, n_samples: int) -> dict:
    """The design parameters to pass to ``fit``; covariates nothing takes are refused."""
    given = {k: v for k, v in (("groups", groups), ("covariates", covariates)) if v is not None}
    if not given:
        return {}
    if covariates is not None:
        columns = covariates.values() if isinstance(covariates, dict) else [covariates]
        if any(len(c) != n_samples for c in columns):
            raise ValueError(f"covariates must have one row per sample ({n_samples}).")
    consumed = _consumed_fit_params(estimator, given)
    if covariates is not None and "covariates" not in consumed:
        raise ValueError(
            f"covariates were given but no step of {type(estimator).__name__} takes them in "
            "fit: a step whose fit has a covariates parameter must request it with "
            "step.set_fit_request(covariates=True); otherwise drop the covariates."
        )
    return {k: v for k, v in given.items() if k in consumed}


def _outer_splitter(cv, n_repeats, y, rng, *, grouped=False):
    """The outer splitter and its number of repeats (an int ``cv``: repeated stratified k-fold,
    group-aware with ``grouped``)."""
    if cv is None and grouped:
        cv = 5  # the unshuffled stratified default would split groups
    if isinstance(cv, numbers.Integral):
        seed = rng.randint(np.iinfo(np.int32).max)
        kind = DesignKFold if grouped else RepeatedStratifiedKFold
        return kind(n_splits=cv, n_repeats=n_repeats, random_state=seed), n_repeats
    if n_repeats != 1:
        raise ValueError("n_repeats applies to an int cv only; repeat inside the splitter instead.")
    return check_cv(cv, y, classifier=True), 1


def _summary(y, splits, folds, n_rep, confidence, design=(None, {}), n_features=None) -> dict:
    """The result of :func:`nested_evaluate` from the outer folds' scores, predictions and
    selected indices (``n_features``: the width of ``X``).

    ``design`` is ``(groups, routed params)``: the result names the exchangeability case
    (``"independent"``, ``"within groups"``, ``"between groups"``) and what reached ``fit``.
    """
    groups, params = design
    classes = np.unique(y)
    predictions = _predictions(y, splits, folds, n_rep)
    n_test = np.mean([len(te) for _, te in splits])
    n_train = len(y) - n_test
    scores = np.array([fold[0] for fold in folds])
    mean, std, ci = corrected_t_interval(scores, n_train, n_test, confidence)
    balanced = np.array(
        [balanced_accuracy(y[te], f[1], classes) for (_, te), f in zip(splits, folds, strict=True)]
    )
    b_mean, b_std, b_ci = corrected_t_interval(balanced, n_train, n_test, confidence)
    hits, support = recall_counts(np.tile(y, n_rep), predictions.ravel(), classes)
    hits, support = hits / n_rep, support // n_rep  # each repeat re-tests the same examples
    recall = hits / support
    return {
        "test_score": scores,
        "mean": mean,
        "std": std,
        "ci": ci,
        "balanced_test_score": balanced,
        "balanced_mean": b_mean,
        "balanced_std": b_std,
        "balanced_ci": b_ci,
        "confidence": confidence,
        "pooled_accuracy": float(np.mean(predictions == y[None, :])),
        "pooled_balanced_accuracy": float(np.mean(recall)),
        "classes": classes,
        "class_support": support,
        "class_recall": recall,
        "class_recall_ci": recall_interval(hits, support, confidence),
        **_selection_summary([fold[2] for fold in folds], n_features),
        "predictions": predictions,
        "splits": splits,
        "design_case": exchangeability_scheme(y, groups).case,
        "routed_params": tuple(sorted(params)),
    }


def _predictions(y, splits, folds, n_rep) -> np.ndarray:
    """Every test prediction, shape (n_repeats, n_samples): the folds of a repeat in order."""
    predictions = np.empty((n_rep, len(y)), dtype=y.dtype)
    per_rep = len(splits) // n_rep
    for k, ((_, te), fold) in enumerate(zip(splits, folds, strict=True)):
        predictions[k // per_rep, te] = fold[1]
    return predictions


def _selection_summary(selected, n_features) -> dict:
    """Per-fold selected indices, how often each feature was selected, Nogueira's index,
    counts. The frequency is the count over the folds divided by their number: the same
    floats as the mean of the folds' boolean masks (exact integer sums, one division)."""
    if any(s is None for s in selected):
        return {
            "selected_features": selected,
            "selection_frequency": None,
            "stability": np.nan,
            "n_selected": None,
        }
    M = len(selected)
    counts = np.array([s.size for s in selected], dtype=np.intp)
    frequency = np.bincount(np.concatenate(selected), minlength=n_features) / M
    return {
        "selected_features": selected,
        "selection_frequency": frequency,
        "stability": _nogueira(frequency, counts, M) if M >= 2 else np.nan,
        "n_selected": counts,
    }
