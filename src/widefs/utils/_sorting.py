"""A compiled stable sort shared by the kNN and CN2 kernels (numba; loaded on first use).

numba's own ``np.argsort(kind="mergesort")`` works but costs seconds of compilation per
specialization on every fresh install; this plain bottom-up merge sort compiles in a
fraction of that and is used by every widefs kernel that needs a stable order.
"""

from __future__ import annotations

import numba
import numpy as np

__all__ = ["stable_lexsort"]


@numba.njit(cache=True, nogil=True)
def stable_lexsort(primary, secondary, idx):
    """Sort the positions ``idx`` by ``(primary, secondary)`` ascending, stably.

    Positions with equal keys keep their order in ``idx``, so an increasing ``idx`` breaks
    ties by the lower position: the order of ``np.lexsort((idx, secondary[idx],
    primary[idx]))``. Keys must not be NaN.

    Parameters
    ----------
    primary, secondary : ndarray of float64
        Sort keys, indexed by the entries of ``idx``.
    idx : ndarray of int64
        Positions to sort (not modified).

    Returns
    -------
    order : ndarray of int64
        ``idx`` sorted.

    See Also
    --------
    numpy.lexsort : The same order, in numpy.

    Examples
    --------
    >>> a = np.array([2.0, 1.0, 2.0, 0.0])
    >>> stable_lexsort(a, np.array([1.0, 0.0, 0.0, 0.0]), np.arange(4)).tolist()
    [3, 1, 2, 0]
    """
    n = idx.size
    cur = idx.copy()
    buf = np.empty(n, dtype=cur.dtype)
    width = 1
    while width < n:
        for lo in range(0, n, 2 * width):
            mid = lo + width if lo + width < n else n  # no min(): its overload compiles slowly
            hi = lo + 2 * width if lo + 2 * width < n else n
            a, b, t = lo, mid, lo
            while a < mid and b < hi:
                ia, ib = cur[a], cur[b]
                # Take from the right run only when strictly smaller: stability.
                if primary[ib] < primary[ia] or (
                    primary[ib] == primary[ia] and secondary[ib] < secondary[ia]
                ):
                    buf[t] = ib
                    b += 1
                else:
                    buf[t] = ia
                    a += 1
                t += 1
            while a < mid:
                buf[t] = cur[a]
                a += 1
                t += 1
            while b < hi:
                buf[t] = cur[b]
                b += 1
                t += 1
        cur, buf = buf, cur
        width *= 2
    return cur
