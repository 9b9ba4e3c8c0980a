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
them once. For the same reason the candidate generation is written inside ``beam_round``
rather than in a compiled function of its own: numba optimizes and compiles a callee's
code again inside every caller (measured: ~0.7 s less LLVM time on a first CN2 fit).
"""

from __future__ import annotations

import numba
import numpy as np

from widefs.rules._rule import EQ, LE
from widefs.utils import HELPER_JIT_OPTIONS, KERNEL_JIT_OPTIONS

__all__ = ["beam_round", "quality_of"]


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


@numba.njit(**HELPER_JIT_OPTIONS)
def _merge(conds, length, sid, feat, op, cand_feature, cand_op, out):
    """Conjoin static condition ``sid`` to sorted ``conds[:length]`` into ``out``.

    A numeric condition replaces one on the same attribute and side. Returns the length.
    """
    k = np.int64(0)  # (non-literal initial values: one typing pass less)
    placed = k != 0
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


@numba.njit(**KERNEL_JIT_OPTIONS)
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
    walk_rows,
    walk_bins,
    table_counts,
    cov,
    conds,
    lens,
    member_counts,
    max_len,
    kind,
    entropy_work,
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
    ``(n_candidates, new_cov, new_conds, new_lens, new_counts, best_found, best_cov,
    best_conds, best_len, best_counts, best_quality, all_pure)``: the ``beam_width`` best
    distinct conjunctions in rank order, the best candidate passing the likelihood-ratio
    test (every candidate passes when ``test`` is False; ``best_cov`` is (1, n); when none
    does, the ``best_*`` arrays are empty and ``best_cov`` is (0, n)), and whether every
    kept version is pure (covers one class; only ``target`` when ``target >= 0``).

    Quality (``kind``): 0 Laplace, 1 m-estimate with ``entropy_work`` None; 2 minus the
    entropy with ``entropy_work`` scratch space of ``n_classes`` floats. None is a type of
    its own to numba, which then drops the entropy code before compiling: the usual
    specialization never compiles :func:`quality_of` (~6% of a first CN2 fit's work).
    """
    n = bins.shape[0]
    C = n_classes
    L = conds.shape[1]
    # Counters start from ``zero``, an int64, not from the literal 0: numba types a literal
    # as a type of its own and widens it by one more pass over the whole function for each
    # loop it flows through (7 typing passes over this kernel instead of 2).
    zero = np.int64(0)
    picked_b = np.empty(beam_width, dtype=np.intp)
    picked_s = np.empty(beam_width, dtype=np.intp)
    picked_conds = np.empty((beam_width, L), dtype=np.intp)  # rows written before read
    picked_lens = np.empty(beam_width, dtype=np.intp)
    n_picked = zero
    pos = zero  # candidates offered so far, in rank order
    # Candidates kept, best first, on the first pass over them: twice the beam leaves room
    # for duplicate conjunctions; a round that needs more passes again keeping four times as
    # many. (64 at first cost 10-20% of a fit on many-class data: each insertion shifts them.)
    size = zero + 2 * beam_width
    F = walk_rows.shape[0]
    B = cov.shape[0]
    n_bins = zero
    for f in range(F):
        n_bins += feature_n_bins[f]
    # A member's groups come from counting its rows into ``table_counts``, a (bin, class)
    # table zeroed for each member, when that is cheaper than walking every attribute's n
    # values (narrow data, few covered rows); None where it never is, and numba then drops
    # that code before compiling (a first CN2 fit on colon: 1.96 -> 1.73 s of CPU).
    group_bin = np.empty(n, dtype=np.intp)
    # Cumulative class counts: row g + 1 after group g (and one spare row, written ahead).
    group_counts = np.empty((n + 2, C), dtype=np.int64)
    for c in range(C):
        group_counts[0, c] = 0  # (rows g + 1 are written from row g before they are read)
    vec = np.empty(C, dtype=np.int64)
    while True:
        # Generate every candidate specialization, in order; keep the ``size`` best (by
        # _better) in rank order in the o_* lists, and nothing else (a wide table has
        # hundreds of thousands of candidates a round). Each attribute is walked in value
        # order (walk_rows/walk_bins, missing values last or first with bin -1), so only the
        # member's covered rows make thresholds. best_*: the best candidate passing the test.
        o_owner = np.empty(size, dtype=np.intp)
        o_sid = np.empty(size, dtype=np.intp)
        o_cover = np.empty(size, dtype=np.int64)
        o_quality = np.empty(size, dtype=np.float64)
        o_index = np.empty(size, dtype=np.intp)
        keep = size
        n_ok = zero
        kept = zero
        best_t = zero - 1
        best_b = zero
        best_s = np.int64(0)  # (not a literal: one compiled _merge and _cover_rows)
        best_c = zero
        best_q = 0.0
        for b in range(B):
            if max_len > 0 and lens[b] >= max_len:
                continue  # complete: not specialized further
            limit = zero
            for c in range(C):
                limit += member_counts[b, c]
            covb = cov[b]
            table = False
            if table_counts is not None:
                table = 2 * n_bins * C + limit * F < n * F
            # (``table_counts is not None`` again, not ``table`` alone: numba prunes only tests
            # of an argument against None, so this is what drops the path on wide data.)
            if table_counts is not None and table:
                for k in range(n_bins * C):
                    table_counts[k] = 0
                for i in range(n):
                    if covb[i]:
                        yi = y[i]
                        for f in range(F):
                            k = bins[i, f]
                            if k >= 0:
                                table_counts[k * C + yi] += 1
            for f in range(F):
                off = feature_offset[f]
                nb = feature_n_bins[f]
                nominal = feature_nominal[f]
                # Groups: the distinct bins of the covered rows, in increasing order, with the
                # cumulative class counts after each. A nominal attribute counted into the
                # table has a group per value and reads its counts from the table (a value no
                # covered row takes covers nothing, and min_covered >= 1 drops it).
                G = zero
                if table_counts is not None and table:
                    for k in range(off, off + nb):
                        present = zero + nominal
                        for c in range(0 if nominal else C):  # (row G + 1 is written ahead)
                            kc = table_counts[k * C + c]
                            group_counts[G + 1, c] = group_counts[G, c] + kc
                            present += kc
                        if present > 0:
                            group_bin[G] = k
                            G += 1
                else:
                    rows_f = walk_rows[f]
                    bins_f = walk_bins[f]
                    for q in range(n):
                        k = bins_f[q]
                        i = rows_f[q]
                        if k < 0 or not covb[i]:
                            continue
                        if G == 0 or group_bin[G - 1] != k:
                            for c in range(C):
                                group_counts[G + 1, c] = group_counts[G, c]
                            group_bin[G] = k
                            G += 1
                        group_counts[G, y[i]] += 1
                if G == 0:
                    continue
                first = feature_first_candidate[f]
                # Nominal: == each value. Numeric: <= then >, each by increasing threshold.
                for side in range(1 if nominal else 2):
                    for g in range(G):
                        # Class counts: rows lo..hi of the cumulative table (row 0 is zero).
                        if nominal:
                            lo, hi = g, g + 1
                        elif side == 0:
                            lo, hi = zero, g + 1
                        else:
                            lo, hi = g + 1, G
                        cover = zero
                        top = zero  # the majority class's count
                        k = group_bin[g]
                        for c in range(C):
                            if table_counts is not None and table and nominal:
                                v = table_counts[k * C + c]
                            else:
                                v = group_counts[hi, c] - group_counts[lo, c]
                            vec[c] = v
                            cover += v
                            if v > top:
                                top = v
                        if cover < min_covered or cover >= limit:
                            continue
                        t = n_ok
                        n_ok += 1
                        sid = first + side * nb + k - off
                        if entropy_work is not None:
                            q = quality_of(vec, target, kind, m, entropy_work)
                        else:
                            # quality_of's Laplace / m-estimate, inline (the same operations;
                            # calling it for every candidate made colon fits ~15% slower).
                            hit = vec[target] if target >= 0 else top
                            if kind == 0:
                                q = (hit + 1.0) / (float(cover) + C)
                            else:
                                q = (hit + m / C) / (float(cover) + m)
                        # The test (a logarithm per class) only for a would-be best.
                        if (best_t < 0 or _better(q, cover, t, best_q, best_c, best_t)) and (
                            not test or _significant(vec, float(cover), base_p, threshold)
                        ):
                            best_t, best_b, best_s, best_c, best_q = t, b, sid, cover, q
                        if kept == keep:
                            w = keep - 1
                            # Generation order breaks ties: a later candidate never beats an
                            # equal one, so most candidates stop here.
                            if keep == 0 or not _better(
                                q, cover, t, o_quality[w], o_cover[w], o_index[w]
                            ):
                                continue
                            at = w
                        else:
                            at = kept
                            kept += 1
                        while at > 0 and _better(
                            q, cover, t, o_quality[at - 1], o_cover[at - 1], o_index[at - 1]
                        ):
                            o_owner[at] = o_owner[at - 1]
                            o_sid[at] = o_sid[at - 1]
                            o_cover[at] = o_cover[at - 1]
                            o_quality[at] = o_quality[at - 1]
                            o_index[at] = o_index[at - 1]
                            at -= 1
                        o_owner[at] = b
                        o_sid[at] = sid
                        o_cover[at] = cover
                        o_quality[at] = q
                        o_index[at] = t
        # Offer the kept candidates in rank order; conjunctions already picked are skipped.
        while n_picked < beam_width and pos < kept:
            j = pos
            pos += 1
            b = o_owner[j]
            s = o_sid[j]
            # Merged into the next free row: kept unless it repeats a kept conjunction (at
            # most beam_width of them), then overwritten by the next offer.
            k = _merge(
                conds[b],
                lens[b],
                s,
                cand_feature[s],
                cand_op[s],
                cand_feature,
                cand_op,
                picked_conds[n_picked],
            )
            dup = False
            for p in range(n_picked):
                if picked_lens[p] == k:
                    same = True
                    for i in range(k):
                        if picked_conds[p, i] != picked_conds[n_picked, i]:
                            same = False
                            break
                    if same:
                        dup = True
                        break
            if dup:
                continue
            picked_b[n_picked] = b
            picked_s[n_picked] = s
            picked_lens[n_picked] = k
            n_picked += 1
        if n_picked == beam_width or kept == n_ok:
            break
        size = 4 * size if 4 * size < n_ok else n_ok

    # Every entry of the outputs is written, in one loop (no zeroing passes and few loops:
    # each costs compile time).
    new_cov = np.empty((n_picked, n), dtype=np.bool_)
    new_counts = np.empty((n_picked, C), dtype=np.int64)
    new_conds = np.empty((n_picked, L), dtype=np.intp)
    new_lens = np.empty(n_picked, dtype=np.intp)
    all_pure = zero == 0  # (True, not a literal)
    for p in range(n_picked):
        _cover_rows(
            bins,
            y,
            cov[picked_b[p]],
            picked_s[p],
            cand_feature,
            cand_op,
            cand_bin,
            new_cov[p],
            new_counts[p],
        )
        size = zero
        classes = zero
        for c in range(C):
            size += new_counts[p, c]
            classes += new_counts[p, c] > 0
        if (target < 0 and classes > 1) or (target >= 0 and new_counts[p, target] != size):
            all_pure = False
        new_lens[p] = picked_lens[p]
        for i in range(L):
            new_conds[p, i] = picked_conds[p, i] if i < picked_lens[p] else 0
    # The best candidate's arrays are empty when there is none (its fields are then unused).
    found = best_t >= 0
    best_cov = np.empty((1 if found else 0, n), dtype=np.bool_)  # (2-D: one allocator less)
    best_counts = np.empty(C if found else 0, dtype=np.int64)
    best_conds = np.empty(L if found else 0, dtype=np.intp)
    best_len = zero
    best_quality = 0.0
    if found:
        best_len = _merge(
            conds[best_b],
            lens[best_b],
            best_s,
            cand_feature[best_s],
            cand_op[best_s],
            cand_feature,
            cand_op,
            best_conds,
        )
        _cover_rows(
            bins, y, cov[best_b], best_s, cand_feature, cand_op, cand_bin, best_cov[0], best_counts
        )
        best_quality = best_q
    return (
        n_ok,
        new_cov,
        new_conds,
        new_lens,
        new_counts,
        found,
        best_cov,
        best_conds,
        best_len,
        best_counts,
        best_quality,
        all_pure,
    )


@numba.njit(**HELPER_JIT_OPTIONS)
def _cover_rows(bins, y, parent, sid, cand_feature, cand_op, cand_bin, out, out_counts):
    """Rows of ``parent`` satisfying condition ``sid`` (``out``, every entry written) and
    their class counts (``out_counts``, every entry written)."""
    f = cand_feature[sid]
    op = cand_op[sid]
    gb = cand_bin[sid]
    for c in range(out_counts.size):
        out_counts[c] = 0
    for i in range(parent.size):
        ok = False
        if parent[i]:
            v = bins[i, f]
            if op == EQ:
                ok = v == gb
            elif op == LE:
                ok = v >= 0 and v <= gb
            else:
                ok = v > gb
            if ok:
                out_counts[y[i]] += 1
        out[i] = ok
