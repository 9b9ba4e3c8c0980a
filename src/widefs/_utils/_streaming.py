"""Sums and medians of values that come a block at a time, equal to numpy's on the whole array.

A wide fit keeps one number per feature and must not also keep the temporaries of a
reduction over them (a log, a mask, a sorted copy: 8 bytes per feature each). These
functions read the values as consecutive blocks (``blocks()`` returns a new iterator of 1-D
float64 arrays each time it is called) and give the same floating-point result as numpy on
the joined array:

- :func:`pairwise_sum` is ``np.add.reduce`` bit for bit (numpy 2; numpy 1 groups its
  vectorized loop differently: equal to rounding there): numpy sums a contiguous array by
  pairwise recursion (halves cut at a multiple of 8 elements, 128-element leaves), so a node
  of that recursion summed by numpy alone is the same number, and the nodes are added up as
  the recursion adds them. ``np.mean`` is that sum divided by the count; ``np.var`` the sum of
  squared deviations from it divided by the count (minus ``ddof``).
- :func:`median` is ``np.median``: the middle values found by a radix selection on their
  bits (16 bits a pass, a pass over the blocks each), then averaged as numpy does.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

import numpy as np

__all__ = ["median", "pairwise_sum"]

# Values summed by one call of np.add.reduce (a node of numpy's recursion): its temporaries
# stay under half a megabyte whatever the number of values.
_LEAF = 65_536
# Candidates of a selection gathered into memory at once (float64): 8 MB at most.
_GATHER = 2**20
_SIGN = np.uint64(1 << 63)


def _leaf_sizes(n: int, leaf: int, out: list[int]) -> list[int]:
    """Sizes of the nodes of numpy's pairwise recursion over n values that hold at most
    ``leaf`` values, left to right."""
    if n <= leaf:
        out.append(n)
        return out
    half = n // 2
    half -= half % 8
    _leaf_sizes(half, leaf, out)
    _leaf_sizes(n - half, leaf, out)
    return out


def _add_up(n: int, leaf: int, sums: Iterator[float]) -> float:
    """The leaves' sums added as numpy's recursion adds its two halves."""
    if n <= leaf:
        return next(sums)
    half = n // 2
    half -= half % 8
    left = _add_up(half, leaf, sums)
    return left + _add_up(n - half, leaf, sums)


def _leaf_sums(chunks: Iterable[np.ndarray], sizes: list[int]) -> list[float]:
    """``np.add.reduce`` of each run of ``sizes`` consecutive values of the chunks."""
    sums: list[float] = []
    buffer = np.empty(max(sizes))
    filled = 0
    for chunk in chunks:
        chunk = np.asarray(chunk, dtype=np.float64).ravel()
        pos = 0
        while pos < chunk.size:
            want = sizes[len(sums)]
            take = min(want - filled, chunk.size - pos)
            buffer[filled : filled + take] = chunk[pos : pos + take]
            filled += take
            if filled == want:  # a leaf, contiguous in the buffer
                sums.append(float(np.add.reduce(buffer[:want])))
                filled = 0
            pos += take
    if len(sums) != len(sizes):
        raise ValueError(f"the blocks hold fewer values than the {sum(sizes)} announced.")
    return sums


def pairwise_sum(chunks: Iterable[np.ndarray], n: int, leaf: int = _LEAF) -> float:
    """``np.add.reduce(np.concatenate(chunks))`` without joining the chunks, bit for bit.

    Parameters
    ----------
    chunks : iterable of 1-D float64 arrays
        Consecutive pieces of the values.
    n : int
        Number of values in all (the recursion's cuts depend on it).
    leaf : int, default=65536
        Values summed by numpy at once; at least 128.

    Returns
    -------
    total : float
        0.0 for no values.
    """
    if n == 0:
        return 0.0
    sizes = _leaf_sizes(n, max(int(leaf), 128), [])
    return _add_up(n, max(int(leaf), 128), iter(_leaf_sums(chunks, sizes)))


def _keys(values: np.ndarray) -> np.ndarray:
    """Unsigned integers ordered as the floats: the sign bit set on positive values, every
    bit flipped on negative ones (-0.0 comes just before 0.0; numpy counts them equal)."""
    bits = np.ascontiguousarray(values, dtype=np.float64).view(np.uint64)
    negative = (bits & _SIGN) != 0
    return np.where(negative, ~bits, bits | _SIGN)


def _kth(blocks: Callable[[], Iterable[np.ndarray]], k: int) -> float:
    """The k-th smallest value (0-based) of the blocks, by 16 bits of its key a pass."""
    prefix, shift = np.uint64(0), 64
    while True:
        shift -= 16
        counts = np.zeros(65536, np.int64)
        for values in blocks():
            keys = _keys(values)
            # The candidates: keys whose bits above these 16 are the prefix (all of them at
            # the first pass: numpy shifts a 64-bit integer by 64 to 0).
            keys = keys[(keys >> np.uint64(shift + 16)) == prefix]
            digits = ((keys >> np.uint64(shift)) & np.uint64(0xFFFF)).astype(np.intp)
            counts += np.bincount(digits, minlength=65536)
        below = np.cumsum(counts)
        digit = int(np.searchsorted(below, k, side="right"))
        k -= int(below[digit - 1]) if digit else 0
        prefix = (prefix << np.uint64(16)) | np.uint64(digit)
        if shift == 0:  # every bit known: the value itself
            key = np.array([prefix], np.uint64)
            bits = np.where((key & _SIGN) != 0, key & ~_SIGN, ~key)
            return float(bits.view(np.float64)[0])
        if counts[digit] <= _GATHER:
            break
    found = [np.zeros(0)]
    for values in blocks():
        values = np.ascontiguousarray(values, dtype=np.float64)
        found.append(values[(_keys(values) >> np.uint64(shift)) == prefix])
    return float(np.partition(np.concatenate(found), k)[k])


def median(blocks: Callable[[], Iterable[np.ndarray]], n: int) -> float:
    """``np.median`` of the values of the blocks (n in all), without joining them.

    Parameters
    ----------
    blocks : callable
        Returns a new iterator over the consecutive 1-D float64 blocks of the values; it is
        called once per pass (three to five passes for each middle value).
    n : int
        Number of values in all.

    Returns
    -------
    median : float
        NaN when a value is NaN or there is none, as numpy's.
    """
    if n == 0:
        return float("nan")
    for values in blocks():
        if np.isnan(values).any():
            return float("nan")
    half = n // 2
    if n % 2:
        return _kth(blocks, half)
    # As numpy: the mean of the two middle values, (a + b) / 2.
    pair = np.array([_kth(blocks, half - 1), _kth(blocks, half)])
    return float(np.mean(pair))
