"""numba kernels of the hard greedy (imported lazily by :mod:`widefs.scm._greedy`)."""

import numba
import numpy as np

from widefs.scm._bounds import MAX_BITS


@numba.njit(cache=True)
def dyadic_bits_nb(a, b, lo, hi):
    """Numba twin of :func:`widefs.scm._bounds.dyadic_bits` (same float operations)."""
    width = hi - lo
    for bits in range(MAX_BITS + 1):
        scale = 2.0 ** (bits + 1)
        k = np.ceil((a - lo) / width * scale)
        if k % 2.0 == 0.0:
            k += 1.0
        for step in range(2):
            kk = k + 2.0 * step
            if kk > scale - 1.0:
                break
            t = lo + width * kk / scale
            if a <= t < b:
                return bits, t
            if t >= b:
                break
    return -1, np.nan


@numba.njit(cache=True)
def sc_scorer(left, total, a, b, lo, hi, params):
    # Eq. 8: U = |Q| - p |R|. Left part covered <=> stump "x > t"; right part <=> "x <= t".
    p = params[0]
    q0 = left[0]
    r0 = left[1]
    q1 = total[0] - q0
    r1 = total[1] - r0
    return q0 - p * r0, q0 - r0, q1 - p * r1, q1 - r1


@numba.njit(cache=True)
def occam_scorer(left, total, a, b, lo, hi, params):
    # Section VI-A: U = |Q| / |N'| - p |R| / |P| - eta * l, l = dyadic code length of [a, b).
    p, eta, n_rem, p_norm = params[0], params[1], params[2], params[3]
    bits, _ = dyadic_bits_nb(a, b, lo, hi)
    if bits < 0:
        return -np.inf, -np.inf, -np.inf, -np.inf
    q0 = left[0]
    r0 = left[1]
    q1 = total[0] - q0
    r1 = total[1] - r0
    pen = eta * bits
    return (
        q0 / n_rem - p * r0 / p_norm - pen,
        q0 - r0,
        q1 / n_rem - p * r1 / p_norm - pen,
        q1 - r1,
    )
