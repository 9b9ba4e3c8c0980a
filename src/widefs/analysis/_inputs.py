"""What :func:`widefs.analysis.analyse` accepts: checked before any work starts."""

from __future__ import annotations

import numpy as np

from widefs.analysis._spec import METHODS

__all__ = ["check_inputs"]


def _out_of_core(X) -> bool:
    """A 2-D array read where it lies (a zarr array): shape, dtype and slicing, not numpy."""
    return (
        not isinstance(X, np.ndarray)
        and all(hasattr(X, a) for a in ("shape", "dtype", "__getitem__"))
        and len(X.shape) == 2
        and np.dtype(X.dtype).kind in "biu"
    )


def _features(X, feature_names):
    """(X as a float array or the out-of-core array, feature names)."""
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - pandas is a dependency
        pd = None
    if pd is not None and isinstance(X, pd.DataFrame):
        names = [str(c) for c in X.columns] if feature_names is None else feature_names
        return X.to_numpy(dtype=float), names
    if isinstance(X, np.ndarray):
        if X.ndim != 2:
            raise ValueError(f"X must be 2-D (samples x features), got shape {X.shape}")
        names = [f"x{j}" for j in range(X.shape[1])] if feature_names is None else feature_names
        return np.asarray(X, dtype=float), names
    if _out_of_core(X):
        names = [f"x{j}" for j in range(X.shape[1])] if feature_names is None else feature_names
        return X, names
    raise TypeError(f"X must be a numpy array or a pandas DataFrame, got {type(X).__name__}")


def _labels(y, n: int) -> np.ndarray:
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover
        pd = None
    if pd is not None and isinstance(y, (pd.Series, pd.Index)):
        y = y.to_numpy()
    if not isinstance(y, np.ndarray):
        raise TypeError(f"y must be a numpy array or a pandas Series, got {type(y).__name__}")
    if y.ndim != 1 or y.size != n:
        raise ValueError(f"y must hold one label per sample ({n}), got shape {y.shape}")
    _, counts = np.unique(y, return_counts=True)
    if counts.size < 2 or counts.min() < 2:
        raise ValueError("y must hold at least two classes of at least two samples each")
    return y


def _methods(methods) -> tuple[str, ...]:
    if methods is None:
        return METHODS
    methods = [methods] if isinstance(methods, str) else list(methods)
    unknown = [m for m in methods if m not in METHODS]
    if unknown or not methods:
        raise ValueError(
            f"unknown methods {', '.join(map(str, unknown)) or '(none)'}; "
            f"choose among {', '.join(METHODS)}"
        )
    return tuple(m for m in METHODS if m in methods)  # report order


def _check_counts(**counts) -> None:
    for name, value in counts.items():
        if value is not None and (not isinstance(value, int | np.integer) or value < 1):
            raise ValueError(f"{name} must be a positive integer, got {value!r}")


def check_inputs(X, y, methods, feature_names, **counts):
    """(X, y, feature names, methods), or one clear error naming the problem."""
    _check_counts(**counts)
    X, names = _features(X, feature_names)
    if len(names) != X.shape[1]:
        raise ValueError(f"feature_names must hold {X.shape[1]} names, got {len(names)}")
    y = _labels(y, X.shape[0])
    methods = _methods(methods)
    if not isinstance(X, np.ndarray) and methods != ("scm",):
        raise ValueError("an out-of-core array runs the scm part only; use methods=['scm']")
    return X, y, names, methods
