"""numba kernel of the untied rank null, imported lazily by ``_rank_null``.

``untied_rank_f`` draws labellings of the ranks 1..n into two classes and scores each as it
is drawn, in one pass without a matrix of labellings (more classes take the numpy path: one
kernel for the common case compiles faster on a first run). Each draw is the Fisher-Yates shuffle that
``numpy.random.Generator.permuted`` makes of the class codes (from the last position down,
swapping it with ``random_interval``'s masked-rejection draw from the generator's own 32-bit
stream, reached through the bit generator's ctypes interface), so the labellings, and the
generator's state after them, are those of ``gen.permuted(np.tile(codes, (draws, 1)),
axis=1)``. The F statistics repeat the operations of the screen's rank statistics
(``_screen_numpy.rank_f_scores_numpy``) in the same order; their sums are of half-integers
(location) and integers (spread), exact in any order while they stay below 2**53 (the caller
checks the sample size), so the values are bit-identical. ``error_model="numpy"``: a division
by zero gives inf or nan as the numpy path's does.
"""

import numba
import numpy as np

from widefs._utils import HELPER_JIT_OPTIONS, KERNEL_JIT_OPTIONS

# The screen's own F ratio (its two divisors are degrees of freedom, never zero).
from widefs.univariate._screen_kernels import _f_ratio


@numba.njit(**HELPER_JIT_OPTIONS, error_model="numpy")
def _interval(top, mask, next_uint32, state):
    """numpy's ``random_interval(bitgen, top)`` for ``0 < top < 2**32`` (``mask``: the
    smallest ``2**k - 1`` at least ``top``): the first 32-bit draw masked to ``mask`` that is
    at most ``top``."""
    value = np.int64(next_uint32(state)) & mask
    while value > top:
        value = np.int64(next_uint32(state)) & mask
    return value


# _shuffle and _two_classes are inlined into their one caller (numba IR level): one compiled
# call level less for a first run to optimize and generate (~0.1 s less compile CPU, the same
# draws and values); the helpers called more than once, or in a loop, stay compiled apart.
@numba.njit(inline="always")
def _shuffle(lab, codes, top_mask, next_uint32, state):
    """``lab`` := the Fisher-Yates shuffle of ``codes`` that ``Generator.permuted`` makes of one
    row (``top_mask``: ``random_interval``'s mask of ``n - 1``)."""
    n = codes.size
    for i in range(n):
        lab[i] = codes[i]
    mask = top_mask
    for i in range(n - 1, 0, -1):
        if 2 * i <= mask:  # the smallest 2**k - 1 at least i
            mask >>= 1
        j = _interval(i, mask, next_uint32, state)
        t = lab[j]
        lab[j] = lab[i]
        lab[i] = t


@numba.njit(**HELPER_JIT_OPTIONS, error_model="numpy")
def _spread_parts(dt, bt, wt, ds, dq, count):
    """One class's terms of the spread F, in the numpy path's operations and order."""
    dsc = np.float64(ds)
    dqc = np.float64(dq)
    dt = dt + dsc / (2.0 * count)
    bt = bt + dsc * dsc / (4.0 * count**3)
    wt = wt + (count * dqc - dsc * dsc) / (4.0 * count**3)
    return dt, bt, wt


@numba.njit(inline="always")
def _two_classes(lab, counts, spread, tot, d1, d2):
    """Location and spread F of one labelling of the ranks 1..n into two classes, the class
    sums kept in registers."""
    n = lab.size
    s1 = np.int64(0)
    for i in range(n):
        s1 += lab[i] * (i + 1)
    s0 = n * (n + 1) // 2 - s1
    n0 = np.int64(counts[0])
    n1 = np.int64(counts[1])
    c0 = (2 * s0 - n0 * (n + 1)) / 2.0  # the class sums of the centred ranks (exact)
    c1 = (2 * s1 - n1 * (n + 1)) / 2.0
    between = 0.0
    between = between + c0 * c0 / counts[0]
    between = between + c1 * c1 / counts[1]
    loc = _f_ratio(between, max(tot - between, 0.0), d1, d2)
    if not spread:
        return loc, 0.0
    ds0 = np.int64(0)
    ds1 = np.int64(0)
    dq0 = np.int64(0)
    dq1 = np.int64(0)
    for i in range(n):
        m = np.int64(lab[i])
        e0 = abs(2 * n0 * (i + 1) - 2 * s0)
        e1 = abs(2 * n1 * (i + 1) - 2 * s1)
        ds0 += (1 - m) * e0
        dq0 += (1 - m) * (e0 * e0)
        ds1 += m * e1
        dq1 += m * (e1 * e1)
    dt, bt, wt = _spread_parts(0.0, 0.0, 0.0, ds0, dq0, counts[0])
    dt, bt, wt = _spread_parts(dt, bt, wt, ds1, dq1, counts[1])
    bt = bt - dt * dt / n
    return loc, _f_ratio(bt, wt, d1, d2)


@numba.njit(**KERNEL_JIT_OPTIONS, error_model="numpy")
def untied_rank_f(codes, counts, spread, draws, next_uint32, state, lab):
    """Location and spread F of the ranks 1..n under ``draws`` shuffles of two classes' codes.

    codes: (n,) int64 class codes 0 and 1; counts: (2,) class sizes (float); next_uint32,
    state: the bit generator's ctypes ``next_uint32`` and ``state_address`` (advanced as
    ``permuted`` advances it); lab: (n,) int64 scratch, the caller's (an ``np.empty`` of
    int64 here would be one more function to compile on a first run). Returns ``F_loc, F_spr`` of shape (draws,) (``F_spr`` zeros
    without ``spread``). The numpy path's class sums of the centred ranks are exact
    half-integers: ``S_c - n_c (n + 1) / 2`` from the integer rank sums ``S_c`` is the same
    float; so are the sums of ``e = |n_c 2r - 2 S_c|`` and ``e^2``, summed here as integers.
    """
    n = codes.size
    d1 = 1.0
    d2 = np.float64(n - 2)
    tot = n * (n * np.float64(n) - 1.0) / 12.0  # the centred ranks' sum of squares (exact)
    F_loc = np.empty(draws)
    F_spr = np.empty(draws)
    top_mask = np.int64(1)
    while top_mask < n - 1:
        top_mask = 2 * top_mask + 1
    for b in range(draws):
        _shuffle(lab, codes, top_mask, next_uint32, state)
        F_loc[b], F_spr[b] = _two_classes(lab, counts, spread, tot, d1, d2)
    return F_loc, F_spr
