"""Column blocks of matrices that must not be densified whole: out-of-core matrices (dask
arrays, zarr arrays, numpy memmaps) and scipy sparse matrices and arrays.

Per-feature scores are independent across features, so a wide matrix can be scored one
block of columns at a time: only the block being scored is ever dense in memory. A sparse
matrix is read column by column from its CSC form (:func:`column_major`): slicing columns of
a CSR matrix scans every stored value once per block.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

import numpy as np

from widefs._utils._dask_stores import checked_matrix

__all__ = [
    "DEFAULT_BLOCK_BYTES",
    "ComputedColumns",
    "PackedBits",
    "RowsOf",
    "block_width",
    "column_chunk",
    "column_major",
    "column_min_max",
    "feature_blocks",
    "is_lazy_matrix",
    "is_sparse_matrix",
    "iter_column_blocks",
    "load_columns",
    "store_blocks",
    "validate_lazy_xy",
]

#: Bytes of data (or of per-block temporaries) processed at once by every blocked loop of
#: widefs: out-of-core column blocks, presorts, threshold scans. One constant for all.
DEFAULT_BLOCK_BYTES = 4 * 2**20


class ComputedColumns:
    """A matrix whose columns are computed when read (a transform of another matrix's
    columns), so that it is never in memory whole; read it with :func:`load_columns`.

    Subclasses set ``shape`` (via ``__init__``) and implement ``columns(cols)``, which returns
    the dense float64 block ``(n_samples, len(cols))`` of the columns ``cols`` (a slice or
    an index array).

    Parameters
    ----------
    shape : tuple of int
        ``(n_samples, n_features)``.

    See Also
    --------
    load_columns : Reads it a block at a time, as any out-of-core matrix.

    Examples
    --------
    >>> class Squares(ComputedColumns):
    ...     def columns(self, cols):
    ...         return (np.arange(6.0).reshape(2, 3)[:, cols]) ** 2
    >>> load_columns(Squares((2, 3)), slice(1, 3)).tolist()
    [[1.0, 4.0], [16.0, 25.0]]
    """

    dtype = np.dtype(np.float64)

    def __init__(self, shape):
        self.shape = tuple(int(v) for v in shape)

    def columns(self, cols) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def __getitem__(self, key):
        rows, cols = key
        return self.columns(cols)[rows]


def is_sparse_matrix(X) -> bool:
    """True for a scipy sparse matrix or array (``csr_matrix``, ``csc_array``, ...).

    scipy is not imported for the check: an object can only be sparse once it is loaded.

    Parameters
    ----------
    X : object
        Any input matrix.

    Returns
    -------
    sparse : bool

    See Also
    --------
    column_major : The form its columns are read from.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> is_sparse_matrix(sp.csr_array(np.eye(2))), is_sparse_matrix(np.eye(2))
    (True, False)
    """
    sparse = sys.modules.get("scipy.sparse")
    return sparse is not None and sparse.issparse(X)


def is_lazy_matrix(X) -> bool:
    """True for matrices that must not be loaded (or densified) whole: read them in blocks.

    Recognized: dask arrays (``.compute``), zarr arrays (``.oindex``), numpy memmaps and
    scipy sparse matrices and arrays.

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
    if isinstance(X, np.memmap | ComputedColumns) or is_sparse_matrix(X):
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
    if is_sparse_matrix(X):
        _check_sparse_values(X, type(estimator).__name__)
    estimator.n_features_in_ = X.shape[1]
    if hasattr(estimator, "feature_names_in_"):
        del estimator.feature_names_in_
    return y


def _check_sparse_values(X, name: str) -> None:
    """A sparse matrix's stored values: numbers, finite (the implicit zeros are both)."""
    if X.dtype.kind not in "biuf":
        raise ValueError(f"{name} needs numeric values; the sparse X holds {X.dtype}.")
    data = X.data if X.format in ("csc", "csr", "coo") else X.tocsc().data
    if X.dtype.kind == "f" and not np.isfinite(data).all():
        raise ValueError(f"Input X contains NaN or infinity ({name}: a stored value of sparse X).")


def column_major(X):
    """``X`` ready to be read a block of columns at a time: a sparse matrix as CSC, else itself.

    A sparse matrix in another format is converted once (a copy of its stored values and
    indices, as large as the matrix itself): reading a block of columns of CSC touches only
    that block's values, of CSR every stored value. The values and their type are unchanged
    (duplicate entries are summed, as densifying would).

    Parameters
    ----------
    X : matrix
        Any input matrix.

    Returns
    -------
    X : matrix
        CSC when ``X`` is sparse (a sparse array stays an array), else ``X``.

    See Also
    --------
    load_columns : Reads the blocks.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> column_major(sp.csr_matrix(np.eye(2))).format
    'csc'
    """
    if is_sparse_matrix(X) and X.format != "csc":
        return X.tocsc()
    return X


