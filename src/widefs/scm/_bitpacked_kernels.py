"""numba kernels of the presence/absence path (imported lazily by :mod:`widefs.scm._bitpacked`).

A packed matrix is ``bits[f, w]`` (uint64): bit ``i`` of word ``w`` of feature ``f`` is the
value of row ``64 w + i``. Each kernel works on a range of features and releases the GIL,
so worker threads run blocks of features in parallel (as the other greedy engines do).
"""

import numba
import numpy as np

from widefs._utils import HELPER_JIT_OPTIONS, KERNEL_JIT_OPTIONS

_M1 = np.uint64(0x5555555555555555)
_M2 = np.uint64(0x3333333333333333)
_M4 = np.uint64(0x0F0F0F0F0F0F0F0F)
_H01 = np.uint64(0x0101010101010101)


@numba.njit(inline="always")
def popcount(x):
    """Set bits of a uint64 (the classic SWAR sum; numba has no popcount intrinsic)."""
    x = x - ((x >> np.uint64(1)) & _M1)
    x = (x & _M2) + ((x >> np.uint64(2)) & _M2)
    x = (x + (x >> np.uint64(4))) & _M4
    return (x * _H01) >> np.uint64(56)


@numba.njit(**KERNEL_JIT_OPTIONS)
def pack_rows(block, out):
    """OR the 0/1 entries of ``block`` (rows x features, uint8) into ``out`` (features x words).

    Row-major reads, branch-free writes: several times faster than ``np.packbits`` along
    the samples of a C-ordered block, with the same bits (the tests compare them).
    """
    m, w = block.shape
    for i in range(m):
        word = i >> 6
        shift = np.uint64(i & 63)
        for f in range(w):
            out[f, word] |= np.uint64(block[i, f]) << shift


@numba.njit(**HELPER_JIT_OPTIONS)
def _key(kind, q, r, pen, p, n_rem, p_norm):
    """Utility and tie-break of a stump covering ``q`` negatives and ``r`` positives.

    The float operations of each learner's own engine, in the same order, so that ties
    resolve identically: 0 sample compression (``q - p r``, then ``q - r``), 1 Occam
    (``q / |N'| - p r / |P| - eta l``, then ``q - r``), 2 PAC-Bayes (``q / |N'| - p r / |P|``
    minus the margin penalty; no tie-break).
    """
    if kind == 0:
        return q - p * r, q - r
    u = q / n_rem - p * r / p_norm
    if kind == 1:
        return u - pen, q - r
    return u - pen, 0.0


@numba.njit(**KERNEL_JIT_OPTIONS)
def best_stump(bits, neg, pos, usable, pen, start, stop, kind, p, n_rem, p_norm, n_neg, n_pos):
    """Best stump of the features ``start..stop-1``: ``(utility, tie, feature, direction, q, r)``.

    ``neg`` / ``pos``: the active negatives / positives as words. A feature's stump fires on
    its 1s (direction +1, covering its active 0s) or on its 0s (direction -1); it needs
    active examples with both values. The best is the highest utility, then tie-break, then
    the lowest feature, then direction +1 (feature -1: no stump).
    """
    W = bits.shape[1]
    best_u = -np.inf
    best_t = -np.inf
    bf = np.int64(-1)
    bd = np.int64(0)
    bq = 0.0
    br = 0.0
    total = n_neg + n_pos
    for f in range(start, stop):
        if not usable[f]:
            continue
        n1 = np.uint64(0)
        p1 = np.uint64(0)
        for w in range(W):
            x = bits[f, w]
            n1 += popcount(x & neg[w])
            p1 += popcount(x & pos[w])
        ones = np.int64(n1 + p1)
        if ones == 0 or ones == total:
            continue  # one value among the active examples: no cut
        for d in (1, -1):
            if d == 1:
                q = float(n_neg - np.int64(n1))
                r = float(n_pos - np.int64(p1))
            else:
                q = float(n1)
                r = float(p1)
            u, t = _key(kind, q, r, pen[f], p, n_rem, p_norm)
            if u > best_u or (u == best_u and t > best_t):
                best_u, best_t, bf, bd, bq, br = u, t, f, d, q, r
    return best_u, best_t, bf, bd, bq, br


@numba.njit(**KERNEL_JIT_OPTIONS)
def same_pattern(bits, target, mask, start, stop, same, opposite):
    """Features whose bits on ``mask`` equal ``target`` (``same``) or its complement (``opposite``)."""
    W = bits.shape[1]
    for f in range(start, stop):
        eq = True
        comp = True
        for w in range(W):
            x = bits[f, w] & mask[w]
            eq = eq and x == target[w]
            comp = comp and x == (~target[w] & mask[w])
            if not (eq or comp):
                break
        same[f] = eq
        opposite[f] = comp


@numba.njit(**KERNEL_JIT_OPTIONS)
def ones_per_feature(bits, mask, start, stop, out):
    """Number of 1s of each feature ``start..stop-1`` on the rows of ``mask``."""
    W = bits.shape[1]
    for f in range(start, stop):
        n = np.uint64(0)
        for w in range(W):
            n += popcount(bits[f, w] & mask[w])
        out[f] = n
