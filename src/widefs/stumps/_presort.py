"""The one presort of widefs: every column of a matrix sorted by a single integer sort.

Each float is mapped to an order-preserving 64-bit integer whose lowest ``bits`` bits are
replaced by the row index, so one ``np.sort`` of a block of columns (numpy's SIMD integer
sort) is a stable argsort of every column at once. Two distinct values that differ only
in those lowest bits collide; the few columns where that happens (and columns holding NaN)
are re-sorted exactly with ``argsort(kind="stable")``. Two layouts are built on it:

- :class:`SortedFeatures`, feature-major sample order and sorted values (the threshold
  scans of ``widefs.scm``, ``widefs.rules`` and ``widefs.univariate``);
- :func:`packed_presort`, position-major row indices with run flags packed into one or
  two bytes per entry (the sample-compression greedy of ``widefs.scm``).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from widefs._utils import (
    DEFAULT_BLOCK_BYTES,
    column_major,
    feature_blocks,
    is_sparse_matrix,
    load_columns,
)

__all__ = ["SortedFeatures", "packed_presort"]

_MAGNITUDE = np.int64(0x7FFF_FFFF_FFFF_FFFF)


def _row_chunks(n: int, w: int, entries: int = 1 << 15) -> Iterator[slice]:
    """Slices of rows holding about ``entries`` entries: temporaries stay in cache and are
    reused by the allocator instead of being fresh (page-faulting) memory at every call."""
    step = max(1, entries // max(w, 1))
    for i in range(0, n, step):
        yield slice(i, min(i + step, n))


def _sorted_keys(Xb: np.ndarray, bits: int) -> tuple[np.ndarray, bool]:
    """Sorted order-preserving keys ``(m, w)`` of the columns of ``Xb``, and whether they are exact.

    A key is the float's bit pattern with the magnitude bits of negatives flipped (so
    integer order is float order; ``-0.0`` is mapped to ``0.0`` first) and its lowest
    ``bits`` bits replaced by the row index. When those bits are zero for every value
    (integers, short mantissas) no two distinct values can collide: ``exact`` is True.
    """
    m, w = Xb.shape
    k = np.add(Xb, 0.0, dtype=np.float64).view(np.int64)  # a copy; + 0.0 maps -0.0 to 0.0
    low = np.int64((1 << bits) - 1)
    exact = True
    for rows in _row_chunks(m, w):
        kc = k[rows]
        exact = exact and not np.bitwise_and(kc, low).any()
        sign = kc >> 63  # arithmetic shift: 0 or -1
        sign &= _MAGNITUDE
        kc ^= sign
        kc &= ~low
        kc |= np.arange(rows.start, rows.stop, dtype=np.int64)[:, None]
    k.sort(axis=0)
    return k, exact


def _index_bits(n_rows: int) -> int:
    return max(1, int(n_rows - 1).bit_length())


@dataclass(frozen=True)
class SortedFeatures:
    """Per-feature ascending sort of a sample-by-feature matrix, stored feature-major.

    Parameters
    ----------
    order : ndarray of shape (n_features, n_samples)
        ``order[j]`` lists sample indices by increasing value of feature j (stable, so
        equal values keep sample order; NaN last, as ``np.argsort`` puts it).
    values : ndarray of float64, shape (n_features, n_samples)
        ``values[j] = X[order[j], j]``.

    Attributes
    ----------
    order, values
        As given; build them with :meth:`from_matrix`.

    See Also
    --------
    packed_presort : The same sort, packed position-major with run flags.
    run_layout : Runs of tied values of a presort.

    Examples
    --------
    >>> s = SortedFeatures.from_matrix([[3.0, 1.0], [1.0, 2.0], [2.0, 0.0]])
    >>> s.order.tolist(), s.values[0].tolist()
    ([[1, 2, 0], [2, 0, 1]], [1.0, 2.0, 3.0])
    """

    order: NDArray[np.integer]
    values: NDArray[np.float64]

    @classmethod
    def from_matrix(
        cls, X: ArrayLike, *, index_dtype=np.intp, max_bytes: int = DEFAULT_BLOCK_BYTES
    ) -> SortedFeatures:
        """Sort every column of ``X`` once, a feature block at a time.

        One integer sort per block of order-preserving keys (see the module docstring);
        there is no full transposed copy of ``X``.

        Parameters
        ----------
        X : array_like or scipy sparse matrix of shape (n_samples, n_features)
            A sparse matrix is densified one feature block at a time (the presort itself
            holds every value).
        index_dtype : integer dtype, default=np.intp
            dtype of :attr:`order` (``np.int32`` halves the memory of wide data).
        max_bytes : int, default=DEFAULT_BLOCK_BYTES (4 MiB)
            Working-set budget of one feature block.

        Returns
        -------
        SortedFeatures

        Examples
        --------
        >>> s = SortedFeatures.from_matrix([[3.0, 1.0], [1.0, 2.0], [2.0, 0.0]], index_dtype=np.int32)
        >>> s.order.tolist(), s.order.dtype.name
        ([[1, 2, 0], [2, 0, 1]], 'int32')
        """
        sparse = is_sparse_matrix(X)
        X = column_major(X) if sparse else np.asarray(X)
        if len(X.shape) != 2:
            raise ValueError("X must be two-dimensional (n_samples, n_features).")
        n, F = X.shape
        if n > np.iinfo(index_dtype).max:
            raise ValueError(f"{n} samples do not fit in {np.dtype(index_dtype).name} indices.")
        order = np.empty((F, n), dtype=index_dtype)
        values = np.empty((F, n), dtype=np.float64)
        if n == 0 or F == 0:
            return cls(order=order, values=values)
        bits = _index_bits(n)
        low = np.int64((1 << bits) - 1)
        for block in feature_blocks(F, 24 * n, max_bytes):
            Xb = load_columns(X, block) if sparse else np.asarray(X[:, block], dtype=np.float64)
            keys, exact = _sorted_keys(Xb, bits)
            rows = keys & low
            del keys
            order[block] = rows.T
            values[block] = np.take_along_axis(Xb, rows, axis=0).T
            v = values[block]
            # NaN, or two distinct values whose keys collided and came out of order:
            # those columns are sorted again exactly (ties in row order: stable).
            bad = np.isnan(v).any(axis=1)
            if not exact:
                bad |= (v[:, 1:] < v[:, :-1]).any(axis=1)
            for j in np.flatnonzero(bad).tolist():
                o = np.argsort(Xb[:, j], kind="stable")
                order[block.start + j] = o
                values[block.start + j] = Xb[o, j]
        return cls(order=order, values=values)

    @property
    def n_features(self) -> int:
        """Number of features (rows of :attr:`order`)."""
        return self.order.shape[0]

    @property
    def n_samples(self) -> int:
        """Number of samples (columns of :attr:`order`)."""
        return self.order.shape[1]

    def subset(self, sample_mask: ArrayLike) -> SortedFeatures:
        """Restrict to the samples in ``sample_mask`` without re-sorting.

        Sample indices in ``order`` are renumbered to positions within the subset, so
        the result describes ``X[sample_mask]``.

        Parameters
        ----------
        sample_mask : array_like of bool, shape (n_samples,)

        Returns
        -------
        SortedFeatures

        Examples
        --------
        >>> s = SortedFeatures.from_matrix([[3.0], [1.0], [2.0]]).subset([True, False, True])
        >>> s.order.tolist(), s.values.tolist()
        ([[1, 0]], [[2.0, 3.0]])
        """
        mask = np.asarray(sample_mask, dtype=bool)
        if mask.shape != (self.n_samples,):
            raise ValueError("sample_mask must have one entry per sample.")
        keep = mask[self.order]
        n_keep = int(mask.sum())
        renumber = np.cumsum(mask) - 1
        order = renumber[self.order[keep].reshape(self.n_features, n_keep)]
        values = self.values[keep].reshape(self.n_features, n_keep)
        return SortedFeatures(order=order, values=values)

    def compact(self, active: ArrayLike, n_positions: int | None = None) -> int:
        """Move each row's active samples to its front, in place, keeping their order.

        Learners that remove samples step by step call this lazily (when enough were
        removed), so a scan never pays for long-gone samples and ``X`` is never copied.

        Parameters
        ----------
        active : array_like of bool, shape (n_samples,)
            Samples to keep (their sample indices are not renumbered).
        n_positions : int, optional
            Only the first ``n_positions`` entries of each row are current (after an
            earlier compaction); default all.

        Returns
        -------
        int
            The new number of current positions (the number of active samples).

        Examples
        --------
        >>> sf = SortedFeatures.from_matrix([[3.0], [1.0], [2.0]])
        >>> sf.compact([True, False, True])
        2
        >>> sf.order[0, :2].tolist(), sf.values[0, :2].tolist()
        ([2, 0], [2.0, 3.0])
        """
        act = np.asarray(active, dtype=bool)
        npos = self.n_samples if n_positions is None else int(n_positions)
        n_active = int(act.sum())
        for block in feature_blocks(self.n_features, 16 * max(npos, 1)):
            order = self.order[block, :npos]
            keep = act[order]
            values = self.values[block, :npos][keep].reshape(-1, n_active)
            self.order[block, :n_active] = order[keep].reshape(-1, n_active)
            self.values[block, :n_active] = values
        return n_active

    def valid_cuts(self, block: slice = slice(None)) -> NDArray[np.bool_]:
        """``(F, n-1)`` mask: a threshold fits between sorted positions i and i+1.

        Parameters
        ----------
        block : slice, default=slice(None)
            The features to describe.

        Returns
        -------
        ndarray of bool, shape (n_block, n_samples - 1)

        Examples
        --------
        >>> SortedFeatures.from_matrix([[1.0], [1.0], [2.0]]).valid_cuts().tolist()
        [[False, True]]
        """
        v = self.values[block]
        return v[:, 1:] > v[:, :-1]

    def cut_thresholds(self, block: slice = slice(None)) -> NDArray[np.float64]:
        """``(F, n-1)`` thresholds between consecutive sorted values, NaN where they tie.

        The one threshold rule of every stump in widefs: the midpoint, pulled back to the
        lower value when rounding would reach the upper one, so ``x <= t`` separates the
        two values at any scale (no tolerances).

        Parameters
        ----------
        block : slice, default=slice(None)
            The features to describe.

        Returns
        -------
        ndarray of float, shape (n_block, n_samples - 1)

        See Also
        --------
        valid_cuts : Where a threshold fits.

        Examples
        --------
        >>> sf = SortedFeatures.from_matrix([[1.0], [1.0], [2.0], [np.nextafter(2.0, 3.0)]])
        >>> t = sf.cut_thresholds()[0]
        >>> bool(np.isnan(t[0])), float(t[1]), bool(t[2] == 2.0)
        (True, 1.5, True)
        """
        v = self.values[block].astype(float, copy=False)
        lo, hi = v[:, :-1], v[:, 1:]
        mid = lo + (hi - lo) / 2
        mid = np.where(mid >= hi, lo, mid)
        return np.where(hi > lo, mid, np.nan)


def packed_presort(
    Xb: np.ndarray, *, bits: int | None = None, dtype=None, end_flags: bool = False
) -> np.ndarray:
    """The presort of a block of columns, packed position-major with run flags.

    Entry ``P[pos, j]`` holds the row at sorted position ``pos`` of column ``j`` in its
    lowest ``bits`` bits, bit ``bits`` set when its value differs from the previous
    position's (a run of tied values starts) and, with ``end_flags``, bit ``bits + 1`` set
    when the next position's value differs (a run ends). One byte per entry for up to 128
    rows (64 with ``end_flags``), two up to 32768 (16384).

    Up to 256 rows the sort runs on 32-bit keys (see :func:`_quantized_keys`), half the
    bytes of the 64-bit ones; columns where two distinct values share a key are sorted
    again on the 64-bit keys.

    Parameters
    ----------
    Xb : ndarray of shape (n_rows, n_columns)
        Finite values (checked by the caller).
    bits : int, optional
        Bits of the row index (default: the fewest that hold ``n_rows - 1``).
    dtype : unsigned integer dtype, optional
        Entry dtype (default: the smallest that holds the index and the flags).
    end_flags : bool, default=False
        Also flag the end of every run.

    Returns
    -------
    ndarray of shape (n_rows, n_columns)

    See Also
    --------
    SortedFeatures.from_matrix : The same sort, feature-major with the sorted values.

    Examples
    --------
    >>> P = packed_presort(np.array([[2.0], [1.0], [2.0]]))  # 2 index bits, flag bit 2
    >>> (P[:, 0] & 3).tolist(), (P[:, 0] >> 2).tolist()
    ([1, 0, 2], [0, 1, 0])
    """
    m = Xb.shape[0]
    bits = _index_bits(m) if bits is None else int(bits)
    if dtype is None:
        dtype = _packed_dtype(bits + 1 + bool(end_flags))
    dtype = np.dtype(dtype).type
    quantized = bits <= QUANTIZED_MAX_BITS and m > 1
    keys = _quantized_keys if quantized else _sorted_keys
    packed, bad = _pack(Xb, bits, dtype, end_flags, keys)
    if quantized and bad.size:  # two distinct values shared a 32-bit key
        packed[:, bad], still = _pack(Xb[:, bad], bits, dtype, end_flags, _sorted_keys)
        bad = bad[still]
    for j in bad.tolist():  # two distinct values shared a 64-bit key: sort exactly
        o = np.argsort(Xb[:, j], kind="stable")
        packed[:, j] = o
        v = Xb[o, j]
        _flag_runs(packed[:, j], v[1:] != v[:-1], slice(0, m - 1), bits, end_flags)
    return packed


def _flag_runs(packed, new_run, rows: slice, bits: int, end_flags: bool) -> None:
    """Set the flags of positions ``rows`` and the next ones: ``new_run[i]`` says whether
    the value at position ``rows.start + i + 1`` differs from the one before."""
    nxt = slice(rows.start + 1, rows.stop + 1)
    packed[nxt] |= np.left_shift(new_run, bits, dtype=packed.dtype)  # a run starts
    if end_flags:
        packed[rows] |= np.left_shift(new_run, bits + 1, dtype=packed.dtype)  # one ends


# Largest index width of the 32-bit keys: 24 bits or more are left for the value.
QUANTIZED_MAX_BITS = 8


def _quantized_keys(Xb: np.ndarray, bits: int) -> tuple[np.ndarray, bool]:
    """Sorted 32-bit keys ``(m, w)`` of the columns of ``Xb``, and whether they are exact.

    A key is a monotone quantization of the value to ``32 - bits`` bits, shifted, with the
    row index in the lowest ``bits`` bits. Integers spanning at most ``2**(32 - bits) - 2``
    in a column (counts, intensities, genotypes) are keyed by their offset from the
    column's minimum, which is exact; any other column is scaled onto that range, where
    distinct values closer than one step can share a key (the caller checks equal keys).
    """
    m, w = Xb.shape
    lo = Xb.min(axis=0).astype(np.float64)
    with np.errstate(over="ignore"):
        span = Xb.max(axis=0) - lo
    if not np.isfinite(span).all():  # beyond +-8.9e307 the offsets overflow
        return _sorted_keys(Xb, bits)
    top = float((1 << (32 - bits)) - 2)
    keys = np.empty((m, w), dtype=np.uint32)
    # Offsets while every value is an integer (and they fit); at the first fraction (usually
    # in the first chunk) the keys are written again, scaled.
    exact = bool(span.max(initial=0.0) <= top) and _write_keys(keys, Xb, lo, None, bits)
    if not exact:
        with np.errstate(over="ignore"):  # spans of subnormals: any finite scale will do
            scale = np.divide(top, span, out=np.zeros_like(span), where=span > 0)
        np.minimum(scale, np.finfo(np.float64).max, out=scale)
        _write_keys(keys, Xb, lo, scale, bits)
    keys.sort(axis=0)
    return keys, exact


def _write_keys(keys, Xb, lo, scale, bits: int) -> bool:
    """Write the unsorted keys of ``Xb`` into ``keys``, chunk by chunk: the offsets from
    ``lo`` (``scale`` None; stops and returns False at the first fraction) or the offsets
    times ``scale``. Offsets are >= 0 and <= the span (rounding is monotone); scaled, at most
    top (1 + 2**-52), so their integer part is at most top."""
    m, w = Xb.shape
    row = np.arange(m, dtype=np.uint32)[:, None]
    for rows in _row_chunks(m, w):
        xc = Xb[rows]
        if scale is None and not np.equal(np.trunc(xc), xc).all():
            return False
        t = np.subtract(xc, lo, dtype=np.float64)
        if scale is not None:
            t *= scale
        kc = keys[rows]
        kc[...] = t
        kc <<= np.uint32(bits)
        kc |= row[rows]
    return True


def _pack(Xb: np.ndarray, bits: int, dtype, end_flags: bool, sorted_keys):
    """Packed presort of ``Xb`` on the keys of ``sorted_keys``, and the columns it got wrong.

    Where two positions have equal keys their values are compared: the columns where two
    distinct values shared a key (possibly out of order) are returned for another sort.
    """
    m, w = Xb.shape
    k, exact = sorted_keys(Xb, bits)
    k = k.view(np.dtype(f"u{k.dtype.itemsize}"))  # sorted already: unsigned xors below
    low = k.dtype.type((1 << bits) - 1)
    packed = np.empty(k.shape, dtype=dtype)
    np.bitwise_and(k, low, out=packed, casting="unsafe")
    tie_cols = []
    for rows in _row_chunks(m - 1, w):
        # The low bits are row indices: the values differ where the xor exceeds them.
        new_run = np.bitwise_xor(k[rows.start + 1 : rows.stop + 1], k[rows]) > low
        _flag_runs(packed, new_run, rows, bits, end_flags)
        if not exact and not new_run.all():
            tie_cols.append(np.flatnonzero(~new_run.all(axis=0)))
    del k
    if not tie_cols:
        return packed, np.empty(0, dtype=np.intp)
    # Tied keys are tied values, or distinct values that share the kept bits: compare
    # the values of the columns with tied keys (all at once).
    cols = np.unique(np.concatenate(tie_cols))
    rows = (packed[:, cols] & dtype(low)).astype(np.intp)
    v = np.take_along_axis(Xb[:, cols], rows, axis=0)
    starts = (packed[1:, cols] & dtype(1 << bits)) != 0
    ok = np.all(v[1:] >= v[:-1], axis=0) & np.all((v[1:] > v[:-1]) == starts, axis=0)
    return packed, cols[~ok]


def _packed_dtype(n_bits: int):
    """The smallest unsigned integer dtype holding ``n_bits`` bits.

    Parameters
    ----------
    n_bits : int

    Returns
    -------
    numpy scalar type

    Examples
    --------
    >>> _packed_dtype(8).__name__, _packed_dtype(9).__name__
    ('uint8', 'uint16')
    """
    for dt in (np.uint8, np.uint16, np.uint32):
        if n_bits <= np.iinfo(dt).bits:
            return dt
    return np.uint64