def column_min_max(X) -> tuple[np.ndarray, np.ndarray]:
    """Minimum and maximum of every column (float64), without densifying a sparse ``X``.

    Parameters
    ----------
    X : ndarray, sparse or out-of-core matrix of shape (n_samples, n_features)

    Returns
    -------
    low, high : ndarray of shape (n_features,)

    See Also
    --------
    load_columns : How an out-of-core ``X`` is read (a block at a time).

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> [v.tolist() for v in column_min_max(sp.csr_matrix([[0.0, -1.0], [0.0, 2.0]]))]
    [[0.0, -1.0], [0.0, 2.0]]
    """
    if is_sparse_matrix(X):  # the implicit zeros count, as in the dense matrix
        return tuple(_dense_vector(r(axis=0)) for r in (X.min, X.max))
    if not is_lazy_matrix(X):
        X = np.asarray(X)
        return X.min(axis=0).astype(np.float64), X.max(axis=0).astype(np.float64)
    low, high = np.empty(X.shape[1]), np.empty(X.shape[1])
    for b in iter_column_blocks(X.shape[1], block_width(X.shape[0])):
        block = load_columns(X, b)
        low[b], high[b] = block.min(axis=0), block.max(axis=0)
    return low, high


def _dense_vector(v) -> np.ndarray:
    """A sparse (or numpy matrix) reduction as a flat float64 array."""
    return np.asarray(v.toarray() if hasattr(v, "toarray") else v, dtype=np.float64).ravel()


