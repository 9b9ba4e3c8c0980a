"""One answer to "which input features does this fitted model use?" for every estimator."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

__all__ = ["SupervisedSelectorMixin", "SupportMixin", "top_k_mask"]


class SupportMixin:
    """``get_support`` for fitted models that are not feature selectors.

    scikit-learn's ``SelectorMixin`` gives selectors ``get_support``; classifiers that use
    only some of their input features (rule lists, ensembles of subsets, set covering
    machines) answer the same question with this mixin, so that code such as
    :func:`widefs.model_selection.selected_feature_mask` needs no per-estimator
    conventions. A subclass implements ``_get_support_mask()``.

    See Also
    --------
    sklearn.feature_selection.SelectorMixin : The selectors' ``get_support``.
    widefs.model_selection.selected_feature_mask : Uses ``get_support`` only.

    Examples
    --------
    >>> from sklearn.base import BaseEstimator
    >>> class Uses(SupportMixin, BaseEstimator):
    ...     def fit(self, X, y=None):
    ...         self.used_ = np.asarray(X).any(axis=0)
    ...         return self
    ...     def _get_support_mask(self):
    ...         return self.used_
    >>> model = Uses().fit([[0, 1, 0], [0, 2, 3]])
    >>> model.get_support().tolist(), model.get_support(indices=True).tolist()
    ([False, True, True], [1, 2])
    """

    def get_support(self, indices: bool = False) -> NDArray:
        """Mask or indices of the input features the fitted model uses.

        Parameters
        ----------
        indices : bool, default=False
            Return feature indices instead of a boolean mask.

        Returns
        -------
        support : ndarray
            Boolean mask of shape (``n_features_in_``,), or the indices of its True entries.
        """
        from sklearn.utils.validation import check_is_fitted

        check_is_fitted(self)
        mask = np.asarray(self._get_support_mask(), dtype=bool)
        return np.flatnonzero(mask) if indices else mask

    def _get_support_mask(self) -> NDArray[np.bool_]:  # pragma: no cover - abstract
        raise NotImplementedError


class SupervisedSelectorMixin:
    """The shared tail of the widefs feature selectors (put before ``SelectorMixin``).

    A fitted selector stores its mask in ``support_``; ``_get_support_mask`` returns it
    (scikit-learn's ``get_support`` and ``transform`` read it), and the estimator tags say
    that ``fit`` needs ``y``.

    See Also
    --------
    SupportMixin : ``get_support`` for models that are not selectors.

    Examples
    --------
    >>> from sklearn.base import BaseEstimator
    >>> from sklearn.feature_selection import SelectorMixin
    >>> class FirstColumn(SupervisedSelectorMixin, SelectorMixin, BaseEstimator):
    ...     def fit(self, X, y):
    ...         self.support_ = np.arange(np.shape(X)[1]) == 0
    ...         return self
    >>> FirstColumn().fit([[1, 2], [3, 4]], [0, 1]).transform([[5, 6]]).tolist()
    [[5]]
    >>> FirstColumn().__sklearn_tags__().target_tags.required
    True
    """

    def _get_support_mask(self) -> NDArray[np.bool_]:
        from sklearn.utils.validation import check_is_fitted

        check_is_fitted(self)
        return self.support_

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        return tags


def top_k_mask(scores: NDArray[np.floating], k: int) -> NDArray[np.bool_]:
    """Mask of the ``k`` largest scores (NaN last), ties broken as ``SelectKBest`` breaks
    them (to the higher index).

    Parameters
    ----------
    scores : ndarray of float, shape (n_features,)
    k : int
        Features kept (all of them when ``k >= n_features``).

    Returns
    -------
    mask : ndarray of bool, shape (n_features,)

    Examples
    --------
    >>> top_k_mask(np.array([3.0, np.nan, 5.0, 3.0]), 2).tolist()
    [False, False, True, True]
    """
    mask = np.zeros(scores.size, dtype=bool)
    if k >= scores.size:
        mask[:] = True
        return mask
    ranked = np.nan_to_num(scores, nan=np.finfo(float).min)
    # The last k of a stable sort, found by one partition instead of the sort: every score
    # above the k-th largest, then the scores equal to it of highest index.
    kth = np.partition(ranked, ranked.size - k)[ranked.size - k]
    mask = ranked > kth
    ties = np.flatnonzero(ranked == kth)
    mask[ties[ties.size - (k - int(np.count_nonzero(mask))) :]] = True
    return mask
