"""``transform`` of the univariate selectors: out-of-core inputs load only the kept columns."""

from __future__ import annotations

import numpy as np
from sklearn.utils.validation import check_is_fitted

from widefs._utils import is_lazy_matrix, load_columns

__all__ = ["LazyTransformMixin"]


class LazyTransformMixin:
    """A selector whose fitted ``support_`` picks columns of a dask, zarr, memmap or scipy
    sparse matrix without loading (or densifying) the rest (in-memory inputs go to
    ``SelectorMixin.transform``); its ``fit`` reads such matrices a block at a time, so its
    tags say it takes sparse input."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    def transform(self, X):
        """Keep the selected columns; an out-of-core X loads only those columns.

        Parameters
        ----------
        X : array_like, dask, zarr, memmap or sparse matrix of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_selected)
            Dense, also for a sparse ``X``.
        """
        if is_lazy_matrix(X):
            check_is_fitted(self)
            if X.shape[1] != self.n_features_in_:
                raise ValueError(f"X has {X.shape[1]} features, expected {self.n_features_in_}.")
            return load_columns(X, np.flatnonzero(self.support_))
        return super().transform(X)
