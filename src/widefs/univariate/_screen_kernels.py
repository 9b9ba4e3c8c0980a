"""numba kernels of the class-difference screen, imported lazily by ``_kinds`` and ``_rank_null``.

``first_pass_block`` computes in three passes over a block of columns (rows outer, so a
C-ordered block is read contiguously, and the loop over its columns vectorizes: callers
pass C-ordered blocks, for which it runs 2.5 times as fast as on a strided view) everything
the first pass needs:
the extremes and their counts, the integer test, skewness and kurtosis about the overall
mean, the class means and within-class sum of squares (the location fit), and the same for
the absolute deviations from the class means (the spread fit). Sums run in float64 whatever
the input's type. ``rank_f_scores`` is the one-way F of ranks (location, and spread on the
absolute deviations) under many labellings, written with the numpy path's operations in
the same order for the location part, so that its values are bit-identical.
"""

import math

import numba
import numpy as np

from widefs._utils import HELPER_JIT_OPTIONS, KERNEL_JIT_OPTIONS


@numba.njit(**KERNEL_JIT_OPTIONS)
def first_pass_block(X, codes, counts, spread):
    """Per-column statistics of ``X`` (n, w): see the module docstring.

    Returns ``lo, hi, n_lo, n_hi (w,), hi_by_class (C, w), integer (w,) bool,
    skew, kurt, means (C, w), rss (w,), spread_means (C, w), spread_rss (w,), finite (w,)``.
    """
    n, w = X.shape
    C = counts.size
    lo = np.empty(w)
    hi = np.empty(w)
    integer = np.ones(w, dtype=np.bool_)
    finite = np.ones(w, dtype=np.bool_)
    sums = np.zeros((C, w))
    total = np.zeros(w)
    for j in range(w):
        lo[j] = X[0, j]
        hi[j] = X[0, j]
    for i in range(n):
        c = codes[i]
        for j in range(w):
            # Branch-free, so that the loop over columns vectorizes.
            x = np.float64(X[i, j])
            lo[j] = min(lo[j], x)
            hi[j] = max(hi[j], x)
            integer[j] &= np.floor(x) == x
            sums[c, j] += x
            total[j] += x
    for j in range(w):
        # A NaN or an infinity makes the sum non-finite (so does an overflow: checked by caller).
        finite[j] = math.isfinite(total[j])
    means = np.empty((C, w))
    for c in range(C):
        for j in range(w):
            means[c, j] = sums[c, j] / counts[c]
    mean = total / n
    n_lo = np.zeros(w, dtype=np.int64)
    n_hi = np.zeros(w, dtype=np.int64)
    hi_by_class = np.zeros((C, w), dtype=np.int64)
    m2 = np.zeros(w)
    m3 = np.zeros(w)
    m4 = np.zeros(w)
    rss = np.zeros(w)
    dsums = np.zeros((C, w))
    for i in range(n):
        c = codes[i]
        for j in range(w):
            x = np.float64(X[i, j])
            n_lo[j] += x == lo[j]
            at_hi = x == hi[j]
            n_hi[j] += at_hi
            hi_by_class[c, j] += at_hi
            r = x - mean[j]
            r2 = r * r
            m2[j] += r2
            m3[j] += r2 * r
            m4[j] += r2 * r2
            e = x - means[c, j]
            rss[j] += e * e
            dsums[c, j] += abs(e)
    skew = np.zeros(w)
    kurt = np.zeros(w)
    for j in range(w):
        v = m2[j] / n
        if v > 0.0:
            skew[j] = m3[j] / n / v**1.5
            kurt[j] = m4[j] / n / (v * v)
    sm, sr = _spread_pass(X, codes, counts, means, dsums, spread)
    return lo, hi, n_lo, n_hi, hi_by_class, integer, skew, kurt, means, rss, sm, sr, finite


@numba.njit(**HELPER_JIT_OPTIONS)
def _spread_pass(X, codes, counts, means, dsums, spread):
    """Class means of the absolute deviations and their within-class sum of squares."""
    n, w = X.shape
    C = counts.size
    spread_means = np.empty((C, w))
    spread_rss = np.zeros(w)
    if spread:
        for c in range(C):
            for j in range(w):
                spread_means[c, j] = dsums[c, j] / counts[c]
        for i in range(n):
            c = codes[i]
            for j in range(w):
                e = abs(np.float64(X[i, j]) - means[c, j]) - spread_means[c, j]
                spread_rss[j] += e * e
    return spread_means, spread_rss


@numba.njit(**KERNEL_JIT_OPTIONS)
def rank_f_scores(R, labels, counts, spread):
    """One-way F of the columns of ranks ``R`` (n, g) under every labelling (B, n).

    Returns ``F_loc, F_spr`` of shape (B, g) (``F_spr`` zeros without ``spread``). The
    location F repeats the numpy path's operations in order (sums of half-integers are
    exact, so its values are bit-identical); the spread F is computed from exact integer
    sums (below), equal to the numpy path's to rounding.
    """
    n, g = R.shape
    B = labels.shape[0]
    C = counts.size
    d1 = np.float64(C - 1)
    d2 = np.float64(n - C)
    F_loc = np.zeros((B, g))
    F_spr = np.zeros((B, g))
    s = np.empty(C)
    sr = np.empty(C)
    ds = np.empty(C)
    dq = np.empty(C)
    for j in range(g):
        mean = 0.0
        for i in range(n):
            mean += R[i, j]
        mean = mean / n
        tot = 0.0
        for i in range(n):
            r = R[i, j] - mean
            tot += r * r
        for b in range(B):
            s[:] = 0.0
            sr[:] = 0.0
            for i in range(n):
                s[labels[b, i]] += R[i, j] - mean
                sr[labels[b, i]] += R[i, j]
            between = 0.0
            for c in range(C):
                between += s[c] * s[c] / counts[c]
            within = max(tot - between, 0.0)
            F_loc[b, j] = _f_ratio(between, within, d1, d2)
            if not spread:
                continue
            # Twice a mid-rank is an integer: with e = |n_c 2r - 2 S_c| = 2 n_c |r - mean_c|,
            # the class sums of e and e^2 are exact integers, and the F is a fixed function
            # of them: labellings with equal sums (mirror images) get bit-equal statistics,
            # so the permutation p-value counts their ties consistently.
            for c in range(C):
                ds[c] = 0.0
                dq[c] = 0.0
            for i in range(n):
                c = labels[b, i]
                e = abs(counts[c] * (2.0 * R[i, j]) - 2.0 * sr[c])
                ds[c] += e
                dq[c] += e * e
            dt = 0.0
            bt = 0.0
            wt = 0.0
            for c in range(C):
                dt += ds[c] / (2.0 * counts[c])
                bt += ds[c] * ds[c] / (4.0 * counts[c] ** 3)
                wt += (counts[c] * dq[c] - ds[c] * ds[c]) / (4.0 * counts[c] ** 3)
            bt = bt - dt * dt / n
            F_spr[b, j] = _f_ratio(bt, wt, d1, d2)
    return F_loc, F_spr


@numba.njit(**HELPER_JIT_OPTIONS)
def _f_ratio(between, within, d1, d2):
    num = between / d1
    den = within / d2
    if den == 0.0:
        if num == 0.0 or math.isnan(num):
            return 0.0
        return math.copysign(math.inf, num)
    out = num / den
    return 0.0 if math.isnan(out) else out
