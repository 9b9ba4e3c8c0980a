"""Work that does not depend on the labels, shared while a search is re-run on relabellings.

A search certificate (:func:`widefs.model_selection.search_certificate`) re-runs a whole
search on hundreds of permutations of ``y``. Much of a search's work is a function of ``X``
and of the search's position only: the kNN distance matrix of a subset, and the
neighbours of every example after each candidate move from that subset. Every relabelling
starts from the same position (forward selection from the empty subset, a genetic
algorithm from the same initial population, k chosen on all features), so those parts
recur across relabellings while the labels differ.

Inside :func:`sharing_label_free_work` the evaluators store such results in one
:class:`LabelFreeCache` and look them up there. The active cache is scoped to the task that
opened the block (a :class:`contextvars.ContextVar`, not a process global): another thread
does not see it, and one thread leaving its block does not end another's. Threads that do a
block's work see its cache when they run in a copy of the opening task's context
(``contextvars.copy_context().run``). Stored arrays are read-only: a value shared between
fits must not be changed in place by one of them. A key holds *everything* the value is
computed from (the data's bytes, the state's bytes, the candidate list, k, ...), never the
labels, so a hit returns exactly what the computation would have returned: results never
depend on whether the cache is active, on its budget, or on which thread filled it. A
value is stored the second time its key is asked for (a result needed once, like most
states deep in a search, is never kept; values dear to compute for every row wait for a
third request, see :meth:`LabelFreeCache.wanted`), within a byte budget. The cache remembers
the last few distinct data it was asked about; the values of data it forgets go with it
(a search behind a pre-screen sees other columns on every relabelling: its earlier values
are never asked for again), so it holds about what the current fits use.
"""

from __future__ import annotations

import contextvars
import hashlib
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import numpy as np

__all__ = [
    "LabelFreeCache",
    "array_key",
    "data_digest",
    "label_free_cache",
    "sharing_label_free_work",
]

#: Default byte budget of the values one :class:`LabelFreeCache` keeps.
DEFAULT_BUDGET_BYTES = 512 * 2**20
#: Distinct data whose digest a cache remembers (most recent first).
_KNOWN_DATA = 4

# The cache of the innermost sharing block of this task (None outside any).
_ACTIVE: contextvars.ContextVar[LabelFreeCache | None] = contextvars.ContextVar(
    "widefs_label_free_cache", default=None
)


def _hash():
    # SHA-256 cut to 160 bits: OpenSSL's uses the CPU's SHA instructions (AMD Zen, Intel
    # since Ice Lake, ARMv8), 2.3x faster than BLAKE2b here (1.3 vs 3.0 ms per MB; a colon
    # run digests 49 MB). Without them (older Intel Xeons) it is about 2x slower instead.
    return hashlib.sha256()


def _digest(parts) -> bytes:
    h = _hash()
    for part in parts:
        h.update(part)
    return h.digest()[:20]


def _arrays_digest(arrays) -> bytes:
    """``_digest([array_key(a) for a in arrays])`` hashing each array's buffer in place: the
    same digest (a hash's updates concatenate) without a byte string of each array (at
    100 x 10^6 float64 that copy was 800 MB)."""
    h = _hash()
    for a in arrays:
        a = np.ascontiguousarray(a)
        if a.dtype.hasobject:  # pointers: hashed as array_key gives them
            h.update(array_key(a))
            continue
        h.update(f"{a.dtype.str}{a.shape}".encode())
        h.update(a.reshape(-1).view(np.uint8))
    return h.digest()[:20]


def _nbytes(value) -> int:
    return sum(part.nbytes for part in (value if isinstance(value, tuple) else (value,)))


def data_digest(*arrays) -> bytes:
    """A 160-bit digest (SHA-256, cut) of arrays (bytes, dtypes and shapes): the data part of a key.

    Inside :func:`sharing_label_free_work` data digested before is recognized by comparing
    its bytes (:meth:`LabelFreeCache.digest`), not hashed again: every refit of a search
    certificate digests the same data.

    Parameters
    ----------
    *arrays : array_like

    Returns
    -------
    digest : bytes of length 20

    See Also
    --------
    array_key : The full bytes of one array, for small key parts.

    Examples
    --------
    >>> data_digest(np.zeros(3)) == data_digest(np.zeros(3)), len(data_digest(np.ones(2)))
    (True, 20)
    """
    cache = _ACTIVE.get()
    if cache is None:
        return _arrays_digest(arrays)
    return cache.array_digest(arrays)


