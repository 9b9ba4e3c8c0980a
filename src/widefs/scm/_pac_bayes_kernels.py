"""numba kernels of the PAC-Bayes soft greedy (imported lazily by :mod:`widefs.scm._pac_bayes`)."""

import math

import numba
import numpy as np

from widefs._utils import KERNEL_JIT_OPTIONS


# Inlined at numba IR level into both steps, not compiled on its own: a first PAC-Bayes fit
# executes ~3% fewer instructions (cachegrind), the fit is as fast.
@numba.njit(inline="always")
def group_sums(row, vals, w, ypos, n_positions, lo, gv, go, cn, cxn, cp, cxp):
    """Distinct active values (``go``; shifted by lo in ``gv``) and class-wise prefix sums of w and w*x.

    Sums use values shifted by the range's low end to limit cancellation in ``b W - WX``.
    """
    G = np.int64(0)  # (non-literal initial values: see soft_step)
    prev = 0.0
    cn[0] = 0.0
    cxn[0] = 0.0
    cp[0] = 0.0
    cxp[0] = 0.0
    for pos in range(n_positions):
        idx = row[pos]
        wi = w[idx]
        if wi == 0.0:
            continue
        v = vals[pos] - lo
        if G == 0 or v > prev:
            G += 1
            gv[G - 1] = v
            go[G - 1] = vals[pos]
            cn[G] = cn[G - 1]
            cxn[G] = cxn[G - 1]
            cp[G] = cp[G - 1]
            cxp[G] = cxp[G - 1]
            prev = v
        if ypos[idx]:
            cp[G] += wi
            cxp[G] += wi * v
        else:
            cn[G] += wi
            cxn[G] += wi * v
    return G


# Inlined into soft_step at numba IR level (so compiled with its options).
@numba.njit(inline="always")
def hard_bounds(gv, cn, cp, G, rn, rp, top, bottom):
    """Suffix maxima (``top``) and minima (``bottom``) of hard thresholds' utilities; returns
    the smallest gap between distinct values.

    An interval's utility before its (non-negative) penalty is a weighted mean of those of
    hard thresholds inside it (``1 - sigma`` is a mix of steps at its groups): for d = +1 of
    ``h(k) = rn cn[k] - rp cp[k]`` (the groups below k covered), for d = -1 of
    ``h(G) - h(k)``, k in s + 1 .. G - 1. So no interval starting at group s exceeds
    ``max(top[s], h(G) - bottom[s])`` by more than the rounding of its sums: soft_step skips
    a start or a feature whose bound is below the best by more, which changes nothing
    (colon's soft steps: 0.31 -> 0.06 s CPU, replayed).
    """
    high = -np.inf
    low = np.inf
    gap = np.inf
    for k in range(G - 1, 0, -1):
        h = cn[k] * rn - cp[k] * rp
        high = h if h > high else high
        low = h if h < low else low
        top[k - 1] = high
        bottom[k - 1] = low
        width = gv[k] - gv[k - 1]
        gap = width if width < gap else gap
    return gap


