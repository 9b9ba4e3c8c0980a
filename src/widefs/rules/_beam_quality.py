"""Compiled rule qualities of CN2's beam rounds: Laplace, m-estimate, minus the entropy;
the likelihood-ratio test; the rank order of candidates; and the bound on the quality of the
candidates a walk has still to generate (:mod:`widefs.rules._beam_rank`).
"""

from __future__ import annotations

import functools

import numba
import numpy as np

from widefs._utils import HELPER_JIT_OPTIONS, KERNEL_JIT_OPTIONS

__all__ = ["best_is_significant", "could_pass", "quality_of"]


@numba.njit(**HELPER_JIT_OPTIONS)
def _pairwise_sum(a):
    """``np.sum`` of a short float vector with numpy's own pairwise order (bitwise equal)."""
    n = a.size
    if n < 8:
        res = 0.0
        for i in range(n):
            res += a[i]
        return res
    # Eight scalar accumulators (no slice copy: cheaper to compile).
    r0, r1, r2, r3, r4, r5, r6, r7 = a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]
    i = np.int64(8)  # (not a literal: one typing pass less)
    stop = n - n % 8
    while i < stop:
        r0 += a[i]
        r1 += a[i + 1]
        r2 += a[i + 2]
        r3 += a[i + 3]
        r4 += a[i + 4]
        r5 += a[i + 5]
        r6 += a[i + 6]
        r7 += a[i + 7]
        i += 8
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        res += a[i]
        i += 1
    return res


@numba.njit(**KERNEL_JIT_OPTIONS)
def quality_of(vec, target, kind, m, work):
    """Rule quality of class counts ``vec`` (as ``CN2Classifier._quality``, same rounding).

    ``kind``: 0 Laplace, 1 m-estimate, 2 minus entropy; ``target`` < 0: majority class.
    ``work`` is scratch space of ``vec.size`` floats.
    """
    C = vec.size
    n = 0.0
    for c in range(C):
        n += vec[c]
    if kind == 2:
        for c in range(C):
            if vec[c] > 0:
                p = vec[c] / n
                work[c] = p * np.log2(p)
            else:
                work[c] = 0.0
        return _pairwise_sum(work)  # minus the entropy: sum p log2 p
    if target < 0:
        hit = vec[0]
        for c in range(1, C):
            if vec[c] > hit:
                hit = vec[c]
    else:
        hit = vec[target]
    if kind == 0:
        return (hit + 1.0) / (n + C)
    return (hit + m / C) / (n + m)


@numba.njit(**HELPER_JIT_OPTIONS)
def _significant(vec, cover, base_p, threshold):
    """Likelihood-ratio statistic ``2 sum f ln(f / e)`` above ``threshold``.

    Summed in class order, as the G-test is written (numpy's pairwise order differs only
    from eight classes on): :func:`_pairwise_sum` here cost a first CN2 fit ~5% more work
    to compile (cachegrind), for a rounding no reference asks for.
    """
    stat = 0.0
    for c in range(vec.size):
        if vec[c] > 0:
            stat += vec[c] * np.log(vec[c] / (cover * base_p[c]))
    return 2.0 * stat > threshold


@numba.njit(**KERNEL_JIT_OPTIONS)
def best_is_significant(counts, base_p, threshold):
    """Whether a candidate with class counts ``counts`` passes the test of a beam round
    (:func:`_significant`, the same arithmetic): for rounds shared between searches."""
    cover = counts[0] - counts[0]  # (an int64 zero, not a literal)
    for c in range(counts.size):
        cover += counts[c]
    return _significant(counts, float(cover), base_p, threshold)


# The vertices of could_pass: levels x 2^C subsets per class; with more classes the test
# does not prune (the walks are those without it).
_VERTEX_CLASSES = 6


def could_pass(counts, target: int, test: bool, base_p, threshold: float) -> np.ndarray:
    """``(B, C)`` bool: whether some specialization of member b (class counts ``counts[b]``)
    predicting class c could pass the likelihood-ratio test of :func:`_significant` (all
    True without a test). A walk stops early for a class that cannot (no candidate of it
    becomes the best): on colon's later rule searches most candidates of the larger class.

    The statistic ``2 sum f ln(f / (cover p))`` is convex in the class counts f (a relative
    entropy times the cover), so over the counts a candidate predicting c can hold (at most
    ``counts[b]``, none above f_c; with a ``target``, any) it peaks at a vertex of that
    polytope: f_c = min(T_c, T_l) for some class l, every other f_i 0 or min(T_i, f_c) (the
    box's corners with a target). A class is ruled out only below the threshold by a margin
    far above rounding. Remembered: a search's rounds, folds and relabellings ask for the
    same few class counts again.
    """
    B, C = counts.shape
    if not test or C > _VERTEX_CLASSES:
        return np.ones((B, C), dtype=bool)
    counts = np.ascontiguousarray(counts, dtype=np.int64)
    base_p = np.ascontiguousarray(base_p, dtype=np.float64)
    key = (B, C, counts.tobytes(), int(target), base_p.tobytes(), float(threshold))
    return _vertices_pass(*key).copy()  # writable (numba compiles read-only arrays anew)


