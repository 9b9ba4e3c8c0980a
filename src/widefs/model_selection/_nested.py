"""Nested, leakage-free evaluation: every selection and tuning step inside the training folds."""

from __future__ import annotations

import numbers

import numpy as np
from scipy import stats
from sklearn.base import clone, is_classifier
from sklearn.model_selection import RepeatedStratifiedKFold, check_cv
from sklearn.pipeline import Pipeline
from sklearn.utils import check_random_state
from sklearn.utils.validation import indexable

from widefs.utils import parallel_calls

__all__ = ["nested_evaluate", "selected_feature_mask", "selection_stability"]


def selected_feature_mask(estimator, n_features: int) -> np.ndarray | None:
    """Boolean mask of the input features a fitted estimator uses, or None if it does not say.

    The one protocol is ``get_support()``: every widefs estimator has it (selectors through
    scikit-learn's ``SelectorMixin``, the classifiers through
    :class:`widefs.utils.SupportMixin`), as do scikit-learn's selectors. Pipelines compose
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
    nested_evaluate : Collects these masks per outer fold.
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
        for _, step in estimator.steps:
            if step is None or step == "passthrough":
                continue
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
    Z = np.asarray(masks, dtype=float)
    M, d = Z.shape
    if M < 2:
        return float("nan")
    p = Z.mean(axis=0)
    s2 = M / (M - 1) * p * (1 - p)
    kbar = Z.sum(axis=1).mean()
    denom = (kbar / d) * (1 - kbar / d)
    if denom == 0:
        return float("nan")
    return float(1 - s2.mean() / denom)


def _inject_inner_cv(estimator, inner_cv):
    """Give a search estimator (``GridSearchCV`` and friends) the inner splitter."""
    if inner_cv is None:
        return estimator
    params = estimator.get_params(deep=True)
    if "cv" in params:
        return estimator.set_params(cv=inner_cv)
    return estimator


def _fit_score_fold(estimator, X, y, train, test, scoring):
    est = clone(estimator)
    est.fit(_take(X, train), y[train])
    Xte = _take(X, test)
    pred = est.predict(Xte)
    score = (
        float(np.mean(pred == y[test])) if scoring is None else float(scoring(est, Xte, y[test]))
    )
    mask = selected_feature_mask(est, X.shape[1])
    return score, pred, mask


def _take(X, idx):
    return X.iloc[idx] if hasattr(X, "iloc") else X[idx]


def _require_two_classes(y: np.ndarray) -> None:
    """One class makes every prediction right: a 100% that measures nothing."""
    classes = np.unique(y)
    if classes.size < 2:
        raise ValueError(
            f"y has a single class ({classes.tolist()[0]!r} for all {y.size} examples): an accuracy "
            "on one class measures nothing; nested_evaluate needs at least 2 classes."
            if classes.size
            else "y is empty: nested_evaluate needs examples of at least 2 classes."
        )


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
):
    """Evaluate an estimator with every selection and tuning step inside the training folds.

    The estimator (a selector + classifier pipeline, a ``GridSearchCV``, a widefs
    classifier, ...) is cloned and fitted on each outer training fold only; when
    ``inner_cv`` is given and the estimator (or its pipeline) has a ``cv`` parameter,
    the inner tuning uses it. Nothing ever sees the outer test fold before predicting it.

    Parameters
    ----------
    estimator : classifier
        Cloned for every outer fold.
    X : array_like or DataFrame of shape (n_samples, n_features)
        Data.
    y : array_like of shape (n_samples,)
        Class labels.
    cv : int or splitter, default=5
        An int k means stratified k-fold, repeated ``n_repeats`` times with shuffling
        seeded by ``random_state``.
    inner_cv : int or splitter, optional
        Splitter given to the estimator's own ``cv`` parameter (nested tuning).
    n_repeats : int, default=1
    scoring : callable ``scorer(estimator, X, y)``, optional
        Default: accuracy.
    confidence : float, default=0.95
        Level of the confidence interval of the mean score.
    random_state : int, RandomState instance or None
    n_jobs : int, optional
        Outer folds in parallel (joblib); results do not depend on it.

    Returns
    -------
    dict
        ``test_score`` (per outer fold), ``mean``, ``std``, ``ci`` (low, high): the
        Nadeau-Bengio corrected resampled t interval, which accounts for overlapping
        training sets; ``pooled_accuracy`` (over all test predictions of each repeat,
        averaged over repeats); ``selected_features`` (one boolean mask per fold, None
        when the estimator does not expose a selection); ``selection_frequency`` (how
        often each feature was selected); ``stability`` (Nogueira's index);
        ``n_selected`` per fold; ``predictions`` (n_repeats, n_samples).

    See Also
    --------
    selected_feature_mask : How a fold's selection is read (``get_support``).
    selection_stability : The stability index.
    PriorFallbackClassifier : Keeps pipelines defined when a fold selects nothing.

    Examples
    --------
    >>> from sklearn.naive_bayes import GaussianNB
    >>> from sklearn.pipeline import make_pipeline
    >>> from widefs.univariate import DiscriminativeSelector
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(40, 300)); y = np.repeat([0, 1], 20); X[:, :5] += 2 * y[:, None]
    >>> res = nested_evaluate(make_pipeline(DiscriminativeSelector(random_state=0), GaussianNB()),
    ...                       X, y, cv=5, random_state=0)
    >>> res["mean"] > 0.8, res["selection_frequency"][:5].min() > 0.5
    (True, np.True_)
    """
    X, y = indexable(X, y)
    y = np.asarray(y)
    _require_two_classes(y)
    if not is_classifier(estimator) and not hasattr(estimator, "predict"):
        raise TypeError("estimator must be a classifier with fit and predict.")
    if isinstance(cv, numbers.Integral):
        rng = check_random_state(random_state)
        splitter = RepeatedStratifiedKFold(
            n_splits=cv, n_repeats=n_repeats, random_state=rng.randint(np.iinfo(np.int32).max)
        )
    else:
        if n_repeats != 1:
            raise ValueError(
                "n_repeats applies to an int cv only; repeat inside the splitter instead."
            )
        splitter = check_cv(cv, y, classifier=True)
    estimator = _inject_inner_cv(clone(estimator), inner_cv)
    splits = list(splitter.split(np.zeros((len(y), 1)), y))
    results = parallel_calls(
        _fit_score_fold, [(estimator, X, y, tr, te, scoring) for tr, te in splits], n_jobs=n_jobs
    )
    scores = np.array([r[0] for r in results])
    n = len(y)
    n_rep = n_repeats if isinstance(cv, numbers.Integral) else 1
    per_rep = len(splits) // n_rep
    predictions = np.empty((n_rep, n), dtype=y.dtype)
    for k, ((_, te), (_, pred, _)) in enumerate(zip(splits, results, strict=True)):
        predictions[k // per_rep, te] = pred
    pooled = float(np.mean(predictions == y[None, :]))

    k = scores.size
    mean, std = float(scores.mean()), float(scores.std(ddof=1)) if k > 1 else 0.0
    n_test = np.mean([len(te) for _, te in splits])
    n_train = n - n_test
    # Nadeau & Bengio (2003): the folds' training sets overlap, so the naive variance of
    # the mean (std^2 / k) is too small; inflate it by n_test / n_train.
    se = np.sqrt((1.0 / k + n_test / n_train) * std**2) if k > 1 else np.nan
    t = stats.t.ppf(0.5 + confidence / 2, df=max(k - 1, 1))
    ci = (max(0.0, mean - t * se), min(1.0, mean + t * se)) if k > 1 else (np.nan, np.nan)

    masks = [r[2] for r in results]
    if all(m is not None for m in masks):
        stacked = np.array(masks)
        frequency = stacked.mean(axis=0)
        stability = selection_stability(stacked)
        n_selected = stacked.sum(axis=1)
    else:
        frequency, stability, n_selected = None, float("nan"), None
    return {
        "test_score": scores,
        "mean": mean,
        "std": std,
        "ci": ci,
        "confidence": confidence,
        "pooled_accuracy": pooled,
        "selected_features": masks,
        "selection_frequency": frequency,
        "stability": stability,
        "n_selected": n_selected,
        "predictions": predictions,
        "splits": splits,
    }
