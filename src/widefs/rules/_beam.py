"""Compiled beam rounds for CN2: all specializations of a beam counted, ranked and kept.

Why numba: on small, mostly nominal data (a few hundred examples, tens of attributes) a
CN2 fit is hundreds of beam rounds of a few hundred candidates each. Done with numpy, each
round costs some thirty array calls of one to a few microseconds each plus Python objects
for the kept versions, and that fixed cost, not the counting, dominated the fit
(benchmarks/bench_cn2.py). One compiled call per round counts every candidate condition of
every beam member, ranks them, keeps the ``beam_width`` best distinct conjunctions and
builds their coverage masks; Python keeps only the stopping rules (significance, POE).

The kernels read the bins and static candidates of a ``CandidateTable``
(:mod:`widefs.rules._table`, built once per fit). This module loads numba, so CN2 imports it
on first use only; its kernels avoid what makes numba compile slowly (array-to-array slice
assignment, typed containers, numba's generic sorts), because every fresh install compiles
them once.
"""

from __future__ import annotations

import numba
import numpy as np

from widefs.rules._rule import EQ, LE
from widefs.utils import stable_lexsort

__all__ = ["beam_round", "quality_of"]

# Candidates examined one best-first extraction at a time before falling back to sorting
# them all (wide beams or many duplicate conjunctions).
_MAX_EXTRACTIONS = 64


@numba.njit(cache=True, nogil=True)
def _pairwise_sum(a):
    """``np.sum`` of a short float vector with numpy's own pairwise order (bitwise equal)."""
    n = a.size
    if n < 8:
        res = 0.0
        for i in range(n):
            res += a[i]
        return res
    r = a[:8].copy()
    i = 8
    stop = n - n % 8
    while i < stop:
        for j in range(8):
            r[j] += a[i + j]
        i += 8
    res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
    while i < n:
        res += a[i]
        i += 1
    return res


@numba.njit(cache=True, nogil=True)
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


@numba.njit(cache=True, nogil=True)
def _significant(vec, cover, base_p, threshold, work):
    """Likelihood-ratio statistic ``2 sum f ln(f / e)`` above ``threshold`` (numpy's rounding)."""
    for c in range(vec.size):
        if vec[c] > 0:
            work[c] = vec[c] * np.log(vec[c] / (cover * base_p[c]))
        else:
            work[c] = 0.0
    return 2.0 * _pairwise_sum(work) > threshold


# One explicit signature: called with literal indices (0, -1), a lazy dispatcher would compile
# a specialization per literal.
@numba.njit("boolean(float64, int64, int64, float64, int64, int64)", cache=True, nogil=True)
def _better(q1, c1, i1, q2, c2, i2):
    """Rank order: higher quality, then more examples covered, then generated first."""
    if q1 != q2:
        return q1 > q2
    if c1 != c2:
        return c1 > c2
    return i1 < i2


@numba.njit(cache=True, nogil=True)
def _merge(conds, length, sid, feat, op, cand_feature, cand_op, out):
    """Conjoin static condition ``sid`` to sorted ``conds[:length]`` into ``out``.

    A numeric condition replaces one on the same attribute and side. Returns the length.
    """
    k = 0
    placed = False
    for i in range(length):
        s = conds[i]
        if op != EQ and cand_feature[s] == feat and cand_op[s] == op:
            continue
        if not placed and sid < s:
            out[k] = sid
            k += 1
            placed = True
        out[k] = s
        k += 1
    if not placed:
        out[k] = sid
        k += 1
    return k


@numba.njit(cache=True, nogil=True)
def _conj_hash(conds, length):
    h = np.int64(length) * np.int64(1000003)
    for i in range(length):
        h = h * np.int64(1099511628211) + np.int64(conds[i]) + np.int64(1)
    return h