@functools.lru_cache(maxsize=4096)
def _vertices_pass(B, C, counts, target, base_p, threshold) -> np.ndarray:
    """:func:`could_pass` of the arrays given as bytes, with a test."""
    if not np.isfinite(threshold):  # nothing passes
        return np.zeros((B, C), dtype=bool)
    T = np.frombuffer(counts, dtype=np.int64).reshape(B, C).astype(np.float64)
    base_p = np.frombuffer(base_p, dtype=np.float64)
    subsets = (np.arange(1 << C)[:, None] >> np.arange(C)) & 1 > 0  # (M, C)
    if target >= 0:  # (B, M, C) corners of the box
        top = _statistic(np.where(subsets, T[:, None, :], 0.0), base_p).max(axis=1)
        out = np.ones((B, C), dtype=bool)
        out[:, target] = top > threshold - 1e-9 * (1.0 + threshold)
        return out
    level = np.minimum(T[:, :, None], T[:, None, :])  # (B, c, l): f_c
    cap = np.minimum(T[:, None, None, :], level[..., None])  # (B, c, l, i)
    held = subsets[None, :, :] | np.eye(C, dtype=bool)[:, None, :]  # (c, M, i)
    f = np.where(held[None, :, None, :, :], cap[:, :, :, None, :], 0.0)  # (B, c, l, M, i)
    top = _statistic(f, base_p).max(axis=(2, 3))
    return top > threshold - 1e-9 * (1.0 + threshold)


def _statistic(f, base_p):
    """``2 sum f ln(f / (cover p))`` over the last axis (0 for no rows)."""
    cover = f.sum(axis=-1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(f > 0, f * np.log(f / (cover * base_p)), 0.0)
    return 2.0 * terms.sum(axis=-1)


# One explicit signature: called with literal indices (0, -1), a lazy dispatcher would compile
# a specialization per literal.
@numba.njit("boolean(float64, int64, int64, float64, int64, int64)", **HELPER_JIT_OPTIONS)
def _better(q1, c1, i1, q2, c2, i2):
    """Rank order: higher quality, then more examples covered, then generated first."""
    if q1 != q2:
        return q1 > q2
    if c1 != c2:
        return c1 > c2
    return i1 < i2


@numba.njit(inline="always")
def _quality(vec, cover, top, entropy_work, quality):
    """Quality of a candidate's class counts ``vec`` (``top``: the largest)."""
    kind, m, target = quality[0], quality[1], quality[2]
    if entropy_work is not None:
        return quality_of(vec, target, kind, m, entropy_work)
    # quality_of's Laplace / m-estimate, inline (the same operations; calling it for every
    # candidate made colon fits ~15% slower).
    hit = vec[target] if target >= 0 else top
    if kind == 0:
        return (hit + 1.0) / (float(cover) + vec.size)
    return (hit + m / vec.size) / (float(cover) + m)


@numba.njit(inline="always")
def _floor(ranked, kept, keep, best_t, best_q):
    """A quality below which a candidate can neither be kept nor become the best: the worse
    of the last kept candidate and the best, once both exist (-inf before)."""
    if kept == keep and keep > 0 and best_t >= 0:
        w = ranked[3][keep - 1]
        return w if w < best_q else best_q
    return -np.inf


@numba.njit(inline="always")
def _bound(c, errors, totals, limit, kind, m):
    """The highest quality (``kind`` Laplace or m-estimate) of a candidate predicting class c
    past a point of a walk where ``errors`` examples of other classes are held, and the
    cover of the one candidate reaching it: it holds at most ``totals[c]`` examples of c, at
    least those errors, and fewer than ``limit`` in all. The quality rises with the examples
    of c and falls with the others (so this bound falls as the errors grow)."""
    C = totals.size
    hits = min(totals[c], limit - 1 - errors)
    if kind == 0:
        return (hits + 1.0) / (float(hits + errors) + C), hits + errors
    return (hits + m / C) / (float(hits + errors) + m), hits + errors


@numba.njit(inline="always")
def _beaten(top_q, most, first_t, kind, q, cover, t):
    """Whether candidates of quality at most ``top_q``, covering at most ``most`` examples and
    generated from ``first_t`` on, all rank below the candidate ``(q, cover, t)``.

    Laplace qualities are one rounding of a ratio of integers, and rounding keeps order, so
    their bound is exact and a tie is settled by the cover, then the generation index; an
    m-estimate's bound leaves a margin.
    """
    if kind != 0:
        return top_q + 1e-9 < q
    return top_q < q or (top_q == q and most <= cover and t < first_t)