class LabelFreeCache:
    """Label-independent arrays keyed by everything they are computed from.

    Parameters
    ----------
    budget_bytes : int, default=512 MiB
        Values are no longer stored once their total size reaches this. Values keyed by
        the digest of data the cache no longer remembers (four distinct data asked for
        since) are dropped.

    Attributes
    ----------
    hits, misses : int
        Lookups answered from the cache, and computed.

    See Also
    --------
    sharing_label_free_work : Activates one for a block of code.

    Examples
    --------
    >>> cache = LabelFreeCache()
    >>> calls = []
    >>> def compute():
    ...     calls.append(1)
    ...     return np.arange(3)
    >>> key = (b"data", b"state")
    >>> [cache.get_or_compute(key, compute).tolist() for _ in range(3)]
    [[0, 1, 2], [0, 1, 2], [0, 1, 2]]
    >>> len(calls), cache.hits  # stored on the second request, found on the third
    (2, 1)
    """

    def __init__(self, budget_bytes: int = DEFAULT_BUDGET_BYTES):
        self.budget_bytes = int(budget_bytes)
        self.hits = 0
        self.misses = 0
        self._values: dict = {}
        self._requests: dict = {}  # short key -> requests of a value not stored (yet)
        self._labellings: dict = {}  # short key -> its first labelling, True after two
        self._known: list = []  # (parts, digest) of recent data, most recent first
        self._known_arrays: list = []  # (read-only copies, digest), most recent first
        self._bytes = 0
        self._lock = threading.Lock()

    def lookup(self, key: tuple):
        """The stored value of ``key`` (a tuple of bytes-like parts) or ``None``.

        Parameters
        ----------
        key : tuple of bytes
            Everything the value depends on.

        Returns
        -------
        value : ndarray or None
        """
        full = b"\0".join(bytes(part) for part in key)
        with self._lock:
            value = self._values.get(full)
            if value is not None:
                self.hits += 1
                return value
            self.misses += 1
            return None

    def wanted(self, key: tuple, after: int = 1, labels: bytes | None = None) -> bool:
        """Whether a value computed for ``key`` should be stored: it was asked for ``after``
        times before (default: on its second request) and the budget allows.

        A value that is dear to keep and cheap to recompute when only a few relabellings
        reach it (the kNN candidate lists deep in a search) waits for more requests. Given
        ``labels``, it also waits for a request from a second labelling: the fits of one
        labelling (the members of an ensemble) asking alone pay for a value that no later
        relabelling may use (behind a pre-screen each relabelling has its own data).

        Parameters
        ----------
        key : tuple of bytes
        after : int, default=1
            Earlier requests needed.
        labels : bytes, optional
            The labelling of this request (e.g. :func:`array_key` of the class codes).

        Returns
        -------
        store : bool

        Examples
        --------
        >>> cache = LabelFreeCache()
        >>> [cache.wanted((b"k",), after=2) for _ in range(4)]
        [False, False, True, True]
        >>> [cache.wanted((b"j",), 1, labels) for labels in (b"a", b"a", b"a", b"b")]
        [False, False, False, True]
        """
        short = _digest(key)
        with self._lock:
            if self._bytes >= self.budget_bytes:
                return False
            seen = self._requests.get(short, 0)
            self._requests[short] = seen + 1
            if labels is not None:
                first = self._labellings.setdefault(short, labels)
                if first is not True and first != labels:
                    self._labellings[short] = first = True  # two labellings have asked
                if first is not True:
                    return False
            return seen >= after

    def store(self, key: tuple, value) -> None:
        """Keep ``value`` for ``key``, replacing a value stored before; its arrays become
        read-only (callers share them).

        Parameters
        ----------
        key : tuple of bytes
        value : ndarray or tuple of ndarray
        """
        for part in value if isinstance(value, tuple) else (value,):
            part.setflags(write=False)
        full = b"\0".join(bytes(part) for part in key)
        with self._lock:
            old = self._values.get(full)
            if old is not None:
                self._bytes -= _nbytes(old) + len(full)
            self._values[full] = value
            self._bytes += _nbytes(value) + len(full)

    def digest(self, parts: list) -> bytes:
        """The digest of ``parts``, remembered for the last few distinct data.

        Known data is recognized by an exact comparison of its bytes (a memory compare,
        ~20x cheaper than hashing 1 MB again), so the digest is always that of ``parts``.
        Remembered bytes count against the budget.

        Parameters
        ----------
        parts : list of bytes
            The data, as :func:`array_key` gives it.

        Returns
        -------
        digest : bytes of length 20

        Examples
        --------
        >>> cache = LabelFreeCache()
        >>> cache.digest([b"abc"]) == cache.digest([b"abc"]) != cache.digest([b"abd"])
        True
        """
        with self._lock:
            for i, (known, digest) in enumerate(self._known):
                if known == parts:  # bytes compare lengths first, then memory
                    self._known.insert(0, self._known.pop(i))
                    return digest
        digest = _digest(parts)
        size = sum(len(part) for part in parts)
        with self._lock:
            self._remember(self._known, parts, digest, size, lambda old: sum(map(len, old)))
        return digest

    def array_digest(self, arrays) -> bytes:
        """:func:`data_digest` of ``arrays``, remembered for the last few distinct data.

        Known data is recognized by comparing its bytes with a kept copy, in place (no
        byte string is made of an array seen before: ~20x cheaper than one for 1 MB), so
        the digest is always that of the arrays' bytes, dtypes and shapes. Kept copies
        count against the budget.

        Parameters
        ----------
        arrays : sequence of array_like

        Returns
        -------
        digest : bytes of length 20

        Examples
        --------
        >>> cache = LabelFreeCache()
        >>> a = np.arange(4.0)
        >>> cache.array_digest([a]) == cache.array_digest([a.copy()]) == data_digest(a)
        True
        >>> cache.array_digest([a]) == cache.array_digest([a.astype(np.float32)])
        False
        """
        arrays = [np.ascontiguousarray(a) for a in arrays]
        if any(a.dtype.hasobject for a in arrays):  # (pointers: compared as their key bytes)
            return self.digest([array_key(a) for a in arrays])
        with self._lock:
            for i, (known, digest) in enumerate(self._known_arrays):
                if _same_bytes(known, arrays):
                    self._known_arrays.insert(0, self._known_arrays.pop(i))
                    return digest
        digest = _arrays_digest(arrays)
        size = sum(a.nbytes for a in arrays)
        if size > self.budget_bytes:  # never kept: no copy of it made
            return digest
        copies = [a.copy() for a in arrays]
        for c in copies:
            c.setflags(write=False)
        with self._lock:
            self._remember(
                self._known_arrays, copies, digest, size, lambda old: sum(c.nbytes for c in old)
            )
        return digest

    def _remember(self, known: list, data, digest: bytes, size: int, size_of) -> None:
        """Put ``(data, digest)`` first in ``known`` if its ``size`` fits the budget (lock
        held); entries pushed past the last :data:`_KNOWN_DATA` give back ``size_of`` them."""
        if self._bytes + size > self.budget_bytes:
            return
        known.insert(0, (data, digest))
        self._bytes += size
        for old, _ in known[_KNOWN_DATA:]:
            self._bytes -= size_of(old)
        self._forget(known)

    def _forget(self, known: list) -> None:
        """Drop the entries of ``known`` past the last :data:`_KNOWN_DATA` (lock held), with
        the values whose key holds the digest of data no longer known.

        A fit on data that falls off the list (a pre-screen's columns on an earlier
        relabelling) is not asked for again; its values would fill the budget while the
        current data's values are refused. A value asked for again is recomputed: costs
        change, never results.
        """
        gone = [digest for _, digest in known[_KNOWN_DATA:]]
        del known[_KNOWN_DATA:]
        kept = {digest for _, digest in (*self._known, *self._known_arrays)}
        gone = [digest for digest in gone if digest not in kept]
        if not gone:
            return
        for full in [f for f in self._values if any(d in f for d in gone)]:
            self._bytes -= _nbytes(self._values.pop(full)) + len(full)

    def get_or_compute(self, key: tuple, compute: Callable[[], np.ndarray]) -> np.ndarray:
        """``compute()``, or its stored result for ``key``.

        Parameters
        ----------
        key : tuple of bytes
            Everything ``compute`` depends on.
        compute : callable
            Returns a new ndarray; called when the value is not stored.

        Returns
        -------
        value : ndarray
            Possibly shared with other callers (then read-only): never modify it.
        """
        value = self.lookup(key)
        if value is not None:
            return value
        value = compute()
        if self.wanted(key):
            self.store(key, value)
        return value


