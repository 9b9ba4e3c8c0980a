"""numba kernels of the class-distribution statistic, imported lazily by ``_distribution``.

Two passes over a block of columns: the class sums of every labelling, of every column
centred and of its absolute deviations (one read of the column; the order of addition is
fixed, so a sum does not depend on how many labellings are scored together), and the step
from class sums to the combined score (two F statistics, a table lookup each, a maximum).
"""

import numba
import numpy as np

from widefs._utils import HELPER_JIT_OPTIONS, KERNEL_JIT_OPTIONS


# Sums over examples may be reassociated so they vectorize; the order depends only on the
# loop over examples, never on how many columns one call holds, so a fit, its refits and a
# certificate's batch give the same bits.
@numba.njit(**KERNEL_JIT_OPTIONS, fastmath={"reassoc"})
def block_sums(X, indicators):
    """Class sums of every column of ``X`` (n, m) and of its absolute deviations.

    Each column is centred, and so are its absolute deviations from its mean; ``sums``
    (2 m, K) holds their dot products with the K indicator rows of ``indicators`` (K, n)
    (row j: the column's, row m + j: its deviations'), ``ss`` (2, m) their sums of squares,
    ``constant`` (m,) the constant columns. One read of each column; the centred values
    live only in two buffers of n.
    """
    n, m = X.shape
    k = indicators.shape[0]
    sums = np.empty((2 * m, k))
    ss = np.empty((2, m))
    constant = np.empty(m, dtype=np.bool_)
    a = np.empty(n)
    b = np.empty(n)
    for j in range(m):
        total = 0.0
        low = np.float64(X[0, j])
        high = low
        for i in range(n):
            v = np.float64(X[i, j])
            a[i] = v
            total += v
            low = min(low, v)
            high = max(high, v)
        constant[j] = low == high
        mean = total / n
        dev_total = 0.0
        for i in range(n):
            a[i] -= mean
            b[i] = abs(a[i])
            dev_total += b[i]
        dev_mean = dev_total / n
        s0 = 0.0
        s1 = 0.0
        for i in range(n):
            b[i] -= dev_mean
            s0 += a[i] * a[i]
            s1 += b[i] * b[i]
        ss[0, j] = s0
        ss[1, j] = s1
        for c in range(k):
            acc_a = 0.0
            acc_b = 0.0
            for i in range(n):
                acc_a += a[i] * indicators[c, i]
                acc_b += b[i] * indicators[c, i]
            sums[j, c] = acc_a
            sums[m + j, c] = acc_b
    return sums, ss, constant


@numba.njit(**HELPER_JIT_OPTIONS)
def _hermite(table, u):
    """Cubic Hermite interpolation of the table's (value, slope x step) rows at u in cells."""
    k = int(u)
    t = u - k
    t2 = t * t
    t3 = t2 * t
    return (
        (2.0 * t3 - 3.0 * t2 + 1.0) * table[k, 0]
        + (t3 - 2.0 * t2 + t) * table[k, 1]
        + (3.0 * t2 - 2.0 * t3) * table[k + 1, 0]
        + (t3 - t2) * table[k + 1, 1]
    )


@numba.njit(**HELPER_JIT_OPTIONS)
def _log_survival(between, total, tail):
    """log P(F > f) for the F of ``R = between / total``, from the two tables of ``tail``:
    uniform in ``sqrt(R)`` up to a split (no logarithm for the bulk of the draws), uniform
    in ``-log(1 - R)`` beyond it, then along the last slope."""
    w_split, inv_a, table_a, z_lo, inv_b, table_b, slope_b = tail
    if not total > 0.0 or not between > 0.0:
        return 0.0
    r = between / total
    w = np.sqrt(r)
    if w < w_split:
        return _hermite(table_a, w * inv_a)
    within = total - between
    if not within > total * 1e-300:
        within = total * 1e-300
    u = (-np.log(within / total) - z_lo) * inv_b
    if u < 0.0:
        u = 0.0
    last = table_b.shape[0] - 1
    if u >= last:
        return table_b[last, 0] + slope_b * (u - last)
    return _hermite(table_b, u)


@numba.njit(**HELPER_JIT_OPTIONS)
def _between(sums, lab, row, inv_counts, n_classes):
    """Between-class sum of squares of row ``row`` of ``sums`` under labelling ``lab``:
    ``sums[row, lab * (C - 1) + c]`` holds class c's sum for c < C - 1; the last class's is
    minus their total (the column is centred)."""
    c1 = n_classes - 1
    between = 0.0
    rest = 0.0
    for c in range(c1):
        s = sums[row, lab * c1 + c]
        rest -= s
        between += s * s * inv_counts[c]
    return between + rest * rest * inv_counts[c1]


@numba.njit(**KERNEL_JIT_OPTIONS)
def combined_statistics(sums, ss, inv_counts, n_classes, tail, log_w, out):
    """Combined score of every labelling and column: ``max_k (log w_k - log P(F > F_k))``.

    sums: (2 m, L (C - 1)) class sums of the centred values (rows < m) and deviations;
    ss: (2, m) their total sums of squares; log_w: (2,) log weights; out: (L, m), natural-log
    units. Returns the between-class shares R of labelling 0 for both parts, each (m,).
    """
    n_lab, m = out.shape
    r_loc = np.zeros(m)
    r_dev = np.zeros(m)
    # Both parts share one F distribution: with the larger weight on the location, its
    # part wins whenever its share R is at least the spread's, and the spread's lookup
    # can be skipped.
    location_first = log_w[0] >= log_w[1]
    for j in range(m):
        for lab in range(n_lab):
            b_loc = _between(sums, lab, j, inv_counts, n_classes)
            b_dev = _between(sums, lab, m + j, inv_counts, n_classes)
            a = log_w[0] - _log_survival(b_loc, ss[0, j], tail)
            if location_first and b_loc * ss[1, j] >= b_dev * ss[0, j]:
                out[lab, j] = a
            else:
                b = log_w[1] - _log_survival(b_dev, ss[1, j], tail)
                out[lab, j] = a if a > b else b
            if lab == 0:
                if ss[0, j] > 0.0:
                    r_loc[j] = b_loc / ss[0, j]
                if ss[1, j] > 0.0:
                    r_dev[j] = b_dev / ss[1, j]
    return r_loc, r_dev
