"""The PAC-Bayes soft step against every interval enumerated (no skipping), bit for bit.

``soft_step`` skips interval starts and ends that provably cannot beat the best so far;
the enumeration below computes every utility with the kernel's own float operations, so
any skip that drops a winner (or a tie-breaking first maximum) changes the result.
"""

import math

import numpy as np
import pytest

from widefs.scm._pac_bayes_kernels import soft_step


def enumerate_soft_step(X, w, ypos, lo, hi, p, eta, n_rem, p_total, unused):
    best = (-math.inf, -1, 0, math.nan, math.nan, 0.0)
    for f in range(X.shape[1]):
        span = hi[f] - lo[f]
        if span <= 0.0 or not unused[f]:
            continue
        gv, go, cn, cxn, cp, cxp = [], [], [0.0], [0.0], [0.0], [0.0]
        for idx in np.argsort(X[:, f], kind="stable"):
            if w[idx] == 0.0:
                continue
            v = X[idx, f] - lo[f]
            if not gv or v > gv[-1]:
                gv.append(v)
                go.append(X[idx, f])
                for sums in (cn, cxn, cp, cxp):
                    sums.append(sums[-1])
            if ypos[idx]:
                cp[-1] += w[idx]
                cxp[-1] += w[idx] * v
            else:
                cn[-1] += w[idx]
                cxn[-1] += w[idx] * v
        G = len(gv)
        log_span = math.log(span)
        for s in range(G - 1):
            for e in range(s + 1, G):
                a, b = gv[s], gv[e]
                inv = 1.0 / (b - a)
                wn, wxn = cn[e + 1] - cn[s], cxn[e + 1] - cxn[s]
                wp, wxp = cp[e + 1] - cp[s], cxp[e + 1] - cxp[s]
                c1 = cn[s] + (b * wn - wxn) * inv
                v1 = c1 / n_rem - p * (cp[s] + (b * wp - wxp) * inv) / p_total
                c2 = (cn[G] - cn[e + 1]) + (wxn - a * wn) * inv
                v2 = c2 / n_rem - p * ((cp[G] - cp[e + 1]) + (wxp - a * wp) * inv) / p_total
                pen = eta * (log_span - math.log(b - a))
                for u, d, c in ((v1 - pen, 1, c1), (v2 - pen, -1, c2)):
                    if u > best[0]:  # the first maximum in (feature, start, end, +1, -1) order
                        best = (u, f, d, go[s], go[e], c)
    return best


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize(("p", "eta"), [(1.0, 0.01), (0.5, 0.0), (3.0, 0.2), (1.0, 1e-4)])
def test_soft_step_is_the_first_best_of_every_interval(seed, p, eta):
    rng = np.random.default_rng(seed)
    m, F = 36, 8
    # Few levels (many equal utilities across features) or continuous values.
    X = rng.integers(0, 6, size=(m, F)).astype(float) if seed % 2 else rng.normal(size=(m, F))
    lo, hi = X.min(axis=0) - 0.1 - rng.random(F), X.max(axis=0) + 0.1 + rng.random(F)
    # Later copies of every feature whose range is a hair narrower: the same intervals with
    # a penalty smaller by eta * ~delta, so a copy beats its original by a hair (delta = 0
    # for eta = 0: an exact tie, which the original keeps).
    delta = 10.0 ** -rng.integers(5, 13, size=F)
    # And copies whose values moved by a hair: utilities a hair apart before the penalty.
    nudged = X + rng.normal(size=(m, F)) * 10.0 ** -rng.integers(6, 13, size=F)
    X = np.hstack([X, X, nudged])
    lo = np.concatenate([lo, lo, lo])
    hi = np.concatenate([hi, hi - delta * (hi - X[:, :F].max(axis=0)), hi])
    ypos = rng.random(m) < 0.45
    # Weights as after soft covering: some removed, some partly covered.
    w = np.where(rng.random(m) < 0.15, 0.0, np.where(rng.random(m) < 0.5, rng.random(m), 1.0))
    unused = rng.random(3 * F) < 0.9
    n_rem = float(w[~ypos].sum())
    p_total = max(float(ypos.sum()), 1.0)
    order = np.argsort(X, axis=0, kind="stable").T.copy()
    values = np.take_along_axis(X, order.T, axis=0).T.copy()
    got = soft_step(order, values, w, ypos, m, lo, hi, p, eta, n_rem, p_total, unused)
    want = enumerate_soft_step(X, w, ypos, lo, hi, p, eta, n_rem, p_total, unused)
    assert got[1] >= 0
    assert got == want  # bitwise: utility, feature, direction, interval and covered weight


@pytest.mark.parametrize("seed", range(24))
def test_soft_step_skips_nothing_when_the_sums_cancel(seed):
    # Values far from the range's low end next to their gaps: b W - WX cancels, so an
    # interval's utility is off its exact value by far more than the slack; a start is
    # skipped only with a margin for that (a bound with the slack alone dropped winners).
    rng = np.random.default_rng(seed)
    m, F = 30, 6
    X = 1.0 + rng.normal(size=(m, F)) * 10.0 ** rng.integers(-12, -6, size=F)
    lo = X.min(axis=0) - 10.0 ** rng.integers(0, 4, size=F)
    hi = X.max(axis=0) + 1e-3
    ypos = rng.random(m) < 0.5
    w = np.where(rng.random(m) < 0.5, rng.random(m), 1.0)
    unused = np.ones(F, dtype=bool)
    n_rem, p_total = float(w[~ypos].sum()), max(float(ypos.sum()), 1.0)
    p, eta = [(1.0, 0.01), (0.5, 0.0), (3.0, 0.2)][seed % 3]
    order = np.argsort(X, axis=0, kind="stable").T.copy()
    values = np.take_along_axis(X, order.T, axis=0).T.copy()
    got = soft_step(order, values, w, ypos, m, lo, hi, p, eta, n_rem, p_total, unused)
    assert got == enumerate_soft_step(X, w, ypos, lo, hi, p, eta, n_rem, p_total, unused)