# ``error_model="numpy"``: no zero test in the divisions (the divisors are positive: n_rem > 0,
# |P| >= 1, b > a).
@numba.njit(**KERNEL_JIT_OPTIONS, error_model="numpy")
def soft_step(order, values, w, ypos, n_positions, lo, hi, p, eta, n_rem, p_total, unused):
    F = order.shape[0]
    # Prefix sums, and the suffix extremes of the hard thresholds' utilities (``top``,
    # ``bottom``). Rows taken by index, not by unpacking the array (an iteration numba types
    # and lowers: 3% more instructions to compile this kernel, callgrind).
    sums = np.empty((8, n_positions + 1))
    gv, go, cn, cxn, cp, cxp = sums[0], sums[1], sums[2], sums[3], sums[4], sums[5]
    top, bottom = sums[6], sums[7]
    best = -np.inf
    # Non-literal initial values: numba widens a literal (-1, 0) by one more typing pass over
    # the whole kernel for each loop it flows through.
    bf, bd = np.int64(-1), np.int64(0)
    ba, bb, bc = np.nan, np.nan, 0.0
    rn = 1.0 / n_rem
    rp = p / p_total
    # The utilities are at most 1 + p in size (C <= N_rem, E <= |P|); multiplying by the
    # reciprocals instead of dividing moves them by a few ulps, far less than this.
    slack = 1e-9 * (1.0 + p)
    # Rounding of an interval's utility per unit of weight and of value over width (below).
    ulps = (4.0 * n_positions + 16.0) * 2.220446049250313e-16 * (rn + (rp if rp > 0 else -rp))
    for f in range(F):
        span = hi[f] - lo[f]
        if span <= 0.0 or not unused[f]:
            continue  # an unused feature or an empty range: no interval
        G = group_sums(order[f], values[f], w, ypos, n_positions, lo[f], gv, go, cn, cxn, cp, cxp)
        if G < 2:
            continue
        log_span = math.log(span)
        tot_n = cn[G]
        tot_p = cp[G]
        gap = hard_bounds(gv, cn, cp, G, rn, rp, top, bottom)
        h_all = tot_n * rn - tot_p * rp
        # Rounding: the cancellation in b W - WX, at most (4 n + 16) ulps of the weight times
        # the largest value over the smallest width, and the slack.
        margin = slack + ulps * (tot_n + tot_p) * (1.0 + gv[G - 1] / gap)
        for s in range(G - 1):
            if top[s] + margin <= best and h_all - bottom[s] + margin <= best:
                break  # (the bounds only fall as s grows: no later start can win either)
            a = gv[s]
            below_n = cn[s]
            below_p = cp[s]
            for e in range(s + 1, G):
                b = gv[e]
                width = b - a
                inv = 1.0 / width
                wn = cn[e + 1] - cn[s]
                wxn = cxn[e + 1] - cxn[s]
                wp = cp[e + 1] - cp[s]
                wxp = cxp[e + 1] - cxp[s]
                # d = +1: 1 - sigma = 1 below a, (b - x)/(b - a) on [a, b], 0 above b.
                c1 = below_n + (b * wn - wxn) * inv
                e1 = below_p + (b * wp - wxp) * inv
                # d = -1: 1 - sigma = 0 below a, (x - a)/(b - a) on [a, b], 1 above b.
                c2 = (tot_n - cn[e + 1]) + (wxn - a * wn) * inv
                e2 = (tot_p - cp[e + 1]) + (wxp - a * wp) * inv
                # Most ends lose by far: told by multiplications (within ``slack`` of the
                # utilities' divisions), so the divisions run only for the few that might not.
                if c1 * rn - e1 * rp <= best - slack and c2 * rn - e2 * rp <= best - slack:
                    continue
                # The penalty is >= 0 (eta >= 0 and width <= span: PACBayesSCM validates eta and
                # rejects data outside [A, B]), so u = v - pen > best needs v > best: the
                # logarithm is taken only then (u is computed exactly as before).
                v1 = c1 / n_rem - p * e1 / p_total
                v2 = c2 / n_rem - p * e2 / p_total
                if v1 <= best and v2 <= best:
                    continue
                pen = eta * (log_span - math.log(width))
                u = v1 - pen
                if u > best:
                    best, bf, bd, ba, bb, bc = u, f, 1, go[s], go[e], c1
                u = v2 - pen
                if u > best:
                    best, bf, bd, ba, bb, bc = u, f, -1, go[s], go[e], c2
    return best, bf, bd, ba, bb, bc


@numba.njit(**KERNEL_JIT_OPTIONS)
def fixed_step(order, values, w, ypos, n_positions, lo, hi, p, eta, n_rem, p_total, gamma, unused):
    """Fixed-margin heuristic: intervals [t - h, t + h] (clipped to the range), h = gamma (B - A)."""
    F = order.shape[0]
    sums = np.empty((6, n_positions + 1))  # prefix sums
    gv, go, cn, cxn, cp, cxp = sums[0], sums[1], sums[2], sums[3], sums[4], sums[5]
    best = -np.inf
    bf, bd = np.int64(-1), np.int64(0)  # (non-literal: see soft_step)
    ba, bb, bt, bc = np.nan, np.nan, np.nan, 0.0
    for f in range(F):
        span = hi[f] - lo[f]
        if span <= 0.0 or not unused[f]:
            continue  # an unused feature or an empty range: no interval
        G = group_sums(order[f], values[f], w, ypos, n_positions, lo[f], gv, go, cn, cxn, cp, cxp)
        if G < 2:
            continue
        h = gamma * span
        log_span = math.log(span)
        tot_n = cn[G]
        tot_p = cp[G]
        i0 = np.int64(0)  # first group with value >= a (not a literal: see soft_step)
        i1 = i0  # first group with value > b
        for g in range(G - 1):
            t = go[g] + (go[g + 1] - go[g]) / 2.0
            if t >= go[g + 1]:
                t = go[g]
            a_orig = lo[f] if lo[f] > t - h else t - h  # max and min, without builtins
            b_orig = hi[f] if hi[f] < t + h else t + h
            a = a_orig - lo[f]
            b = b_orig - lo[f]
            while i0 < G and go[i0] < a_orig:
                i0 += 1
            while i1 < G and go[i1] <= b_orig:
                i1 += 1
            width = b - a
            inv = 1.0 / width
            wn = cn[i1] - cn[i0]
            wxn = cxn[i1] - cxn[i0]
            wp = cp[i1] - cp[i0]
            wxp = cxp[i1] - cxp[i0]
            pen = eta * (log_span - math.log(width))
            c = cn[i0] + (b * wn - wxn) * inv
            u = c / n_rem - p * (cp[i0] + (b * wp - wxp) * inv) / p_total - pen
            if u > best:
                best, bf, bd, ba, bb, bt, bc = u, f, 1, a_orig, b_orig, t, c
            c = (tot_n - cn[i1]) + (wxn - a * wn) * inv
            u = c / n_rem - p * ((tot_p - cp[i1]) + (wxp - a * wp) * inv) / p_total - pen
            if u > best:
                best, bf, bd, ba, bb, bt, bc = u, f, -1, a_orig, b_orig, t, c
    return best, bf, bd, ba, bb, bt, bc