def load_columns(X, columns: slice | np.ndarray, dtype=np.float64) -> np.ndarray:
    """Load ``X[:, columns]`` into memory as a C-contiguous array of ``dtype``.

    Parameters
    ----------
    X : ndarray, memmap, dask or zarr array, scipy sparse matrix or array
        The (possibly out-of-core) matrix; a sparse one is best in CSC (:func:`column_major`).
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
    if isinstance(X, ComputedColumns):
        return np.ascontiguousarray(X.columns(columns), dtype=dtype)
    if is_sparse_matrix(X):
        if X.format not in ("csc", "csr"):  # DIA, COO, BSR...: no column slicing
            X = X.tocsc()
        cols = columns if isinstance(columns, slice) else np.asarray(columns, dtype=np.intp)
        return np.ascontiguousarray(X[:, cols].toarray(), dtype=dtype)
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


def column_chunk(X) -> int | tuple[int, ...] | None:
    """Widths of the storage chunks of a zarr or dask matrix along the columns.

    Parameters
    ----------
    X : matrix
        Any input matrix.

    Returns
    -------
    chunks : int, tuple of int or None
        One width for a zarr array (every chunk but the last), the width of every chunk for a
        dask array, None for a matrix without storage chunks (numpy, memmap, sparse).

    See Also
    --------
    store_blocks : Blocks of whole chunks.

    Examples
    --------
    >>> import dask.array as da
    >>> column_chunk(da.zeros((2, 5), chunks=(2, 2))), column_chunk(np.zeros((2, 5)))
    ((2, 2, 1), None)
    """
    chunks = getattr(X, "chunks", None)
    try:
        c = chunks[1]
        if isinstance(c, tuple):  # dask: the size of every chunk
            sizes = tuple(int(v) for v in c)
            return sizes if sizes and min(sizes) > 0 and sum(sizes) == X.shape[1] else None
        return int(c) if int(c) > 0 else None
    except (TypeError, IndexError, ValueError):
        return None


def store_blocks(X, width: int) -> Iterator[slice]:
    """Consecutive column slices of about ``width`` columns, each made of whole storage chunks.

    A zarr or dask matrix decodes a whole chunk to give any of its values: a block that
    ends inside a chunk makes the next block decode that chunk again. The blocks here hold
    as many whole chunks as fit in ``width`` columns, and at least one (a chunk wider than
    ``width`` is one block); a matrix without chunks gets blocks of ``width`` columns.

    Parameters
    ----------
    X : matrix of shape (n_samples, n_features)
        Any input matrix.
    width : int
        Columns per block wanted.

    Yields
    ------
    block : slice

    See Also
    --------
    column_chunk : The chunk widths.
    iter_column_blocks : Blocks of a fixed width.

    Examples
    --------
    >>> import dask.array as da
    >>> [(b.start, b.stop) for b in store_blocks(da.zeros((2, 7), chunks=(2, 3)), 5)]
    [(0, 3), (3, 7)]
    >>> [(b.start, b.stop) for b in store_blocks(np.zeros((2, 7)), 5)]
    [(0, 5), (5, 7)]
    """
    m = int(X.shape[1])
    chunks = column_chunk(X)
    if chunks is None:
        yield from iter_column_blocks(m, max(1, width))
    elif isinstance(chunks, int):
        yield from iter_column_blocks(m, chunks * max(1, width // chunks))
    else:
        start = stop = 0
        for size in chunks:
            if stop > start and stop + size - start > width:
                yield slice(start, stop)
                start = stop
            stop += size
        if stop > start:
            yield slice(start, stop)


class RowsOf(ComputedColumns):
    """Rows ``rows`` of an in-memory matrix (all of them by default), read a block of columns
    at a time, as an out-of-core matrix is: no copy of the whole.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        The whole matrix.
    rows : ndarray of int, optional
        The rows (in this order); None: every row.

    Examples
    --------
    >>> X = np.arange(12, dtype=np.float32).reshape(3, 4)
    >>> load_columns(RowsOf(X, np.array([2, 0])), slice(1, 3)).tolist()
    [[9.0, 10.0], [1.0, 2.0]]
    """

    def __init__(self, X, rows=None):
        super().__init__((X.shape[0] if rows is None else rows.size, X.shape[1]))
        self.X, self.rows = X, rows
        self.dtype = X.dtype  # read as stored (float32 blocks stay float32 where kept so)

    def columns(self, cols) -> np.ndarray:
        # The columns first (a view for a slice), then the rows: a block-sized copy.
        block = self.X[:, cols]
        return block if self.rows is None else block[self.rows]


class PackedBits(ComputedColumns):
    """A presence/absence (0/1) matrix stored packed in bits: eight samples per byte.

    ``packed`` is ``numpy.packbits(X, axis=0)`` of the 0/1 matrix ``X`` (n_samples x
    n_features): ``ceil(n_samples / 8)`` rows of uint8, the first sample in the highest bit
    of the first row, in memory or out of core (a numpy memmap, a zarr or a dask array).
    Blocks of columns are read from it and unpacked to 0/1 (uint8) when read, so a screen
    reads it as it reads the 0/1 matrix, with the same results, from an eighth of the bytes.

    Parameters
    ----------
    packed : array of uint8, shape (ceil(n_samples / 8), n_features)
        The packed bits; a zarr array is checked as every store is (numbers, safe codecs).
    n_samples : int
        Samples (the bits of the last row beyond them are ignored).

    Attributes
    ----------
    shape : tuple of int
        ``(n_samples, n_features)``.
    chunks : tuple or None
        ``(n_samples, packed's chunk widths along the features)``: blocks are read by
        whole chunks of the store.

    See Also
    --------
    load_columns : Reads (and unpacks) a block of columns.

    Examples
    --------
    >>> X = np.array([[1, 0, 1], [0, 0, 1], [1, 1, 0]], dtype=np.uint8)
    >>> bits = PackedBits(np.packbits(X, axis=0), n_samples=3)
    >>> bits.shape, load_columns(bits, slice(0, 3)).tolist() == X.tolist()
    ((3, 3), True)
    """

    dtype = np.dtype(np.uint8)  # the values, 0 and 1, as read

    def __init__(self, packed, n_samples: int):
        packed = checked_matrix(packed, "packed")
        if len(packed.shape) != 2 or np.dtype(packed.dtype) != np.uint8:
            raise ValueError(
                f"PackedBits needs a 2-D uint8 array of packed bits; got {packed.dtype} "
                f"of shape {tuple(packed.shape)}."
            )
        n_samples = int(n_samples)
        if n_samples < 1 or packed.shape[0] != -(-n_samples // 8):
            raise ValueError(
                f"{n_samples} samples take {-(-max(n_samples, 1) // 8)} rows of packed bits; "
                f"the array has {packed.shape[0]}."
            )
        super().__init__((n_samples, packed.shape[1]))
        self.packed = packed

    @property
    def chunks(self):
        """``(n_samples, chunk widths of packed along the features)`` or None."""
        c = column_chunk(self.packed)
        return None if c is None else (self.shape[0], c)

    def columns(self, cols) -> np.ndarray:
        """The 0/1 values of the columns ``cols``.

        Parameters
        ----------
        cols : slice or ndarray of int
            Columns to read.

        Returns
        -------
        block : ndarray of uint8, shape (n_samples, n_columns)
        """
        block = load_columns(self.packed, cols, dtype=np.uint8)
        return np.unpackbits(block, axis=0, count=self.shape[0])
