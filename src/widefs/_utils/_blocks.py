"""Column blocks of possibly out-of-core matrices (dask arrays, zarr arrays, numpy memmaps).

Per-feature scores are independent across features, so a wide matrix can be scored one
block of columns at a time: only the block being scored is ever in memory.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from widefs._utils._dask_stores import checked_matrix

__all__ = [
    "DEFAULT_BLOCK_BYTES",
    "block_width",
    "feature_blocks",
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

    Parameters
    ----------
    X : object
        Any input matrix.

    Returns
    -------
    lazy : bool

    See Also
    --------
    iter_column_blocks : How such matrices are read, a block of columns at a time.

    Examples
    --------
    >>> is_lazy_matrix(np.zeros((2, 3))), is_lazy_matrix([[1, 2]])
    (False, False)
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

    Sets ``estimator.n_features_in_`` (an out-of-core matrix has no feature names).

    Parameters
    ----------
    estimator : estimator
        Receives ``n_features_in_``.
    X : matrix with ``shape``
        The out-of-core data.
    y : array_like of shape (n_samples,)
        Labels.

    Returns
    -------
    y : ndarray of shape (n_samples,)
        ``y`` as a 1-D array.

    See Also
    --------
    is_lazy_matrix : Which inputs take this path.

    Examples
    --------
    >>> import tempfile
    >>> from sklearn.base import BaseEstimator
    >>> est = BaseEstimator()
    >>> with tempfile.TemporaryFile() as f:
    ...     X = np.memmap(f, dtype=np.float64, mode="w+", shape=(3, 4))
    ...     validate_lazy_xy(est, X, [0, 1, 0]).tolist()
    [0, 1, 0]
    >>> est.n_features_in_
    4
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
    checked_matrix(X)  # a store's types and codecs, before any value is read
    estimator.n_features_in_ = X.shape[1]
    if hasattr(estimator, "feature_names_in_"):
        del estimator.feature_names_in_
    return y


def load_columns(X, columns: slice | np.ndarray, dtype=np.float64) -> np.ndarray:
    """Load ``X[:, columns]`` into memory as a C-contiguous array of ``dtype``.

    Parameters
    ----------
    X : ndarray, memmap, dask or zarr array
        The (possibly out-of-core) matrix.
    columns : slice or ndarray of int
        Columns to load.
    dtype : data-type, default=np.float64

    Returns
    -------
    block : ndarray of shape (n_samples, n_columns)

    See Also
    --------
    iter_column_blocks : The slices to load one after the other.

    Examples
    --------
    >>> load_columns(np.arange(6).reshape(2, 3), slice(1, 3)).tolist()
    [[1.0, 2.0], [4.0, 5.0]]
    """
    X = checked_matrix(X)  # a store checked before its values are read; a damaged chunk: one line
    if hasattr(X, "oindex") and not isinstance(columns, slice):
        block = X.oindex[:, np.asarray(columns)]  # zarr: orthogonal indexing
    else:
        block = X[:, columns]
    if hasattr(block, "compute"):
        block = block.compute()
    return np.ascontiguousarray(np.asarray(block), dtype=dtype)


def block_width(n_rows: int, bytes_per_value: int = 8, max_bytes: int = DEFAULT_BLOCK_BYTES) -> int:
    """Columns per block so that one loaded block stays under ``max_bytes``.

    Parameters
    ----------
    n_rows : int
        Rows of the matrix.
    bytes_per_value : int, default=8
    max_bytes : int, default=DEFAULT_BLOCK_BYTES

    Returns
    -------
    width : int
        At least 1.

    See Also
    --------
    iter_column_blocks : Slices of that width.

    Examples
    --------
    >>> block_width(100, 8, max_bytes=8000)
    10
    """
    return max(1, int(max_bytes // max(1, n_rows * bytes_per_value)))


def feature_blocks(
    n_features: int, bytes_per_feature: int, max_bytes: int = DEFAULT_BLOCK_BYTES
) -> Iterator[slice]:
    """Slices of consecutive features whose temporaries fit in ``max_bytes``.

    Parameters
    ----------
    n_features : int
        Number of features to split.
    bytes_per_feature : int
        Bytes of the largest temporary per feature.
    max_bytes : int, default=DEFAULT_BLOCK_BYTES
        Budget of one block.

    Returns
    -------
    blocks : iterator of slice
        Consecutive feature ranges covering ``range(n_features)``.

    See Also
    --------
    block_width : The width of a block of loaded columns.

    Examples
    --------
    >>> list(feature_blocks(5, 100, max_bytes=250))
    [slice(0, 2, None), slice(2, 4, None), slice(4, 5, None)]
    """
    return iter_column_blocks(n_features, max(1, int(max_bytes // max(1, bytes_per_feature))))


def iter_column_blocks(n_columns: int, width: int) -> Iterator[slice]:
    """Consecutive column slices of at most ``width`` columns.

    Parameters
    ----------
    n_columns : int
    width : int
        Columns per slice (the last may be narrower).

    Yields
    ------
    block : slice

    See Also
    --------
    block_width : A width that fits in memory.
    load_columns : Loads one slice.

    Examples
    --------
    >>> list(iter_column_blocks(5, 2))
    [slice(0, 2, None), slice(2, 4, None), slice(4, 5, None)]
    """
    for start in range(0, n_columns, width):
        yield slice(start, min(start + width, n_columns))
