"""What :func:`widefs.analysis.analyse` accepts: checked before any work starts.

An AnnData object (the ``anndata`` package, an optional extra) is recognised by its type's
name and module, so anndata is never imported here: its ``X`` (or a layer) is the matrix,
``var_names`` the feature names, and the labels an ``obs`` column. A scipy sparse matrix goes
to the Set Covering Machines as it is (read a block of columns at a time); the other parts
need the dense matrix, which is made once when it fits in ``SPARSE_DENSE_LIMIT`` bytes and
refused in one line otherwise.
"""

from __future__ import annotations

import numpy as np

from widefs._utils import column_major, is_sparse_matrix
from widefs.analysis._spec import METHODS

__all__ = ["SPARSE_DENSE_LIMIT", "check_inputs"]

#: Largest dense float64 matrix (bytes) made from a sparse X for the parts that need one.
SPARSE_DENSE_LIMIT = 2 * 2**30


def _out_of_core(X) -> bool:
    """A 2-D array read where it lies (a zarr array): shape, dtype and slicing, not numpy."""
    return (
        not isinstance(X, np.ndarray)
        and all(hasattr(X, a) for a in ("shape", "dtype", "__getitem__"))
        and len(X.shape) == 2
        and np.dtype(X.dtype).kind in "biu"
    )


def _floats(X: np.ndarray) -> np.ndarray:
    """``X`` as floats: a float32 matrix stays float32 (half the memory of a float64 copy;
    the parts widen it a block of columns at a time where a statistic needs float64)."""
    if X.dtype == np.float32:
        return X
    return np.asarray(X, dtype=float)


def _features(X, feature_names):
    """(X as a float array or the out-of-core array, feature names)."""
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - pandas is a dependency
        pd = None
    if pd is not None and isinstance(X, pd.DataFrame):
        names = [str(c) for c in X.columns] if feature_names is None else feature_names
        return _floats(X.to_numpy()), names
    if isinstance(X, np.ndarray):
        if X.ndim != 2:
            raise ValueError(f"X must be 2-D (samples x features), got shape {X.shape}")
        names = [f"x{j}" for j in range(X.shape[1])] if feature_names is None else feature_names
        return _floats(X), names
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


def is_anndata(X) -> bool:
    """An ``anndata.AnnData`` object, recognised without importing anndata."""
    kind = type(X)
    return kind.__name__ == "AnnData" and kind.__module__.split(".")[0] == "anndata"


def _anndata_matrix(adata, layer):
    if layer is None:
        return adata.X
    layers = list(adata.layers.keys())
    if layer not in layers:
        raise ValueError(
            f"layer {layer!r} is not in the AnnData object; its layers: "
            f"{', '.join(map(repr, layers)) or '(none)'}"
        )
    return adata.layers[layer]


def _anndata_labels(adata, y, target):
    if (y is None) == (target is None):
        raise ValueError("give the labels either as y or as target= (an obs column), not both")
    if target is None:
        return y
    columns = [str(c) for c in adata.obs.columns]
    if target not in adata.obs.columns:
        raise ValueError(
            f"target {target!r} is not an obs column; the columns: "
            f"{', '.join(map(repr, columns)) or '(none)'}"
        )
    labels = adata.obs[target]
    if labels.isna().any():
        raise ValueError(f"obs column {target!r} has {int(labels.isna().sum())} missing labels")
    return labels.astype(str).to_numpy(dtype=object)


def from_anndata(adata, y, target, layer, feature_names):
    """``(X, y, feature names)`` of an AnnData object."""
    X = _anndata_matrix(adata, layer)
    if X is None:
        raise ValueError("the AnnData object has no X; name a layer with layer=")
    if not (isinstance(X, np.ndarray) or is_sparse_matrix(X)):
        raise TypeError(
            f"the AnnData matrix is a {type(X).__name__} (a backed file?); load it in memory "
            "first with adata.to_memory()"
        )
    names = [str(v) for v in adata.var_names] if feature_names is None else feature_names
    return X, _anndata_labels(adata, y, target), names


def _sparse(X, methods):
    """A sparse X: as CSC for the SCMs alone, else dense once (within the limit)."""
    if methods == ("scm",):
        return column_major(X)
    n, m = X.shape
    if n * m * 8 > SPARSE_DENSE_LIMIT:
        dense_parts = ", ".join(p for p in methods if p != "scm")
        raise ValueError(
            f"X is sparse {n} x {m} ({n * m * 8 / 2**30:.1f} GiB dense); the parts "
            f"{dense_parts} need it dense: run methods=['scm'] (read in blocks), or keep "
            "fewer features first with widefs.univariate.ClassDifferenceScreen (takes sparse)"
        )
    return X.toarray()


def check_inputs(X, y, methods, feature_names, *, layer=None, target=None, **counts):
    """(X, y, feature names, methods), or one clear error naming the problem.

    ``X`` may be an AnnData object (its labels ``y`` or the obs column ``target``) or a scipy
    sparse matrix.
    """
    if is_anndata(X):
        X, y, feature_names = from_anndata(X, y, target, layer, feature_names)
    elif target is not None or layer is not None:
        raise ValueError("target= and layer= read an AnnData object; X is not one")
    if y is None:
        raise ValueError("y is required (the class of every sample)")
    _check_counts(**counts)
    methods = _methods(methods)
    if is_sparse_matrix(X):
        X = _sparse(X, methods)
    if is_sparse_matrix(X):
        names = [f"x{j}" for j in range(X.shape[1])] if feature_names is None else feature_names
    else:
        X, names = _features(X, feature_names)
    if len(names) != X.shape[1]:
        raise ValueError(f"feature_names must hold {X.shape[1]} names, got {len(names)}")
    y = _labels(y, X.shape[0])
    if not isinstance(X, np.ndarray) and not is_sparse_matrix(X) and methods != ("scm",):
        raise ValueError("an out-of-core array runs the scm part only; use methods=['scm']")
    return X, y, names, methods
