"""numba kernels of the Occam greedy (imported by :mod:`widefs.scm._occam` on first use).

Compiled once per machine (``cache=True``), for one set of argument types: ``order`` int32,
``values`` float64, boolean masks. ``nogil=True`` lets worker threads scan feature blocks
side by side.
"""

import numba
import numpy as np

from widefs.scm._bounds import dyadic_search

# The search of widefs.scm.dyadic_bits, compiled: the same float operations.
dyadic_bits_nb = numba.njit(cache=True, nogil=True)(dyadic_search)


@numba.njit(cache=True, nogil=True)
def best_occam_cut(
    order, values, y_pos, active, n_positions, lo, hi, p, eta, n_rem, p_norm, next_all, use
):
    """Best Occam cut over the features of one block: ``(score, tie, feature, side, a, b)``.

    For every feature with ``use[f]``, every cut between two consecutive *active* values
    ``a < b`` of its sorted row is scored for both parts (Section VI-A of Shah, Marchand &
    Corbeil 2010): ``U = |Q| / |N'| - p |R| / p_norm - eta l`` with ``l`` the shortest dyadic
    code of a threshold in ``[a, b)``; side 0 is the left part ``x <= a`` (covered by the
    stump ``x > t``), side 1 the right part. With ``next_all``, ``b`` is the next value of
    any example, active or not. The best is the highest score, then the highest tie-break
    ``|Q| - |R|``, then the first cut, left part first, then the lowest feature (-1: none).
    """
    F = order.shape[0]
    total_neg = 0.0
    total_pos = 0.0
    for i in range(y_pos.shape[0]):
        if active[i]:
            if y_pos[i]:
                total_pos += 1.0
            else:
                total_neg += 1.0
    best_s, best_t, best_f, best_side, best_a, best_b = -np.inf, -np.inf, -1, 0, np.nan, np.nan
    for f in range(F):
        if not use[f]:
            continue
        fs, ft, fside, fa, fb = -np.inf, -np.inf, 0, np.nan, np.nan
        q0 = 0.0  # active negatives left of the cut
        r0 = 0.0  # active positives left of the cut
        have = False
        prev = 0.0
        nxt = np.inf  # first value > prev among all examples (next_all)
        row = order[f]
        vals = values[f]
        for pos in range(n_positions):
            idx = row[pos]
            v = vals[pos]
            if not active[idx]:
                if next_all and have and v > prev and v < nxt:
                    nxt = v
                continue
            if have and v > prev:
                b = (nxt if nxt < v else v) if next_all else v  # min(v, nxt)
                bits, _ = dyadic_bits_nb(prev, b, lo[f], hi[f])
                if bits >= 0:
                    pen = eta * bits
                    q1 = total_neg - q0
                    r1 = total_pos - r0
                    s0 = q0 / n_rem - p * r0 / p_norm - pen
                    t0 = q0 - r0
                    s1 = q1 / n_rem - p * r1 / p_norm - pen
                    t1 = q1 - r1
                    if s0 > fs or (s0 == fs and t0 > ft):
                        fs, ft, fside, fa, fb = s0, t0, 0, prev, b
                    if s1 > fs or (s1 == fs and t1 > ft):
                        fs, ft, fside, fa, fb = s1, t1, 1, prev, b
            if y_pos[idx]:
                r0 += 1.0
            else:
                q0 += 1.0
            have = True
            prev = v
            nxt = np.inf
        if fs > best_s or (fs == best_s and ft > best_t):
            best_s, best_t, best_f, best_side, best_a, best_b = fs, ft, f, fside, fa, fb
    return best_s, best_t, best_f, best_side, best_a, best_b
