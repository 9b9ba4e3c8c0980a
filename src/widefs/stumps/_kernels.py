"""numba kernels of the threshold scan (imported lazily by :mod:`widefs.stumps._scan`).

Kept apart so that ``import widefs.stumps`` (and learners that need no JIT) do not import
numba; ``cache=True`` stores compiled kernels next to this file for later processes.
"""

import numba
import numpy as np

# Below this many (feature x sample) entries a parallel region costs more than it saves
# (thread wake-up dominates, worse on a loaded machine): run the kernels on one thread.
PARALLEL_MIN_ENTRIES = 20_000_000


class threads:
    """Context manager: numba threads for a kernel over ``entries`` matrix entries."""

    def __init__(self, entries: int):
        self.entries = entries

    def __enter__(self):
        self.saved = numba.get_num_threads()
        if self.entries < PARALLEL_MIN_ENTRIES:
            numba.set_num_threads(1)
        return self

    def __exit__(self, *exc):
        numba.set_num_threads(self.saved)
        return False


@numba.njit(nogil=True, parallel=True, cache=True)
def pack_keys(cols, bits):
    # Order-preserving unsigned image of each float (sign-magnitude -> offset binary),
    # low ``bits`` bits replaced by the sample index: one integer sort then yields a
    # stable argsort whenever values differ above those bits (checked in unpack).
    F, n = cols.shape
    mask = np.uint64((1 << bits) - 1)
    top = np.uint64(1) << np.uint64(63)
    keys = np.empty((F, n), np.uint64)
    for f in numba.prange(F):
        for i in range(n):
            u = np.float64(cols[f, i] + 0.0).view(np.uint64)  # + 0.0 turns -0.0 into 0.0
            u = ~u if (u & top) else (u | top)
            keys[f, i] = (u & ~mask) | np.uint64(i)
    return keys


@numba.njit(nogil=True, parallel=True, cache=True)
def unpack_keys(keys, cols, bits, order, values):
    F, n = keys.shape
    mask = np.uint64((1 << bits) - 1)
    bad = np.zeros(F, np.bool_)
    for f in numba.prange(F):
        for i in range(n):
            idx = np.int64(keys[f, i] & mask)
            order[f, i] = idx
            w = cols[f, idx]
            values[f, i] = w
            # NaN, or two distinct values that collided in the kept bits and came out of
            # order: leave the row to argsort. (Equal values have equal keys up to the
            # index bits, so ties are always in index order: the sort is stable.)
            if w != w or (i > 0 and w < values[f, i - 1]):
                bad[f] = True
    return bad


def make_scan_kernel(parallel: bool):
    # Two compilations of one body: the parallel one (prange over features) pays off only
    # for large scans; compiled with parallel=False the loop is plain and faster on one core.
    @numba.njit(nogil=True, parallel=parallel)
    def kernel(
        order, values, channels, active, n_positions, scorer, params, lo, hi, next_all, use, compact
    ):
        F = order.shape[0]
        K = channels.shape[1]
        best_s = np.full(F, -np.inf)
        best_t = np.full(F, -np.inf)
        best_pos = np.full(F, -1, np.int64)
        best_side = np.zeros(F, np.int8)
        best_a = np.full(F, np.nan)
        best_b = np.full(F, np.nan)
        total = np.zeros(K)
        for i in range(channels.shape[0]):
            if active[i]:
                for k in range(K):
                    total[k] += channels[i, k]
        # Up to 4 channels are accumulated in registers (channel-major copy); more use
        # the left array directly. Either way the scorer sees ``left`` as an array.
        small = K <= 4
        cm = np.zeros((4, channels.shape[0]))
        if small:
            for i in range(channels.shape[0]):
                for k in range(K):
                    cm[k, i] = channels[i, k]
        for f in numba.prange(F):
            if not use[f]:
                continue
            left = np.zeros(K)
            l0 = 0.0
            l1 = 0.0
            l2 = 0.0
            l3 = 0.0
            have = False
            prev = 0.0
            nxt = np.inf  # first value > prev among all samples (next_all)
            bs = -np.inf
            bt = -np.inf
            bp = -1
            bside = 0
            ba = np.nan
            bb = np.nan
            row = order[f]
            vals = values[f]
            kept = 0  # with ``compact``, active samples are moved to the row's front
            for pos in range(n_positions):
                idx = row[pos]
                v = vals[pos]
                if not active[idx]:
                    if next_all and have and v > prev and v < nxt:
                        nxt = v
                    continue
                if compact:
                    row[kept] = idx
                    vals[kept] = v
                here = kept if compact else pos
                kept += 1
                if have and v > prev:
                    if small:
                        left[0] = l0
                        if K > 1:
                            left[1] = l1
                        if K > 2:
                            left[2] = l2
                        if K > 3:
                            left[3] = l3
                    b = min(v, nxt) if next_all else v
                    s0, t0, s1, t1 = scorer(left, total, prev, b, lo[f], hi[f], params)
                    if s0 > bs or (s0 == bs and t0 > bt):
                        bs, bt, bp, bside, ba, bb = s0, t0, here, 0, prev, b
                    if s1 > bs or (s1 == bs and t1 > bt):
                        bs, bt, bp, bside, ba, bb = s1, t1, here, 1, prev, b
                if small:
                    l0 += cm[0, idx]
                    l1 += cm[1, idx]
                    l2 += cm[2, idx]
                    l3 += cm[3, idx]
                else:
                    for k in range(K):
                        left[k] += channels[idx, k]
                have = True
                prev = v
                nxt = np.inf
            best_s[f] = bs
            best_t[f] = bt
            best_pos[f] = bp
            best_side[f] = bside
            best_a[f] = ba
            best_b[f] = bb
        return best_s, best_t, best_pos, best_side, best_a, best_b

    return kernel


SCAN_KERNELS: dict = {}


@numba.njit(nogil=True, parallel=True, cache=True)
def compact_kernel(order, values, active, n_positions):
    F = order.shape[0]
    for f in numba.prange(F):
        kept = 0
        for pos in range(n_positions):
            idx = order[f, pos]
            if active[idx]:
                order[f, kept] = idx
                values[f, kept] = values[f, pos]
                kept += 1
    return int(np.sum(active))