def _same_bytes(known, arrays) -> bool:
    """Whether C-contiguous ``arrays`` have the dtypes, shapes and bytes of ``known``."""
    if len(known) != len(arrays):
        return False
    for k, a in zip(known, arrays):
        if k.dtype.str != a.dtype.str or k.shape != a.shape:
            return False
        k, a = _words(k), _words(a)
        # The first words first: other data of the same shape differs there, and
        # array_equal does not stop at the first difference.
        if not (np.array_equal(k[:8], a[:8]) and np.array_equal(k, a)):
            return False
    return True


def _words(a: np.ndarray) -> np.ndarray:
    """The bytes of C-contiguous ``a`` as one flat array, eight at a time where its size
    allows (equal exactly when the bytes are; ~8x fewer comparisons)."""
    flat = a.reshape(-1).view(np.uint8)
    return flat.view(np.uint64) if flat.size % 8 == 0 else flat


def label_free(key: tuple, compute: Callable[[], object], *, copy: bool = False):
    """``compute()``, shared with the other fits inside :func:`sharing_label_free_work`.

    Parameters
    ----------
    key : tuple of bytes, or a callable returning one
        Everything ``compute`` depends on (see :func:`data_digest`, :func:`array_key`); a
        callable is only called inside a sharing block (digests of large data cost time).
    compute : callable
        Returns an ndarray or a tuple of ndarrays computed without the labels.
    copy : bool, default=False
        Return copies of the arrays (for callers that modify them in place); outside a
        sharing block ``compute()`` is returned as it is.

    Returns
    -------
    value : ndarray or tuple of ndarray

    See Also
    --------
    sharing_label_free_work : The block inside which values are shared.
    LabelFreeCache.get_or_compute : The lookup behind it.

    Examples
    --------
    >>> with sharing_label_free_work():
    ...     a = [label_free((b"k",), lambda: np.zeros(2)) for _ in range(3)]
    >>> a[1] is a[2], a[0] is a[1]
    (True, False)
    """
    cache = _ACTIVE.get()
    if cache is None:
        return compute()
    value = cache.get_or_compute(key() if callable(key) else key, compute)
    if not copy:
        return value
    return tuple(v.copy() for v in value) if isinstance(value, tuple) else value.copy()


