"""Column blocks of possibly out-of-core matrices (dask arrays, zarr arrays, numpy memmaps).

Per-feature scores are independent across features, so a wide matrix can be scored one
block of columns at a time: only the block being scored is ever in memory.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

__all__ = [
    "DEFAULT_BLOCK_BYTES",
    "block_width",
    "is_lazy_matrix",
    "iter_column_blocks",
    "load_columns",
    "validate_lazy_xy",
]

#: Bytes of data (or of per-block temporaries) processed at once by every blocked loop of
#: widefs: out-of-core column blocks, presorts, threshold scans. One constant for all.
DEFAULT_BLOCK_BYTES = 4 * 2**20


def is_lazy_matrix(X) -> bool:
    """True for chunked or on-disk matrices that must not be loaded whole.

    Recognized: dask arrays (``.compute``), zarr arrays (``.oindex``) and numpy memmaps.
    """
    if isinstance(X, np.memmap):
        return True
    return (
        hasattr(X, "shape")
        and hasattr(X, "chunks")
        and (hasattr(X, "compute") or hasattr(X, "oindex"))
    )


def validate_lazy_xy(estimator, X, y) -> np.ndarray:
    """Checks of an out-of-core ``(X, y)`` that do not load ``X`` (values are checked per block).

    Sets ``estimator.n_features_in_`` (an out-of-core matrix has no feature names) and returns
    ``y`` as a 1-D array.
    """
    from sklearn.utils.validation import column_or_1d

    if len(X.shape) != 2:
        raise ValueError(f"Expected a 2D matrix, got shape {X.shape}.")
    y = column_or_1d(y, warn=True)
    if X.shape[0] != y.shape[0] or X.shape[0] < 2:
        raise ValueError(
            f"X has {X.shape[0]} rows and y {y.shape[0]} labels; need equal counts >= 2."
        )
    if X.shape[1] < 1:
        raise ValueError("X has 0 features; at least 1 is required.")
    estimator.n_features_in_ = X.shape[1]
    if hasattr(estimator, "feature_names_in_"):
        del estimator.feature_names_in_
    return y


def load_columns(X, columns: slice | np.ndarray, dtype=np.float64) -> np.ndarray:
    """Load ``X[:, columns]`` into memory as a C-contiguous array of ``dtype``."""
    if hasattr(X, "oindex") and not isinstance(columns, slice):
        block = X.oindex[:, np.asarray(columns)]  # zarr: orthogonal indexing
    else:
        block = X[:, columns]
    if hasattr(block, "compute"):
        block = block.compute()
    return np.ascontiguousarray(np.asarray(block), dtype=dtype)


def block_width(n_rows: int, bytes_per_value: int = 8, max_bytes: int = DEFAULT_BLOCK_BYTES) -> int:
    """Columns per block so that one loaded block stays under ``max_bytes``.

    Examples
    --------
    >>> block_width(100, 8, max_bytes=8000)
    10
    """
    return max(1, int(max_bytes // max(1, n_rows * bytes_per_value)))


def iter_column_blocks(n_columns: int, width: int) -> Iterator[slice]:
    """Consecutive column slices of at most ``width`` columns.

    Examples
    --------
    >>> list(iter_column_blocks(5, 2))
    [slice(0, 2, None), slice(2, 4, None), slice(4, 5, None)]
    """
    for start in range(0, n_columns, width):
        yield slice(start, min(start + width, n_columns))