@numba.njit(cache=True, nogil=True)
def beam_round(
    bins,
    y,
    n_classes,
    feature_nominal,
    feature_offset,
    feature_n_bins,
    feature_first_candidate,
    cand_feature,
    cand_op,
    cand_bin,
    n_bins_total,
    cov,
    conds,
    lens,
    member_counts,
    max_len,
    kind,
    m,
    target,
    min_covered,
    test,
    base_p,
    threshold,
    beam_width,
):
    """One beam round of CN2: count, rank and keep the specializations of a beam.

    Every one-condition specialization of every member (``cov[b]``: covered rows,
    ``conds[b, :lens[b]]``: sorted static ids, ``member_counts[b]``: class counts) with
    fewer than ``max_len`` conditions (``max_len <= 0``: no limit) that covers at least
    ``min_covered`` and fewer examples than the member is a candidate. Returns
    ``(n_candidates, new_cov, new_conds, new_lens, new_counts, new_quality, best_found,
    best_cov, best_conds, best_len, best_counts, best_quality, all_pure)``: the
    ``beam_width`` best distinct conjunctions in rank order, the best candidate passing the
    likelihood-ratio test (every candidate passes when ``test`` is False), and whether
    every kept version is pure (covers one class; only ``target`` when ``target >= 0``).
    """
    n, F = bins.shape
    B = cov.shape[0]
    C = n_classes
    L = conds.shape[1]
    K = cand_feature.size
    counts = np.zeros((n_bins_total, C), dtype=np.int64)
    vec = np.zeros(C, dtype=np.int64)
    tot = np.zeros(C, dtype=np.int64)
    gt = np.zeros(C, dtype=np.int64)
    work = np.empty(C)  # scratch, overwritten before every use
    cap = B * K
    c_owner = np.empty(cap, dtype=np.intp)
    c_sid = np.empty(cap, dtype=np.intp)
    c_cover = np.empty(cap, dtype=np.int64)
    c_quality = np.empty(cap)
    n_ok = 0
    best_i = -1
    for b in range(B):
        if max_len > 0 and lens[b] >= max_len:
            continue  # complete: not specialized further
        limit = 0
        for c in range(C):
            limit += member_counts[b, c]
        counts[:] = 0
        for i in range(n):
            if cov[b, i]:
                yi = y[i]
                for f in range(F):
                    k = bins[i, f]
                    if k >= 0:
                        counts[k, yi] += 1
        for f in range(F):
            off = feature_offset[f]
            nb = feature_n_bins[f]
            first = feature_first_candidate[f]
            if feature_nominal[f]:
                for r in range(nb):
                    cover = 0
                    for c in range(C):
                        vec[c] = counts[off + r, c]
                        cover += vec[c]
                    if cover >= min_covered and cover < limit:
                        q = quality_of(vec, target, kind, m, work)
                        c_owner[n_ok] = b
                        c_sid[n_ok] = first + r
                        c_cover[n_ok] = cover
                        c_quality[n_ok] = q
                        sig = not test or _significant(vec, float(cover), base_p, threshold, work)
                        if sig and (
                            best_i < 0
                            or _better(q, cover, n_ok, c_quality[best_i], c_cover[best_i], best_i)
                        ):
                            best_i = n_ok
                        n_ok += 1
                continue
            nonmissing = 0
            for c in range(C):
                tot[c] = 0
            for r in range(nb):
                for c in range(C):
                    tot[c] += counts[off + r, c]
            for c in range(C):
                nonmissing += tot[c]
            for side in range(2):  # <= then >, each by increasing threshold
                acc = 0
                for c in range(C):
                    vec[c] = 0
                for r in range(nb):
                    present = 0
                    for c in range(C):
                        present += counts[off + r, c]
                        vec[c] += counts[off + r, c]
                    acc += present
                    if present == 0:
                        continue  # no covered example takes this value: no threshold here
                    cover = acc if side == 0 else nonmissing - acc
                    if cover < min_covered or cover >= limit:
                        continue
                    side_counts = vec
                    if side == 1:
                        for c in range(C):
                            gt[c] = tot[c] - vec[c]
                        side_counts = gt
                    q = quality_of(side_counts, target, kind, m, work)
                    sig = not test or _significant(
                        side_counts, float(cover), base_p, threshold, work
                    )
                    c_owner[n_ok] = b
                    c_sid[n_ok] = first + side * nb + r
                    c_cover[n_ok] = cover
                    c_quality[n_ok] = q
                    if sig and (
                        best_i < 0
                        or _better(q, cover, n_ok, c_quality[best_i], c_cover[best_i], best_i)
                    ):
                        best_i = n_ok
                    n_ok += 1

    # The next beam: the beam_width best distinct conjunctions, best first.
    size = n_ok if n_ok > 1 else 1
    picked = np.empty(beam_width if beam_width < size else size, dtype=np.intp)
    picked_conds = np.zeros((picked.size, L), dtype=np.intp)
    picked_lens = np.zeros(picked.size, dtype=np.intp)
    n_picked = 0
    picked_hash = np.empty(picked.size, dtype=np.int64)
    merged = np.empty(L, dtype=np.intp)
    taken = np.zeros(n_ok, dtype=np.bool_)
    extractions = 0
    order = np.empty(0, dtype=np.intp)
    pos = 0
    while n_picked < beam_width:
        if extractions < _MAX_EXTRACTIONS:
            j = -1
            for t in range(n_ok):
                if not taken[t] and (
                    j < 0 or _better(c_quality[t], c_cover[t], t, c_quality[j], c_cover[j], j)
                ):
                    j = t
            if j < 0:
                break
            taken[j] = True
            extractions += 1
        else:
            if order.size == 0:
                # (quality desc, cover desc, generation order): the order of _better.
                rest = np.empty(n_ok - extractions, dtype=np.intp)
                r = 0
                for t in range(n_ok):
                    if not taken[t]:
                        rest[r] = t
                        r += 1
                if r == 0:
                    break
                order = stable_lexsort(
                    -c_quality[:n_ok], -c_cover[:n_ok].astype(np.float64), rest[:r]
                )
            if pos >= order.size:
                break
            j = order[pos]
            pos += 1
        b = c_owner[j]
        s = c_sid[j]
        k = _merge(conds[b], lens[b], s, cand_feature[s], cand_op[s], cand_feature, cand_op, merged)
        h = _conj_hash(merged, k)
        seen = False
        for p in range(n_picked):
            seen = seen or picked_hash[p] == h
        dup = False
        if seen:
            # Compare with every kept conjunction (the hash only narrows the search).
            for p in range(n_picked):
                if picked_lens[p] == k:
                    same = True
                    for i in range(k):
                        if picked_conds[p, i] != merged[i]:
                            same = False
                            break
                    if same:
                        dup = True
                        break
        if dup:
            continue
        picked_hash[n_picked] = h
        picked[n_picked] = j
        for i in range(k):
            picked_conds[n_picked, i] = merged[i]
        picked_lens[n_picked] = k
        n_picked += 1

    new_cov = np.zeros((n_picked, n), dtype=np.bool_)
    new_counts = np.zeros((n_picked, C), dtype=np.int64)
    new_quality = np.empty(n_picked)
    for p in range(n_picked):
        j = picked[p]
        _cover_rows(
            bins,
            y,
            cov[c_owner[j]],
            c_sid[j],
            cand_feature,
            cand_op,
            cand_bin,
            new_cov[p],
            new_counts[p],
        )
        new_quality[p] = c_quality[j]
    best_cov = np.zeros(n, dtype=np.bool_)
    best_counts = np.zeros(C, dtype=np.int64)
    best_conds = np.zeros(L, dtype=np.intp)
    best_len = 0
    best_quality = 0.0
    if best_i >= 0:
        b = c_owner[best_i]
        s = c_sid[best_i]
        best_len = _merge(
            conds[b], lens[b], s, cand_feature[s], cand_op[s], cand_feature, cand_op, best_conds
        )
        _cover_rows(bins, y, cov[b], s, cand_feature, cand_op, cand_bin, best_cov, best_counts)
        best_quality = c_quality[best_i]
    all_pure = True
    for p in range(n_picked):
        size = 0
        classes = 0
        for c in range(C):
            size += new_counts[p, c]
            classes += new_counts[p, c] > 0
        if (target < 0 and classes > 1) or (target >= 0 and new_counts[p, target] != size):
            all_pure = False
    return (
        n_ok,
        new_cov,
        picked_conds[:n_picked].copy(),
        picked_lens[:n_picked].copy(),
        new_counts,
        new_quality,
        best_i >= 0,
        best_cov,
        best_conds,
        best_len,
        best_counts,
        best_quality,
        all_pure,
    )


@numba.njit(cache=True, nogil=True)
def _cover_rows(bins, y, parent, sid, cand_feature, cand_op, cand_bin, out, out_counts):
    """Rows of ``parent`` satisfying condition ``sid`` (into ``out``) and their class counts."""
    f = cand_feature[sid]
    op = cand_op[sid]
    gb = cand_bin[sid]
    for i in range(parent.size):
        if parent[i]:
            v = bins[i, f]
            if op == EQ:
                ok = v == gb
            elif op == LE:
                ok = v >= 0 and v <= gb
            else:
                ok = v > gb
            if ok:
                out[i] = True
                out_counts[y[i]] += 1
