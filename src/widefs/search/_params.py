"""The parameter names of the search estimators, read from ``__init__`` once per class."""

from __future__ import annotations

import functools

from sklearn.base import BaseEstimator

__all__: list[str] = []


@functools.cache
def _init_param_names(cls) -> tuple[str, ...]:
    return tuple(BaseEstimator._get_param_names.__func__(cls))


class _CachedParamNames:
    """scikit-learn reads the signature of ``__init__`` at every ``get_params`` (so at every
    ``clone``, ``set_params`` and parameter validation); a search certificate of CEFS clones
    its searches and evaluators thousands of times. A class's parameters do not change:
    their names are read once (the same sorted list)."""

    @classmethod
    def _get_param_names(cls):
        return list(_init_param_names(cls))
