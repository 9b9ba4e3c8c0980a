"""Numeric / nominal input handling shared by the wrapper searches and CEFS.

The leave-one-out evaluators work on one float matrix: numeric columns hold their
values, nominal columns hold integer category codes (compared only for equality: the
kNN distance adds 0 or 1 for them, naive Bayes counts them). This module decides which
columns are nominal and turns raw input (numpy arrays, object arrays with strings,
pandas frames) into that matrix, with the categories learnt in ``fit``.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from sklearn.utils.validation import _assert_all_finite, validate_data

__all__ = ["FeatureEncoding", "encode_fit", "encode_transform"]

MISSING = "\x00missing"  # a nominal missing value is its own category (Soares 2010, 5.2.1.1)
UNSEEN = -1  # code of a category met only after fit: it matches no training value


@dataclass
class FeatureEncoding:
    """Which columns are nominal and the sorted categories of each (strings)."""

    nominal: NDArray[np.bool_]
    categories: dict[int, NDArray[np.object_]]

    @property
    def n_categories(self) -> NDArray[np.int64]:
        """Categories per column (0 for numeric columns), missing counted as one."""
        out = np.zeros(self.nominal.size, dtype=np.int64)
        for j, cats in self.categories.items():
            out[j] = cats.size
        return out


def _is_frame(X) -> bool:
    return hasattr(X, "dtypes") and hasattr(X, "columns")


def _nominal_from_spec(spec, n_features: int, feature_names) -> NDArray[np.bool_]:
    """Turn an explicit ``categorical_features`` value into a boolean mask."""
    arr = np.asarray(spec)
    if arr.dtype == bool:
        if arr.shape != (n_features,):
            raise ValueError(
                f"categorical_features as a boolean mask needs {n_features} entries, "
                f"got shape {arr.shape}."
            )
        return arr.copy()
    mask = np.zeros(n_features, dtype=bool)
    for item in arr.ravel():
        if isinstance(item, str | np.str_):
            if feature_names is None or item not in set(feature_names):
                raise ValueError(
                    f"categorical_features names {item!r}, which is not a column of X."
                )
            mask[list(feature_names).index(item)] = True
        elif isinstance(item, numbers.Integral):
            if not -n_features <= int(item) < n_features:
                raise ValueError(
                    f"categorical_features index {int(item)} is out of range for "
                    f"{n_features} features."
                )
            mask[int(item)] = True
        else:
            raise ValueError(
                f"categorical_features entries must be column indices, names or a boolean "
                f"mask; got {item!r}."
            )
    return mask


def _object_column_is_nominal(col: np.ndarray) -> bool:
    """An object column is nominal when some value is not a number (strings, bools)."""
    for value in col:
        if value is None or (isinstance(value, numbers.Real) and not isinstance(value, bool)):
            continue
        if isinstance(value, str | bool | np.bool_):
            return True
        # Anything else (dicts, lists, ...) is neither: let float() raise its TypeError.
        float(value)
    return False


def _as_keys(col: np.ndarray) -> np.ndarray:
    """Nominal values as strings; None/NaN become the missing category."""
    out = np.empty(col.shape[0], dtype=object)
    for i, value in enumerate(col):
        if value is None or (isinstance(value, float | np.floating) and np.isnan(value)):
            out[i] = MISSING
        else:
            out[i] = str(value)
    return out


def encode_fit(estimator, X, y, categorical_features, *, ensure_min_samples: int = 2):
    """Validate ``X``/``y`` for ``estimator`` (setting ``n_features_in_`` and names) and encode.

    Parameters
    ----------
    estimator : BaseEstimator
    X : array_like or DataFrame
    y : array_like
    categorical_features : "from_dtype", None, or indices / names / boolean mask
        ``"from_dtype"``: nominal are the non-numeric columns of a DataFrame (object,
        category, string, bool) or of an object array (columns holding strings or
        booleans); ``None``: every column numeric.

    Returns
    -------
    Xe : ndarray of float64, shape (n_samples, n_features)
        Numeric values and nominal category codes.
    y : ndarray
    encoding : FeatureEncoding
    """
    from_dtype = isinstance(categorical_features, str) and categorical_features == "from_dtype"
    explicit = (
        None if from_dtype or categorical_features is None else np.asarray(categorical_features)
    )
    frame_nominal = None
    if _is_frame(X) and from_dtype:
        import pandas as pd

        frame_nominal = np.array(
            [
                not pd.api.types.is_numeric_dtype(dt) or pd.api.types.is_bool_dtype(dt)
                for dt in X.dtypes
            ]
        )
    if explicit is not None:
        numeric_input = explicit.size == 0 or (explicit.dtype == bool and not explicit.any())
    elif frame_nominal is not None:
        numeric_input = not frame_nominal.any()
    else:
        numeric_input = categorical_features is None or not (
            (hasattr(X, "dtype") and X.dtype == object) or isinstance(X, list | tuple)
        )
    if numeric_input:
        Xv, y = validate_data(
            estimator, X, y, dtype=np.float64, ensure_min_samples=ensure_min_samples
        )
        nominal = np.zeros(Xv.shape[1], dtype=bool)
        return np.ascontiguousarray(Xv), y, FeatureEncoding(nominal, {})
    Xv, y = validate_data(
        estimator, X, y, dtype=None, ensure_all_finite=False, ensure_min_samples=ensure_min_samples
    )
    n_features = Xv.shape[1]
    if frame_nominal is not None:
        nominal = frame_nominal
    elif from_dtype:
        if Xv.dtype.kind in "OUS":
            Xv = Xv.astype(object)
            nominal = np.array([_object_column_is_nominal(Xv[:, j]) for j in range(n_features)])
        else:
            nominal = np.zeros(n_features, dtype=bool)
    else:
        names = getattr(estimator, "feature_names_in_", None)
        nominal = _nominal_from_spec(categorical_features, n_features, names)
    categories = {}
    for j in np.flatnonzero(nominal):
        keys = _as_keys(Xv[:, j])
        categories[int(j)] = np.array(sorted(set(keys)), dtype=object)
    encoding = FeatureEncoding(nominal, categories)
    return _encode(Xv, encoding), y, encoding


def encode_transform(estimator, X, encoding: FeatureEncoding) -> NDArray[np.float64]:
    """Validate ``X`` against the fitted estimator and encode it like the training data."""
    if not encoding.nominal.any():
        Xv = validate_data(estimator, X, dtype=np.float64, reset=False)
        return np.ascontiguousarray(Xv)
    Xv = validate_data(estimator, X, dtype=None, ensure_all_finite=False, reset=False)
    return _encode(Xv, encoding)


def _encode(Xv: np.ndarray, encoding: FeatureEncoding) -> NDArray[np.float64]:
    nominal = encoding.nominal
    out = np.empty(Xv.shape, dtype=np.float64)
    numeric = np.flatnonzero(~nominal)
    if numeric.size:
        values = np.asarray(Xv[:, numeric], dtype=np.float64)
        _assert_all_finite(values, input_name="X")
        out[:, numeric] = values
    for j, cats in encoding.categories.items():
        keys = _as_keys(Xv[:, j])
        lookup = {c: i for i, c in enumerate(cats)}
        out[:, j] = [lookup.get(k, UNSEEN) for k in keys]
    return np.ascontiguousarray(out)
