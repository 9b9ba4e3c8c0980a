"""A one-call CN2-POE summary (rule list and held-out error) for reports such as ``widefs run``."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import sparse
from sklearn.base import clone
from sklearn.model_selection import StratifiedGroupKFold, train_test_split

from widefs.rules._cn2 import CN2Classifier

__all__ = ["RulesSummary", "rules_summary"]


@dataclass(frozen=True)
class RulesSummary:
    """CN2-POE fitted on a training part and scored on the held-out rest.

    Parameters
    ----------
    model : CN2Classifier
        Fitted on the training part.
    test_error : float
        Error rate on the held-out part.
    default_error : float
        Held-out error of always predicting the training majority class.
    n_train, n_test : int
    text : str
        ``str(model)`` followed by the held-out errors, ready to print.
    prescreen_support : ndarray of bool or None
        The input features the pre-screen passed to CN2 (None without a pre-screen).

    See Also
    --------
    rules_summary : Builds it.

    Examples
    --------
    >>> from widefs.datasets import load_dataset
    >>> X, y = load_dataset("congressional_voting", return_X_y=True)
    >>> summary = rules_summary(X, y, random_state=0)
    >>> isinstance(summary, RulesSummary), summary.n_train + summary.n_test == len(y)
    (True, True)
    """

    model: CN2Classifier
    test_error: float
    default_error: float
    n_train: int
    n_test: int
    text: str
    prescreen_support: np.ndarray | None = None


def _split(y, test_size, random_state, groups):
    """Row indices of the training and held-out parts; with ``groups``, every group whole on
    one side. The parts of ``X`` are ``X[train]`` and ``X[test]`` (the same rows as
    ``train_test_split(X, y)`` returns, since it splits the indices it takes)."""
    _, counts = np.unique(y, return_counts=True)
    if groups is None:
        stratify = y if counts.min() >= 2 else None
        return train_test_split(
            np.arange(y.size), test_size=test_size, random_state=random_state, stratify=stratify
        )
    groups = np.asarray(groups)
    if groups.shape != y.shape:
        raise ValueError(f"groups holds {groups.size} labels for {y.size} samples")
    n_groups = np.unique(groups).size
    if n_groups < 2:
        raise ValueError("groups: a held-out part needs at least two groups")
    fraction = test_size if isinstance(test_size, float) else test_size / y.size
    # One fold of a stratified group k-fold: the held-out part is the fold (about
    # ``fraction`` of the samples), and no group has samples on both sides.
    n_splits = int(min(n_groups, max(2, round(1 / fraction))))
    seed = np.random.RandomState(random_state) if isinstance(random_state, int) else random_state
    folds = StratifiedGroupKFold(n_splits, shuffle=True, random_state=seed)
    return next(folds.split(np.zeros((y.size, 1)), y, groups))


def _support(X, y_tr, train, prescreen):
    """The pre-screen's support, fitted on the training rows (a callable reads them in place)."""
    if callable(prescreen) and not hasattr(prescreen, "fit"):
        return np.asarray(prescreen(X, y_tr, train), dtype=bool)
    X_tr = X.iloc[train] if hasattr(X, "iloc") else X[train]
    return np.asarray(clone(prescreen).fit(X_tr, y_tr).get_support(), dtype=bool)


def _part(X, rows, columns, names):
    """``X[rows][:, columns]`` in one small copy: a DataFrame stays one, and a numpy ``X``
    with ``names`` becomes one (CN2 names its features)."""
    if hasattr(X, "iloc"):
        return X.iloc[rows] if columns is None else X.iloc[rows, columns]
    part = X[rows] if columns is None else X[np.ix_(rows, columns)]
    if names is None:
        return part
    import pandas as pd

    kept = names if columns is None else [names[c] for c in columns]
    return pd.DataFrame(part, columns=[str(n) for n in kept])


def rules_summary(
    X,
    y,
    *,
    test_size=0.33,
    random_state=0,
    prescreen=None,
    groups=None,
    feature_names=None,
    **params,
) -> RulesSummary:
    """Fit ``CN2Classifier(stopping="poe", **params)`` on a random split and report it.

    The split follows Domingos (1999): 67% training, 33% held out (stratified when every
    class has at least two examples).

    Parameters
    ----------
    X : array_like or DataFrame of shape (n_samples, n_features)
        Numeric and nominal columns. A numpy array is read in place: CN2 gets the training
        rows of the kept columns, and predicts the held-out rows of them, in small copies.
    y : array_like of shape (n_samples,)
        Class labels.
    test_size : float, default=0.33
        Fraction held out.
    random_state : int, RandomState instance or None, default=0
        Seed of the split.
    prescreen : feature selector or callable, optional
        An unfitted selector with ``fit`` and ``get_support`` (e.g. ``SelectKBest(f_classif,
        k=2000)``), cloned and fitted on the training part only; CN2 searches the columns it
        keeps, so the held-out part stays unseen by every step. A callable
        ``prescreen(X, y_train, train)`` returns the boolean support itself from the whole
        ``X``, reading only its rows ``train`` (no copy of the training part).
    groups : array_like of shape (n_samples,), optional
        One label per sample (a patient, a pair, a batch): the held-out part is one fold of a
        stratified group k-fold with about ``test_size`` of the samples, so no group has
        samples on both sides (its held-out error is not inflated by repeated samples).
    feature_names : sequence of str, optional
        Names of a numpy ``X``'s columns, as CN2's rules print them (default ``x0, x1, ...``;
        a DataFrame's own names are kept).
    **params
        Further :class:`CN2Classifier` parameters.

    Returns
    -------
    summary : RulesSummary
        The fitted model, its held-out and majority-class errors and a printable text.

    See Also
    --------
    CN2Classifier : The rule learner.

    Examples
    --------
    >>> from widefs.datasets import load_dataset
    >>> X, y = load_dataset("congressional_voting", return_X_y=True)
    >>> summary = rules_summary(X, y, random_state=0)
    >>> summary.n_train, summary.n_test
    (291, 144)
    >>> summary.test_error < summary.default_error
    True
    >>> print(summary.text.splitlines()[0])  # doctest: +ELLIPSIS
    CN2Classifier: ... rules, ... conditions, ordered, stopping=poe
    """
    y = np.asarray(y)
    if not (hasattr(X, "iloc") or sparse.issparse(X)):  # sparse: CN2 says what to do
        X = np.asarray(X)
    train, test = _split(y, test_size, random_state, groups)
    y_tr, y_te = y[train], y[test]
    support = columns = None
    if prescreen is not None:
        support = _support(X, y_tr, train, prescreen)
        columns = np.flatnonzero(support)
    names = None if feature_names is None else list(feature_names)
    params = {"stopping": "poe", **params}
    model = CN2Classifier(**params).fit(_part(X, train, columns, names), y_tr)
    test_error = float(np.mean(model.predict(_part(X, test, columns, names)) != y_te))
    return _summary(model, test_error, y_tr, y_te, support)


def _summary(model, test_error, y_tr, y_te, support) -> RulesSummary:
    """The summary of ``model``: its held-out error beside the training majority class's."""
    labels, train_counts = np.unique(y_tr, return_counts=True)
    majority = labels[np.argmax(train_counts)]
    default_error = float(np.mean(y_te != majority))
    text = (
        f"{model}\nheld-out error {test_error:.3f} on {len(y_te)} examples "
        f"(majority-class error {default_error:.3f}); trained on {len(y_tr)}."
    )
    return RulesSummary(model, test_error, default_error, len(y_tr), len(y_te), text, support)
