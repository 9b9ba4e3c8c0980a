"""Label-dependent work shared between fits of different estimators on the same data.

A method comparison evaluates several estimators on the same folds; some of them start
with the same computation (the MGM and E[X(1)] selectors score every feature by the same
validation errors and null, and differ only in the cut). Inside :func:`sharing_fits` such a
computation is done once per ``(data, labels, random state, settings)`` and its result
handed to the next fit that asks for it. Unlike :mod:`widefs._utils._label_free` the key
holds the labels, a value is kept the first time and handed over once (then dropped: a
comparison's memo does not outlive the two fits that use each value). The memo is scoped to the task that opened the block (a
:class:`contextvars.ContextVar`); worker processes never see it, so results never depend
on it: a hit returns the value the computation returned, and leaves the random generator
in the state the computation left it in.
"""

from __future__ import annotations

import contextvars
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import numpy as np

__all__ = ["FitMemo", "shared_fit", "sharing_fits"]

#: Default byte budget of the values one :class:`FitMemo` keeps (oldest dropped first).
DEFAULT_MEMO_BYTES = 64 * 2**20

_ACTIVE: contextvars.ContextVar[FitMemo | None] = contextvars.ContextVar(
    "widefs_fit_memo", default=None
)


def _nbytes(value) -> int:
    """Bytes of the arrays a value holds (its fields', for a dataclass or a dict)."""
    if isinstance(value, np.ndarray):
        return value.nbytes
    if isinstance(value, dict):
        return sum(_nbytes(v) for v in value.values())
    if isinstance(value, list | tuple):
        return sum(_nbytes(v) for v in value)
    fields = getattr(value, "__dict__", None)
    return 0 if fields is None else _nbytes(fields)


class FitMemo:
    """Values by key, each handed over once; the oldest dropped first beyond ``budget_bytes``.

    Parameters
    ----------
    budget_bytes : int
        Byte budget of the kept values' arrays.

    Examples
    --------
    >>> memo = FitMemo(budget_bytes=100)
    >>> memo.put(b"a", (np.zeros(10), None)); memo.get(b"a")[0].size, memo.get(b"a")
    (10, None)
    >>> memo.put(b"a", (np.zeros(10), None)); memo.put(b"b", (np.zeros(10), None))
    >>> memo.get(b"a") is None, memo.get(b"b") is None  # 160 bytes > 100: "a" was dropped
    (True, False)
    """

    def __init__(self, budget_bytes: int = DEFAULT_MEMO_BYTES):
        self.budget_bytes = int(budget_bytes)
        self._values: OrderedDict[bytes, tuple] = OrderedDict()
        self._sizes: dict[bytes, int] = {}
        self._total = 0  # sum of _sizes
        self.hits = 0

    def get(self, key: bytes):
        """The kept ``(value, generator state)`` of ``key`` (no longer kept), or None."""
        got = self._values.pop(key, None)
        if got is not None:
            self._total -= self._sizes.pop(key)
            self.hits += 1
        return got

    def put(self, key: bytes, entry: tuple) -> None:
        """Keep ``entry`` under ``key``, dropping the oldest entries beyond the budget."""
        size = _nbytes(entry[0])
        if size > self.budget_bytes:
            return
        if key in self._values:  # replaced: its old size leaves the total
            self._total -= self._sizes[key]
        self._values[key] = entry
        self._sizes[key] = size
        self._total += size
        while self._total > self.budget_bytes:
            old, _ = self._values.popitem(last=False)
            self._total -= self._sizes.pop(old)


@contextmanager
def sharing_fits(budget_bytes: int = DEFAULT_MEMO_BYTES) -> Iterator[FitMemo]:
    """Share label-dependent work between the fits run inside this block.

    Nested blocks use the outer memo. Results are the same with or without it.

    Parameters
    ----------
    budget_bytes : int, default=64 MiB
        Byte budget of the kept values.

    Yields
    ------
    memo : FitMemo

    See Also
    --------
    shared_fit : The lookup fits call.

    Examples
    --------
    >>> calls = []
    >>> with sharing_fits() as memo:
    ...     for _ in range(2):
    ...         _ = shared_fit(lambda: b"k", lambda rng: calls.append(1) or np.ones(2), None)
    >>> len(calls), memo.hits
    (1, 1)
    """
    outer = _ACTIVE.get()
    if outer is not None:
        yield outer
        return
    memo = FitMemo(budget_bytes)
    token = _ACTIVE.set(memo)
    try:
        yield memo
    finally:
        _ACTIVE.reset(token)


def _state(rng) -> tuple | None:
    return None if rng is None else rng.get_state()


def _state_key(rng) -> bytes:
    """The bytes of a ``RandomState``'s state (part of a key)."""
    if rng is None:
        return b""
    name, keys, pos, has_gauss, cached = rng.get_state()
    return name.encode() + keys.tobytes() + f"{pos},{has_gauss},{cached!r}".encode()


def shared_fit(key: Callable[[], bytes], compute: Callable[[object], object], rng):
    """``compute(rng)``, or the value it returned for the same key inside :func:`sharing_fits`.

    Parameters
    ----------
    key : callable
        Returns bytes holding everything ``compute`` depends on except ``rng`` (the data's
        digest, the labels, the settings); only called inside a sharing block.
    compute : callable
        Takes ``rng`` and returns the value (read-only for its users: it may be shared).
    rng : numpy.random.RandomState or None
        The generator ``compute`` draws from: its state is part of the key, and after a hit
        it is set to the state ``compute`` left it in.

    Returns
    -------
    value : object

    See Also
    --------
    sharing_fits : The block inside which values are shared.

    Examples
    --------
    >>> rng = np.random.RandomState(0)
    >>> with sharing_fits():
    ...     a = shared_fit(lambda: b"k", lambda r: r.randint(100), rng)
    ...     rng.seed(0)
    ...     b = shared_fit(lambda: b"k", lambda r: r.randint(100), rng)
    >>> after_two_draws = np.random.RandomState(0).randint(100, size=2)[1]
    >>> bool(a == b), bool(rng.randint(100) == after_two_draws)
    (True, True)
    """
    memo = _ACTIVE.get()
    if memo is None:
        return compute(rng)
    full = key() + b"|rng:" + _state_key(rng)
    got = memo.get(full)
    if got is not None:
        value, after = got
        if rng is not None:
            rng.set_state(after)
        return value
    value = compute(rng)
    memo.put(full, (value, _state(rng)))
    return value
