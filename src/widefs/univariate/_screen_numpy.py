"""The screen's kernels in numpy, and the rule that picks them or the compiled ones.

A process that fits one screen of moderate size would spend more time importing numba and
loading the compiled kernels (about 0.5 s of CPU; about 3 s when they compile, on the first
run after install) than computing: a call with less than ``NUMBA_MIN_WORK`` entries of work
runs these numpy versions instead. They return what
:mod:`widefs.univariate._screen_kernels` returns, computed with the same operations in the
same order where it matters: the extremes, counts, integer test, class means and sums of
squares are equal (sums run over the rows in order, as numpy reduces the first axis of a
C-ordered block), the shape moments may differ in the last bit (a power); the rank statistics
are built from exact sums of half-integers, so the location and spread F are bit-identical
to the kernel's. Either path gives the same screen.
"""

from __future__ import annotations

import numpy as np

__all__ = ["NUMBA_MIN_WORK", "first_pass_kernel", "rank_f_kernel"]

#: Entries of work (values scanned by the first pass; labellings x examples x features of a
#: rank-statistics call) from which a call runs the compiled kernels. Measured on a 2-core
#: x86_64: the numpy first pass costs about 12 ns per entry against the kernel's 3; the numpy
#: rank statistics of two classes cost about the kernel's (5-8 ns), of 3-5 classes about
#: 15 ns against 3; importing numba and loading the kernels costs about 0.5 s (3 s when they
#: compile): the kernels pay from about 5e7 entries.
NUMBA_MIN_WORK = 50_000_000
#: Entries of (labellings x examples x features) the numpy rank statistics hold at once: a
#: chunk stays in the processor's cache (measured: 2^16 runs 3x faster than 2^12).
_CHUNK_ENTRIES = 2**16


def _use_numba(work: float) -> bool:
    return work >= NUMBA_MIN_WORK


def first_pass_kernel(work: float):
    """``first_pass_block`` for a first pass of ``work`` entries in all (n times m)."""
    if _use_numba(work):
        from widefs.univariate._screen_kernels import first_pass_block

        return first_pass_block
    return first_pass_block_numpy


def rank_f_kernel(work: float):
    """``rank_f_scores`` for a call of ``work`` entries (labellings x n x features)."""
    if _use_numba(work):
        from widefs.univariate._screen_kernels import rank_f_scores

        def compiled(R, labels, counts, spread):
            return rank_f_scores(R, np.ascontiguousarray(labels, dtype=np.intp), counts, spread)

        return compiled
    return rank_f_scores_numpy


def first_pass_block_numpy(X, codes, counts, spread):
    """numpy twin of ``_screen_kernels.first_pass_block`` (same arguments and results)."""
    X = np.asarray(X, dtype=np.float64)
    n, _ = X.shape
    C = counts.size
    lo, hi = X.min(axis=0), X.max(axis=0)
    integer = (np.floor(X) == X).all(axis=0)
    total = X.sum(axis=0)
    with np.errstate(invalid="ignore", over="ignore"):
        finite = np.isfinite(total)
        masks = [codes == c for c in range(C)]
        means = np.stack([X[masks[c]].sum(axis=0) / counts[c] for c in range(C)])
        at_hi = np.equal(X, hi)
        n_lo, n_hi = np.equal(X, lo).sum(axis=0), at_hi.sum(axis=0)
        hi_by_class = np.stack([at_hi[masks[c]].sum(axis=0) for c in range(C)])
        r = X - total / n
        r2 = r * r
        m2, m3, m4 = r2.sum(axis=0), (r2 * r).sum(axis=0), (r2 * r2).sum(axis=0)
        v = m2 / n
        ok = v > 0.0
        skew = np.where(ok, m3 / n / np.where(ok, v, 1.0) ** 1.5, 0.0)
        kurt = np.where(ok, m4 / n / np.where(ok, v * v, 1.0), 0.0)
        e = X - means[codes]
        rss = (e * e).sum(axis=0)
        spread_means = np.empty((C, X.shape[1]))
        spread_rss = np.zeros(X.shape[1])
        if spread:
            np.abs(e, out=e)
            for c in range(C):
                spread_means[c] = e[masks[c]].sum(axis=0) / counts[c]
            e -= spread_means[codes]
            spread_rss = (e * e).sum(axis=0)
    return (
        lo,
        hi,
        n_lo,
        n_hi,
        hi_by_class,
        integer,
        skew,
        kurt,
        means,
        rss,
        spread_means,
        spread_rss,
        finite,
    )


def _f_ratio(between, within, d1, d2):
    """``_screen_kernels._f_ratio`` on arrays."""
    num = between / d1
    den = within / d2
    with np.errstate(divide="ignore", invalid="ignore"):
        out = num / den
    out[np.isnan(out)] = 0.0
    zero = den == 0.0
    out[zero & ((num == 0.0) | np.isnan(num))] = 0.0
    return out


def rank_f_scores_numpy(R, labels, counts, spread):
    """numpy twin of ``_screen_kernels.rank_f_scores`` (same arguments and results)."""
    n, g = R.shape
    B = labels.shape[0]
    F_loc, F_spr = np.zeros((B, g)), np.zeros((B, g))
    rows = max(1, _CHUNK_ENTRIES // max(1, n * g))
    mean = R.sum(axis=0) / n
    Rc = R - mean
    tot = (Rc * Rc).sum(axis=0)
    for start in range(0, B, rows):
        part = slice(start, min(B, start + rows))
        F_loc[part], spread_f = _rank_f_chunk(R, Rc, tot, labels[part], counts, spread)
        if spread:
            F_spr[part] = spread_f
    return F_loc, F_spr


def _rank_f_chunk(R, Rc, tot, labels, counts, spread):
    n = R.shape[0]
    C = counts.size
    d1, d2 = float(C - 1), float(n - C)
    onehot = [(labels == c).astype(np.float64) for c in range(C)]
    # Sums of half-integers: exact in any order, so the matrix products equal the kernel's
    # running sums.
    between = 0.0
    sums = []
    for c in range(C):
        s = onehot[c] @ Rc
        between = between + s * s / counts[c]
        if spread:
            sums.append(onehot[c] @ R)
    F_loc = _f_ratio(between, np.maximum(tot - between, 0.0), d1, d2)
    if not spread:
        return F_loc, None
    dt = bt = wt = 0.0
    for c in range(C):
        # e = |n_c 2r - 2 S_c| on the class's members: integers, their sums exact (see the
        # kernel); every example is computed, the others weighted 0.
        e = (2.0 * counts[c]) * R[None, :, :] - 2.0 * sums[c][:, None, :]
        np.abs(e, out=e)
        e *= onehot[c][:, :, None]
        ds = e.sum(axis=1)
        e *= e
        dq = e.sum(axis=1)
        dt = dt + ds / (2.0 * counts[c])
        bt = bt + ds * ds / (4.0 * counts[c] ** 3)
        wt = wt + (counts[c] * dq - ds * ds) / (4.0 * counts[c] ** 3)
    bt = bt - dt * dt / n
    return F_loc, _f_ratio(bt, wt, d1, d2)
