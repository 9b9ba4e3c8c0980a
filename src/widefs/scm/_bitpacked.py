"""Presence/absence features at genome scale: 0/1 matrices packed in bits, counts by popcount.

A matrix whose every value is 0 or 1 (booleans, or integers or floats that are all 0 or 1:
k-mer presence, SNP carriers, binarised expression) has one stump per feature and direction:
"present" (``x > t``, direction +1) or "absent" (``x <= t``, direction -1), with the same
split of the examples for every threshold between 0 and 1. So a greedy step needs, per
feature, only the number of active negatives and positives with a 1: two population counts
of the feature's bits against the active examples' bits. Packed along the samples (64
examples per uint64 word), 200 examples x 10,000,000 features take 320 MB instead of
2 GB as booleans or 16 GB as float64, and a step reads them once.

:func:`pack_binary` recognises such a matrix (numpy array, memmap, zarr or dask array),
reading one block of columns at a time and giving up at the first block holding another
value; :func:`packed_greedy` runs the greedy of any of the three machines on it, with each
machine's own utility, float operations and tie order (:func:`_key` in the kernels), so the
rules are those of the float path (``tests/scm/test_bitpacked.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from importlib import import_module

import numpy as np

from widefs._utils import checked_matrix, iter_column_blocks
from widefs.scm._parallel import block_pool, n_threads
from widefs.scm._rules import LearnedStump

__all__ = [
    "PackedBinary",
    "PackedUtility",
    "float_path",
    "pack_binary",
    "packed_equivalents",
    "packed_greedy",
]

# Columns packed at a time (rows x columns bytes of 0/1 values per block).
PACK_BLOCK_BYTES = 1 << 23
# Feature ranges scanned by one kernel call (threads take them in turn).
SCAN_FEATURES = 1 << 18
# Sample-compression, Occam and PAC-Bayes utilities (see the kernels' _key).
SAMPLE_COMPRESSION, OCCAM, PAC_BAYES = 0, 1, 2


# Off inside `float_path()`: the benchmark and the tests run the float engines on 0/1 data.
_PACKING = ContextVar("widefs_scm_packing", default=True)


@contextmanager
def float_path():
    """Within this context, 0/1 matrices are not packed: the float engines learn from them.

    For comparing both paths on the same data (the benchmark, the tests); the rules are
    the same, the float path only slower and larger.
    """
    token = _PACKING.set(False)
    try:
        yield
    finally:
        _PACKING.reset(token)


def _kernels():
    return import_module("widefs.scm._bitpacked_kernels")  # numba: compiled on first use


def row_words(mask: np.ndarray, n_words: int) -> np.ndarray:
    """A boolean vector over the rows as uint64 words (bit ``i`` of word ``w``: row ``64 w + i``)."""
    out = np.zeros(n_words * 8, dtype=np.uint8)
    packed = np.packbits(mask.astype(bool), bitorder="little")
    out[: packed.size] = packed
    return out.view(np.uint64)


class PackedBinary:
    """A 0/1 matrix packed along the samples, or a subset of its rows.

    Made by :func:`pack_binary`; every Set Covering Machine fits on it directly (pack once,
    fit several learners). It reads like an out-of-core matrix (``X[:, columns]`` unpacks
    those columns as float64), which is how learner settings without a packed greedy
    (a fixed PAC-Bayes margin) still run on it.

    Parameters
    ----------
    bits : ndarray of uint64, shape (n_features, n_words)
        Bit ``i`` of ``bits[f, w]`` is the value of feature ``f`` in row ``64 w + i``.
    n_rows : int
        Rows of the packed matrix.
    rows : ndarray of int, optional
        The rows this view holds, increasing (default: all). Row subsets share ``bits``.

    Attributes
    ----------
    bits, n_rows, rows
        As given.
    shape : tuple of int
        ``(len(rows), n_features)``.

    See Also
    --------
    pack_binary : Packs a 0/1 matrix.

    Examples
    --------
    >>> P = pack_binary(np.array([[1, 0], [0, 1], [1, 1]], dtype=bool))
    >>> P.shape, P.ones().tolist(), P.take_rows([0, 2])[:, 0].tolist()
    ((3, 2), [2, 2], [1.0, 1.0])
    """

    def __init__(self, bits: np.ndarray, n_rows: int, rows: np.ndarray | None = None):
        self.bits = bits
        self.n_rows = int(n_rows)
        self.rows = np.arange(n_rows) if rows is None else np.asarray(rows, dtype=np.intp)
        self.shape = (self.rows.size, bits.shape[0])
        # Read like an out-of-core matrix (widefs._utils.is_lazy_matrix, load_columns).
        self.dtype = np.dtype(np.uint8)
        self.chunks = None
        self.oindex = self

    def take_rows(self, index) -> PackedBinary:
        """The view of rows ``self.rows[index]`` (no copy of the bits).

        Parameters
        ----------
        index : array_like of int or bool
            Rows of this view.

        Returns
        -------
        PackedBinary
        """
        return PackedBinary(self.bits, self.n_rows, self.rows[np.asarray(index)])

    def mask(self) -> np.ndarray:
        """The rows of this view as a boolean vector over all packed rows.

        Returns
        -------
        ndarray of bool, shape (n_rows,)
        """
        out = np.zeros(self.n_rows, dtype=bool)
        out[self.rows] = True
        return out

    def full_column(self, f: int) -> np.ndarray:
        """Feature ``f`` over all packed rows, as booleans.

        Parameters
        ----------
        f : int
            A column of the packed matrix.

        Returns
        -------
        ndarray of bool, shape (n_rows,)
        """
        as_bytes = self.bits[int(f)].view(np.uint8)
        return np.unpackbits(as_bytes, count=self.n_rows, bitorder="little").astype(bool)

    def __getitem__(self, key) -> np.ndarray:
        """``X[rows, f]`` (one feature) or ``X[rows, columns]`` (a block) as float64 values."""
        rows, columns = key
        if np.ndim(columns) == 0 and not isinstance(columns, slice):
            return self.full_column(columns)[self.rows][rows].astype(np.float64)
        as_bytes = self.bits[columns].view(np.uint8)
        block = np.unpackbits(as_bytes, axis=1, count=self.n_rows, bitorder="little").T
        return block[self.rows][rows].astype(np.float64)

    def ones(self) -> np.ndarray:
        """Number of 1s of every feature in this view's rows.

        Returns
        -------
        ndarray of int64, shape (n_features,)
        """
        kern = _kernels()
        F = self.shape[1]
        out = np.zeros(F, dtype=np.int64)
        mask = row_words(self.mask(), self.bits.shape[1])
        spans = list(iter_column_blocks(F, SCAN_FEATURES))
        with block_pool(n_threads(len(spans))) as pool:
            list(
                pool.map(
                    lambda s: kern.ones_per_feature(self.bits, mask, s.start, s.stop, out), spans
                )
            )
        return out

    def min_max(self) -> tuple[np.ndarray, np.ndarray]:
        """Column minima and maxima (0.0 or 1.0) over this view's rows.

        Returns
        -------
        minima, maxima : ndarray of float, shape (n_features,)
        """
        ones = self.ones()
        return (ones == self.shape[0]).astype(float), (ones > 0).astype(float)


def _as_01(block) -> np.ndarray | None:
    """The block as C-ordered uint8 0/1 values, or None when it holds another value."""
    if hasattr(block, "toarray"):  # a block of a scipy sparse matrix
        block = block.toarray()
    block = np.asarray(block.compute() if hasattr(block, "compute") else block)
    if block.dtype == np.bool_:
        return np.ascontiguousarray(block).view(np.uint8)
    if block.dtype.kind not in "uif":
        return None
    # The first row first: a numeric matrix is known after reading one row, not all.
    if block.shape[0] and not ((block[0] == 0) | (block[0] == 1)).all():
        return None
    if not ((block == 0) | (block == 1)).all():
        return None
    return np.ascontiguousarray(block, dtype=np.uint8)


def _read_width(X, m: int) -> int:
    """Columns per block: about PACK_BLOCK_BYTES of values, whole storage chunks out of core."""
    width = max(64, PACK_BLOCK_BYTES // max(m, 1))
    chunks = getattr(X, "chunks", None)
    try:
        c = chunks[1]
        c = int(max(c) if isinstance(c, tuple) else c)  # dask: every chunk's width
    except (TypeError, IndexError, ValueError):
        return width
    return c * max(1, width // c) if c > 0 else width


def pack_binary(X) -> PackedBinary | None:
    """``X`` packed along the samples when every value is 0 or 1; else None.

    Every Set Covering Machine packs a 0/1 matrix by itself; packing once serves several
    fits (the three learners, a decision list's machines share it anyway).

    Parameters
    ----------
    X : ndarray, memmap, zarr or dask array of shape (n_samples, n_features)
        Booleans, or integers or floats; read one block of columns at a time (the first
        block holding a value other than 0 and 1, or a NaN, stops the reading).

    Returns
    -------
    PackedBinary or None
        None when some value is not 0 or 1 (or inside :func:`float_path`).

    See Also
    --------
    PackedBinary : The packed matrix.
    widefs.scm.SampleCompressionSCM : Fits on it directly, as the other learners do.

    Examples
    --------
    >>> P = pack_binary(np.array([[1, 0], [0, 0], [1, 1]], dtype=bool))
    >>> P.shape, P[:, 0].tolist(), pack_binary(np.array([[0.5, 1.0]])) is None
    ((3, 2), [1.0, 0.0, 1.0], True)
    """
    if not _PACKING.get():
        return None
    if isinstance(X, PackedBinary):
        return X
    X = checked_matrix(X)  # a store's types and codecs checked before a value is read
    m, F = (int(v) for v in X.shape)
    spans = list(iter_column_blocks(F, _read_width(X, m)))
    first = _as_01(X[:, spans[0]]) if spans else None
    if first is None:  # most numeric data stop at the first block
        return None
    n_words = max(1, -(-m // 64))
    bits = np.zeros((F, n_words), dtype=np.uint64)
    kern = _kernels()

    def pack(span, block=None) -> bool:
        block = _as_01(X[:, span]) if block is None else block
        if block is None:
            return False
        kern.pack_rows(block, bits[span])
        return True

    pack(spans[0], first)
    with block_pool(n_threads(len(spans) - 1)) as pool:
        if not all(pool.map(pack, spans[1:])):
            return None
    bits.flags.writeable = False
    return PackedBinary(bits, m)


@dataclass(frozen=True)
class PackedUtility:
    """What a learner's greedy needs on packed data: its utility and how it builds a stump.

    Attributes
    ----------
    kind : int
        ``SAMPLE_COMPRESSION``, ``OCCAM`` or ``PAC_BAYES``.
    p : float
        Penalty per covered positive.
    penalty : ndarray of shape (n_features,)
        Subtracted from each feature's utility (Occam ``eta l``, PAC-Bayes margin term).
    usable : ndarray of bool, shape (n_features,)
        Features with a stump at all (a threshold code, a non-empty range).
    stump : callable ``(feature, direction, q, r) -> LearnedStump``
    positives : {"all", "remaining"}
        Occam's normaliser of the covered positives.
    """

    kind: int
    p: float
    penalty: np.ndarray
    usable: np.ndarray
    stump: Callable[[int, int, float, float], LearnedStump]
    positives: str = "all"


def per_range(lo: np.ndarray, hi: np.ndarray, fn: Callable, n_out: int):
    """``fn(lo_f, hi_f)`` (a tuple of ``n_out`` floats) for every feature with ``lo_f < hi_f``.

    Evaluated once per distinct range (millions of features usually share one or a few).
    Returns ``(values, usable)``: ``values`` of shape ``(n_features, n_out)``, NaN where the
    range is empty, and the mask ``lo < hi``.
    """
    usable = lo < hi
    out = np.full((lo.size, n_out), np.nan)
    lo_u, hi_u = lo[usable], hi[usable]
    if lo_u.size and (lo_u == lo_u[0]).all() and (hi_u == hi_u[0]).all():
        out[usable] = fn(float(lo_u[0]), float(hi_u[0]))  # the usual case: one range
    elif lo_u.size:
        # A range as one complex key (exact): one 1-D sort, not a row-wise unique.
        pairs, inverse = np.unique(lo_u + 1j * hi_u, return_inverse=True)
        values = np.array([fn(float(k.real), float(k.imag)) for k in pairs], dtype=float)
        out[usable] = values.reshape(len(pairs), n_out)[inverse.ravel()]
    return out, usable


def _scan(X: PackedBinary, util: PackedUtility, usable, active, y_full, pool, n_pos_total):
    """The step's best ``(u, t, feature, direction, q, r)`` over every usable feature."""
    kern = _kernels()
    W = X.bits.shape[1]
    neg, pos = active & ~y_full, active & y_full
    n_neg, n_pos = int(neg.sum()), int(pos.sum())
    p_norm = n_pos_total if util.positives == "all" else max(float(n_pos), 1.0)
    args = (row_words(neg, W), row_words(pos, W), usable, util.penalty)
    tail = (util.kind, float(util.p), float(n_neg), p_norm, n_neg, n_pos)

    def one(span):
        return kern.best_stump(X.bits, *args, span.start, span.stop, *tail)

    best = (-np.inf, -np.inf, -1, 0, 0.0, 0.0)
    for got in pool.map(one, iter_column_blocks(X.shape[1], SCAN_FEATURES)):
        # Spans in feature order: a later one wins only when strictly better.
        if got[2] >= 0 and (got[0] > best[0] or (got[0] == best[0] and got[1] > best[1])):
            best = got
    return best


def packed_greedy(
    X: PackedBinary, y_pos: np.ndarray, util: PackedUtility, *, max_rules: int, feature_reuse: bool
) -> list[LearnedStump]:
    """The hard greedy of a Set Covering Machine on packed 0/1 features.

    Each step adds the best stump (utility, tie-break, lowest feature, direction +1 first)
    and deactivates the examples it covers, until no negative remains, ``max_rules`` stumps,
    no stump (no feature with both values among the active examples), or no progress: a
    sample-compression utility that is not positive, or (Occam, PAC-Bayes) a stump covering
    no negative, as each learner's float engine stops.

    Parameters
    ----------
    X : PackedBinary
    y_pos : ndarray of bool, shape (X.shape[0],)
        Conjunction-space labels of the view's rows.
    util : PackedUtility
    max_rules : int
    feature_reuse : bool

    Returns
    -------
    list of LearnedStump
    """
    y_full = np.zeros(X.n_rows, dtype=bool)
    y_full[X.rows] = np.asarray(y_pos, dtype=bool)
    active = X.mask()
    usable = np.array(util.usable, dtype=np.bool_)
    n_pos_total = max(float(np.sum(y_pos)), 1.0)
    stumps: list[LearnedStump] = []
    spans = -(-X.shape[1] // SCAN_FEATURES)
    with block_pool(n_threads(spans)) as pool:
        while len(stumps) < max_rules and (active & ~y_full).any():
            u, _, f, d, q, r = _scan(X, util, usable, active, y_full, pool, n_pos_total)
            if f < 0 or (util.kind == SAMPLE_COMPRESSION and not u > 0.0) or q == 0.0:
                break
            stumps.append(util.stump(int(f), int(d), q, r))
            ones = X.full_column(f)
            active &= ones if d > 0 else ~ones  # direction +1 covers the 0s, -1 the 1s
            usable[f] = feature_reuse
    return stumps


def packed_equivalents(X: PackedBinary, fires: np.ndarray) -> list[tuple[int, str]]:
    """Features whose stump splits the view's rows as ``fires`` does (the rule's own included).

    ``(g, ">")`` where feature ``g`` is 1 exactly on the firing rows, ``(g, "<=")`` where it is
    0 exactly there; compared word by word against the packed pattern (exact, no pairs).
    """
    kern = _kernels()
    W = X.bits.shape[1]
    full = np.zeros(X.n_rows, dtype=bool)
    full[X.rows] = fires
    target, mask = row_words(full, W), row_words(X.mask(), W)
    F = X.shape[1]
    same, opposite = np.zeros(F, dtype=np.bool_), np.zeros(F, dtype=np.bool_)
    spans = list(iter_column_blocks(F, SCAN_FEATURES))
    with block_pool(n_threads(len(spans))) as pool:
        list(
            pool.map(
                lambda s: kern.same_pattern(X.bits, target, mask, s.start, s.stop, same, opposite),
                spans,
            )
        )
    return [(int(g), ">") for g in np.flatnonzero(same)] + [
        (int(g), "<=") for g in np.flatnonzero(opposite)
    ]
