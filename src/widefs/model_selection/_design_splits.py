"""Group-aware cross-validation: no group (subject, pair, patient) on both sides of a split.

Samples of a group are not independent; a split that puts some of a patient's samples in
training and others in test measures memory of the patient, not prediction. With
``groups`` every split here keeps each group on one side, stratified by class where the
groups allow it (scikit-learn's ``StratifiedGroupKFold``), repeated with seeds drawn from
``random_state``; :func:`check_group_splits` verifies any splitter's output.
"""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.model_selection import BaseCrossValidator, StratifiedGroupKFold, StratifiedKFold
from sklearn.utils import check_random_state

__all__ = ["DesignKFold", "GroupCheckedCV", "check_group_splits"]


def check_group_splits(splits, groups) -> list:
    """The splits as a list, after checking that no group is on both sides of any split.

    Parameters
    ----------
    splits : iterable of (train, test) index arrays
    groups : array_like of shape (n_samples,)

    Returns
    -------
    list of (train, test)

    Raises
    ------
    ValueError
        Naming the first group found on both sides, and the split.

    See Also
    --------
    DesignKFold : splits that pass this check by construction.

    Examples
    --------
    >>> check_group_splits([([0, 1], [2, 3])], ["a", "a", "b", "b"])
    [([0, 1], [2, 3])]
    >>> check_group_splits([([0, 2], [1, 3])], ["a", "a", "b", "b"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: group 'a' is on both sides of split 0 ...
    """
    g = np.asarray(groups)
    out = []
    for k, (train, test) in enumerate(splits):
        both = np.intersect1d(g[np.asarray(train, dtype=np.intp)], g[np.asarray(test, np.intp)])
        if both.size:
            raise ValueError(
                f"group {both[0].item()!r} is on both sides of split {k} (training and test): "
                "with groups, use a group-aware splitter such as DesignKFold or GroupKFold."
            )
        out.append((train, test))
    return out


class DesignKFold(BaseCrossValidator):
    """Repeated stratified k-fold that keeps every group on one side when groups are given.

    Without ``groups``: stratified k-fold, shuffled. With ``groups``: scikit-learn's
    ``StratifiedGroupKFold`` (shuffled), which keeps each group in one fold and balances
    the class proportions across folds as well as the groups allow. Each repeat draws its
    seed from ``random_state``, so the splits are the same for the same seed.

    Parameters
    ----------
    n_splits : int, default=5
    n_repeats : int, default=1
    random_state : int, RandomState instance or None, default=None

    See Also
    --------
    check_group_splits : verifies any splitter's output.
    nested_evaluate : uses it for ``groups``.

    Examples
    --------
    >>> y = np.repeat([0, 1], 12); patient = np.repeat(np.arange(8), 3)
    >>> cv = DesignKFold(n_splits=4, random_state=0)
    >>> all(set(patient[tr]).isdisjoint(patient[te]) for tr, te in cv.split(y, y, patient))
    True
    """

    __metadata_request__split = {"groups": True}  # GridSearchCV routes groups here

    def __init__(self, n_splits=5, n_repeats=1, random_state=None):
        self.n_splits = n_splits
        self.n_repeats = n_repeats
        self.random_state = random_state

    def get_n_splits(self, X=None, y=None, groups=None):
        """Number of splits: ``n_splits * n_repeats``.

        Parameters
        ----------
        X, y, groups : ignored

        Returns
        -------
        int
        """
        return int(self.n_splits) * int(self.n_repeats)

    def split(self, X, y=None, groups=None):
        """Yield ``(train, test)`` index arrays; a group never on both sides.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
        y : array_like of shape (n_samples,)
        groups : array_like of shape (n_samples,), optional

        Yields
        ------
        train, test : ndarray of int
        """
        if not isinstance(self.n_splits, numbers.Integral) or self.n_splits < 2:
            raise ValueError(f"n_splits must be an int >= 2; got {self.n_splits!r}.")
        if not isinstance(self.n_repeats, numbers.Integral) or self.n_repeats < 1:
            raise ValueError(f"n_repeats must be an int >= 1; got {self.n_repeats!r}.")
        y = np.asarray(y)
        if groups is not None:
            n_groups = np.unique(np.asarray(groups)).size
            if n_groups < self.n_splits:
                raise ValueError(
                    f"groups has {n_groups} distinct groups, fewer than n_splits="
                    f"{self.n_splits}: every test fold needs at least one whole group."
                )
        seeds = check_random_state(self.random_state).randint(
            np.iinfo(np.int32).max, size=int(self.n_repeats)
        )
        for seed in seeds:
            if groups is None:
                inner = StratifiedKFold(self.n_splits, shuffle=True, random_state=seed)
            else:
                inner = StratifiedGroupKFold(self.n_splits, shuffle=True, random_state=seed)
            yield from inner.split(np.zeros((y.shape[0], 1)), y, groups)


class GroupCheckedCV(BaseCrossValidator):
    """A splitter whose splits are checked to keep every group on one side.

    Wraps a user's inner splitter inside nested evaluation with groups: the splits are the
    wrapped splitter's; a split that puts a group on both sides is a ``ValueError`` naming
    it, instead of a tuning score that leaks across a patient's samples.

    Parameters
    ----------
    cv : splitter
        Any object with ``split(X, y, groups)`` and ``get_n_splits``.

    See Also
    --------
    check_group_splits, DesignKFold

    Examples
    --------
    >>> from sklearn.model_selection import GroupKFold
    >>> cv = GroupCheckedCV(GroupKFold(2))
    >>> len(list(cv.split(np.zeros((4, 1)), [0, 1, 0, 1], [0, 0, 1, 1])))
    2
    """

    __metadata_request__split = {"groups": True}

    def __init__(self, cv):
        self.cv = cv

    def get_n_splits(self, X=None, y=None, groups=None):
        """Number of splits of the wrapped splitter.

        Parameters
        ----------
        X, y, groups : passed on

        Returns
        -------
        int
        """
        return self.cv.get_n_splits(X, y, groups)

    def split(self, X, y=None, groups=None):
        """The wrapped splitter's splits, each checked.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
        y : array_like of shape (n_samples,)
        groups : array_like of shape (n_samples,)

        Yields
        ------
        train, test : ndarray of int
        """
        if groups is None:
            raise ValueError("GroupCheckedCV needs groups to check its splits against.")
        yield from check_group_splits(self.cv.split(X, y, groups), groups)