def label_free_cache() -> LabelFreeCache | None:
    """The cache activated by :func:`sharing_label_free_work`, or ``None`` outside it.

    Returns
    -------
    cache : LabelFreeCache or None

    See Also
    --------
    sharing_label_free_work : Activates one.

    Examples
    --------
    >>> label_free_cache() is None
    True
    """
    return _ACTIVE.get()


@contextmanager
def sharing_label_free_work(budget_bytes: int = DEFAULT_BUDGET_BYTES) -> Iterator[LabelFreeCache]:
    """Share label-independent work between the fits run inside this block.

    The cache belongs to the task (thread, or copied context) that opens the block: work
    it hands to threads sees the cache when each runs in a copy of its context
    (``contextvars.copy_context().run``), other threads never do, and leaving the block
    ends sharing for this task only. Nested blocks use the outer one. Results are the same
    with or without it; only their cost changes.

    Parameters
    ----------
    budget_bytes : int, default=512 MiB
        Byte budget of the stored values.

    Yields
    ------
    cache : LabelFreeCache
        The active cache (the outer one in a nested block).

    See Also
    --------
    widefs.model_selection.search_certificate : Re-runs searches inside such a block.

    Examples
    --------
    >>> with sharing_label_free_work() as cache:
    ...     label_free_cache() is cache
    True
    >>> label_free_cache() is None
    True
    """
    outer = _ACTIVE.get()
    if outer is not None:
        yield outer
        return
    cache = LabelFreeCache(budget_bytes)
    token = _ACTIVE.set(cache)
    try:
        yield cache
    finally:
        _ACTIVE.reset(token)


def array_key(a) -> bytes:
    """The bytes of an array together with its dtype and shape (a cache key part).

    Parameters
    ----------
    a : array_like

    Returns
    -------
    key : bytes

    See Also
    --------
    data_digest : A short digest, for large data.

    Examples
    --------
    >>> array_key(np.zeros(2)) == array_key(np.zeros((1, 2)))
    False
    """
    a = np.ascontiguousarray(a)
    return f"{a.dtype.str}{a.shape}".encode() + a.tobytes()
