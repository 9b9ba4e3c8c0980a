"""The cross-validated score a certificate can certify instead of a search's own score.

Some searches certify a score that reaches its maximum on noise: CN2's rules fit the
training examples perfectly on almost any labelling of 62 examples and 2000 genes, so their
training accuracy is 1 on the real labels and on every relabelling, and no p-value can come
out of it. The k-fold cross-validated accuracy of the whole estimator cannot saturate that
way: rules learned on meaningless labels predict held-out examples at chance.

For the permutation test to stay exact, the score must be one fixed function of ``(X, y)``,
computed the same way on the real labels and on every relabelling. Here the folds are
:func:`stratified_folds` of the labels being scored, with a ``seed`` the certificate fixes
before any score is computed: a deterministic function of the labels (relabellings keep the
class counts, so every training fold holds every class in the same proportions), the same
function for every labelling.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from widefs.model_selection._metrics import balanced_accuracy, recall_counts
from widefs.model_selection._nested import _fit_score_fold

__all__ = [
    "SCORINGS",
    "CrossValidatedScore",
    "cross_validated_score",
    "design_folds",
    "stratified_folds",
]

#: The scores a cross-validated certificate can certify.
SCORINGS = ("accuracy", "balanced_accuracy")


@dataclass(frozen=True)
class CrossValidatedScore:
    """Out-of-fold predictions of every example and what they score.

    ``predictions[i]`` comes from the estimator fitted on the folds that do not hold example
    i; ``n_selected[f]`` is the number of features the estimator of fold f used (None when
    it does not say, through ``get_support``). The folds are
    ``stratified_folds(y, n_splits, seed)``.
    """

    y: np.ndarray
    predictions: np.ndarray
    classes: np.ndarray
    n_selected: np.ndarray | None
    n_splits: int
    seed: int

    @property
    def accuracy(self) -> float:
        return float(np.mean(self.predictions == self.y))

    @property
    def balanced_accuracy(self) -> float:
        return balanced_accuracy(self.y, self.predictions, self.classes)

    @property
    def class_recall(self) -> np.ndarray:
        hits, support = recall_counts(self.y, self.predictions, self.classes)
        return hits / support

    def value(self, scoring: str) -> float:
        """The score named ``scoring`` (one of :data:`SCORINGS`)."""
        return self.accuracy if scoring == "accuracy" else self.balanced_accuracy


def check_cv_arguments(y, n_splits, scoring, groups=None) -> None:
    """One-line errors for a cross-validated score that cannot be computed on ``y``."""
    if scoring not in SCORINGS:
        raise ValueError(f"scoring must be one of {SCORINGS}, got {scoring!r}.")
    if isinstance(n_splits, bool) or int(n_splits) != n_splits or n_splits < 2:
        raise ValueError(f"cv must be an integer of at least 2 folds, got {n_splits!r}.")
    smallest = int(np.unique(y, return_counts=True)[1].min())
    if smallest < n_splits:
        raise ValueError(
            f"cv={n_splits} folds need at least {n_splits} examples of every class; the "
            f"smallest class has {smallest}: lower cv."
        )
    if groups is not None and np.unique(np.asarray(groups)).size < n_splits:
        raise ValueError(
            f"cv={n_splits} folds need at least {n_splits} groups, every group on one side; "
            f"groups has {np.unique(np.asarray(groups)).size}: lower cv."
        )


def stratified_folds(y, n_splits: int, seed: int) -> np.ndarray:
    """The fold (0 to ``n_splits - 1``) of each example: stratified, shuffled by ``seed``.

    The examples are put in the order of ``RandomState(seed).permutation(n)``, sorted by class
    keeping that order, and dealt to the folds in turn: every class is spread evenly over the
    folds (sizes differ by at most one) and the fold sizes differ by at most one. The order
    depends on ``seed`` only, so the folds are a fixed function of ``(y, seed)``.
    """
    _, codes = np.unique(y, return_inverse=True)
    order = np.random.RandomState(int(seed)).permutation(codes.size)
    ranked = order[np.argsort(codes[order], kind="stable")]
    folds = np.empty(codes.size, dtype=np.intp)
    folds[ranked] = np.arange(codes.size) % int(n_splits)
    return folds


def design_folds(y, n_splits: int, seed: int, groups=None) -> np.ndarray:
    """The fold of each example: :func:`stratified_folds` without ``groups``, else folds that
    keep every group whole (scikit-learn's ``StratifiedGroupKFold`` shuffled by ``seed``).

    A fixed function of ``(y, groups, n_splits, seed)``, as the permutation test needs; the
    relabellings of a design keep the groups, so every one of them gets whole-group folds.
    """
    if groups is None:
        return stratified_folds(y, n_splits, seed)
    from sklearn.model_selection import StratifiedGroupKFold

    y = np.asarray(y)
    folds = np.empty(y.shape[0], dtype=np.intp)
    splitter = StratifiedGroupKFold(int(n_splits), shuffle=True, random_state=int(seed))
    for f, (_, test) in enumerate(splitter.split(np.zeros((y.shape[0], 1)), y, groups)):
        folds[test] = f
    return folds


def cross_validated_score(
    estimator, X, y, *, n_splits: int, seed: int, groups=None, params=None
) -> CrossValidatedScore:
    """Out-of-fold predictions of clones of ``estimator`` on :func:`design_folds`.

    The same ``(y, groups, n_splits, seed)`` always gives the same folds, so the score is a
    fixed function of ``(X, y)``: what makes a permutation test of it exact. ``params``
    (``covariates``, ``groups`` where the estimator's ``fit`` takes them) reach every fit,
    cut to its training rows.
    """
    y = np.asarray(y)
    folds = design_folds(y, n_splits, seed, groups)
    predictions = np.empty_like(y)
    selected = []  # each fold's sorted indices of the features used (None: not said)
    for f in range(int(n_splits)):
        train, test = np.flatnonzero(folds != f), np.flatnonzero(folds == f)
        _, predictions[test], used = _fit_score_fold(estimator, X, y, train, test, None, params)
        selected.append(used)
    n_selected = None if any(s is None for s in selected) else np.array([s.size for s in selected])
    return CrossValidatedScore(y, predictions, np.unique(y), n_selected, int(n_splits), int(seed))
