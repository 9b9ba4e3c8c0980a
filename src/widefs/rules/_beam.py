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
them once. A round reads as its three concepts, each a compiled helper called a few times
per round (candidate generation and scoring, :func:`_rank_candidates`; selection of the
distinct conjunctions, :func:`_offer`; the outputs, :func:`_kept_versions`); only the class
counts of one candidate, computed for every candidate, are inlined into their caller.
"""

from __future__ import annotations

import numba
import numpy as np

from widefs._utils import HELPER_JIT_OPTIONS, KERNEL_JIT_OPTIONS
from widefs.rules._rule import EQ, LE

__all__ = ["beam_round", "best_is_significant", "quality_of"]


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
    bins, y, n_classes, feature_nominal, feature_offset, feature_n_bins, feature_first_candidate,
    cand_feature, cand_op, cand_bin, walk_rows, walk_bins, table_counts,
    cov, conds, lens, member_counts, max_len, kind, entropy_work, m, target, min_covered, test,
    base_p, threshold, beam_width,
):  # fmt: skip
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

    Three steps: :func:`_rank_candidates` generates and scores every candidate, keeping
    the best few in rank order; :func:`_offer` picks the distinct conjunctions among them;
    :func:`_kept_versions` and :func:`_best_version` build the outputs.
    """
    n = bins.shape[0]
    L = conds.shape[1]
    zero = np.int64(0)  # (counters start from an int64, not a literal: see _rank_groups)
    picked = np.empty((3, beam_width), dtype=np.intp)  # member, static id, length
    picked_conds = np.empty((beam_width, L), dtype=np.intp)  # rows written before read
    n_picked = zero
    pos = zero  # candidates offered so far, in rank order
    # Candidates kept, best first, on the first pass over them: twice the beam leaves room
    # for duplicate conjunctions; a round that needs more passes again keeping four times as
    # many. (64 at first cost 10-20% of a fit on many-class data: each insertion shifts them.)
    size = zero + 2 * beam_width
    # Cumulative class counts: row g + 1 after group g (and one spare row, written ahead).
    group_counts = np.empty((n + 2, n_classes), dtype=np.int64)
    for c in range(n_classes):
        group_counts[0, c] = 0  # (rows g + 1 are written from row g before they are read)
    scratch = (np.empty(n, dtype=np.intp), group_counts, np.empty(n_classes, dtype=np.int64))
    quality = (kind, m, target, min_covered, test, base_p, threshold)
    while True:
        ranked = (
            np.empty(size, dtype=np.intp),  # owner (beam member)
            np.empty(size, dtype=np.intp),  # static id
            np.empty(size, dtype=np.int64),  # cover
            np.empty(size, dtype=np.float64),  # quality
            np.empty(size, dtype=np.intp),  # generation index
        )
        n_ok, kept, best_t, best_b, best_s, _, best_q = _rank_candidates(
            bins, y, n_classes, feature_nominal, feature_offset, feature_n_bins,
            feature_first_candidate, walk_rows, walk_bins, table_counts, cov, lens,
            member_counts, max_len, entropy_work, quality, scratch, ranked, size,
        )  # fmt: skip
        n_picked, pos = _offer(
            ranked, kept, pos, n_picked, conds, lens, cand_feature, cand_op, picked,
            picked_conds,
        )  # fmt: skip
        if n_picked == beam_width or kept == n_ok:
            break
        size = 4 * size if 4 * size < n_ok else n_ok
    new = _kept_versions(
        bins, y, n_classes, target, cov, picked, picked_conds, n_picked, cand_feature, cand_op,
        cand_bin,
    )  # fmt: skip
    best = _best_version(
        bins, y, n_classes, cov, conds, lens, best_t, best_b, best_s, cand_feature, cand_op,
        cand_bin,
    )  # fmt: skip
    found, best_cov, best_conds, best_len, best_counts = best
    new_cov, new_conds, new_lens, new_counts, all_pure = new
    best_quality = best_q if found else 0.0
    return (
        n_ok, new_cov, new_conds, new_lens, new_counts, found, best_cov, best_conds, best_len,
        best_counts, best_quality, all_pure,
    )  # fmt: skip


@numba.njit(**HELPER_JIT_OPTIONS)
def _rank_candidates(
    bins, y, C, feature_nominal, feature_offset, feature_n_bins, feature_first_candidate,
    walk_rows, walk_bins, table_counts, cov, lens, member_counts, max_len, entropy_work,
    quality, scratch, ranked, keep,
):  # fmt: skip
    """Generate every candidate specialization, in order; keep the ``keep`` best (by
    :func:`_better`) in rank order in ``ranked``, and nothing else (a wide table has
    hundreds of thousands of candidates a round). Each attribute is walked in value order
    (``walk_rows``/``walk_bins``, missing values with bin -1), so only a member's covered
    rows make thresholds. Returns ``(n_ok, kept, best_t, best_b, best_s, best_c, best_q)``:
    the candidates generated and kept, and the best candidate passing the test (its
    generation index, member, static id, cover and quality; ``best_t`` -1: none).

    A member's groups come from counting its rows into ``table_counts``, a (bin, class)
    table zeroed for each member, when that is cheaper than walking every attribute's n
    values (narrow data, few covered rows); None where it never is, and numba then drops
    that code before compiling (a first CN2 fit on colon: 1.96 -> 1.73 s of CPU).
    """
    n, F = bins.shape[0], walk_rows.shape[0]
    n_bins = np.int64(0)  # (not a literal: one typing pass less)
    for f in range(F):
        n_bins += feature_n_bins[f]
    zero = np.int64(0)
    state = (zero, zero, zero - 1, zero, zero, zero, 0.0)  # see _rank_groups
    for b in range(cov.shape[0]):
        if max_len > 0 and lens[b] >= max_len:
            continue  # complete: not specialized further
        limit = np.int64(0)
        for c in range(C):
            limit += member_counts[b, c]
        table = False
        if table_counts is not None:
            table = 2 * n_bins * C + limit * F < n * F
        # (``table_counts is not None`` again, not ``table`` alone: numba prunes only tests
        # of an argument against None, so this is what drops the path on wide data.)
        if table_counts is not None and table:
            _count_table(bins, y, C, cov[b], n_bins * C, F, table_counts)
        for f in range(F):
            off, nb, nominal = feature_offset[f], feature_n_bins[f], feature_nominal[f]
            # Groups: the distinct bins of the covered rows, in increasing order, with the
            # cumulative class counts after each (see _table_groups, _walk_groups).
            if table_counts is not None and table:
                G = _table_groups(table_counts, off, nb, nominal, C, scratch[0], scratch[1])
            else:
                G = _walk_groups(walk_rows[f], walk_bins[f], cov[b], y, C, scratch[0], scratch[1])
            if G > 0:
                from_table = table_counts is not None and table and nominal
                group = (G, nb, off, feature_first_candidate[f], limit, b)
                state = _rank_groups(
                    group, nominal, from_table, table_counts, entropy_work, quality, scratch,
                    ranked, keep, state,
                )  # fmt: skip
    return state


@numba.njit(inline="always")
def _count_table(bins, y, C, covb, cells, F, table_counts):
    """Zero the (bin, class) table and count the covered rows into it."""
    for k in range(cells):
        table_counts[k] = 0
    for i in range(bins.shape[0]):
        if covb[i]:
            yi = y[i]
            for f in range(F):
                k = bins[i, f]
                if k >= 0:
                    table_counts[k * C + yi] += 1


@numba.njit(inline="always")
def _table_groups(table_counts, off, nb, nominal, C, group_bin, group_counts):
    """The groups of one attribute from the counted table: its bins with a covered row.

    A nominal attribute has a group per value and reads its counts from the table later
    (a value no covered row takes covers nothing, and min_covered >= 1 drops it).
    """
    G = off - off  # (an int64 zero, not a literal)
    for k in range(off, off + nb):
        present = G - G + nominal
        for c in range(0 if nominal else C):  # (row G + 1 is written ahead)
            kc = table_counts[k * C + c]
            group_counts[G + 1, c] = group_counts[G, c] + kc
            present += kc
        if present > 0:
            group_bin[G] = k
            G += 1
    return G


@numba.njit(**HELPER_JIT_OPTIONS)
def _walk_groups(rows_f, bins_f, covb, y, C, group_bin, group_counts):
    """The groups of one attribute by walking its values in order over the covered rows."""
    G = np.int64(0)  # (not a literal: one typing pass less)
    for q in range(rows_f.size):
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
    return G


@numba.njit(**HELPER_JIT_OPTIONS)
def _rank_groups(
    group, nominal, from_table, table_counts, entropy_work, quality, scratch, ranked, keep, state
):
    """Score the candidates of one attribute's groups and keep the best in ``ranked``.

    Nominal: ``== each value``. Numeric: ``<=`` then ``>``, each by increasing threshold.
    ``state`` is ``(n_ok, kept, best_t, best_b, best_s, best_c, best_q)`` (see
    :func:`_rank_candidates`), returned updated.
    """
    G, nb, off, first, limit, b = group
    kind, m, target, min_covered, test, base_p, threshold = quality
    group_bin, group_counts, vec = scratch
    n_ok, kept, best_t, best_b, best_s, best_c, best_q = state
    C = vec.size
    for side in range(1 if nominal else 2):
        for g in range(G):
            cover, top = _class_counts(
                g, side, G, nominal, from_table, group_bin, group_counts, table_counts, vec
            )
            if cover < min_covered or cover >= limit:
                continue
            t = n_ok
            n_ok += 1
            sid = first + side * nb + group_bin[g] - off
            if entropy_work is not None:
                q = quality_of(vec, target, kind, m, entropy_work)
            else:
                # quality_of's Laplace / m-estimate, inline (the same operations; calling
                # it for every candidate made colon fits ~15% slower).
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
            # Generation order breaks ties: a later candidate never beats an equal one, so
            # most candidates stop here.
            w = keep - 1
            if kept == keep and (
                keep == 0 or not _better(q, cover, t, ranked[3][w], ranked[2][w], ranked[4][w])
            ):
                continue
            kept = _insert(ranked, kept, keep, b, sid, cover, q, t)
    return n_ok, kept, best_t, best_b, best_s, best_c, best_q


@numba.njit(inline="always")
def _class_counts(g, side, G, nominal, from_table, group_bin, group_counts, table_counts, vec):
    """Class counts ``vec`` of group g's candidate on ``side`` (0: ``<=``, 1: ``>``), from
    rows lo..hi of the cumulative table (row 0 is zero) or, for a nominal attribute
    counted into it, from the table; returns its cover and its majority class's count."""
    if nominal:
        lo, hi = g, g + 1
    elif side == 0:
        lo, hi = g - g, g + 1
    else:
        lo, hi = g + 1, G
    cover = G - G  # (int64 zeros, not literals)
    top = G - G
    k = group_bin[g]
    C = vec.size
    for c in range(C):
        if table_counts is not None and from_table:
            v = table_counts[k * C + c]
        else:
            v = group_counts[hi, c] - group_counts[lo, c]
        vec[c] = v
        cover += v
        if v > top:
            top = v
    return cover, top


@numba.njit(**HELPER_JIT_OPTIONS)
def _insert(ranked, kept, keep, b, sid, cover, q, t):
    """Insert a candidate into the ranked lists (best first; when ``keep`` are kept, in
    place of the last, which it beats). Returns how many are kept."""
    owner, sids, covers, qualities, index = ranked
    if kept == keep:
        at = keep - 1
    else:
        at = kept
        kept += 1
    while at > 0 and _better(q, cover, t, qualities[at - 1], covers[at - 1], index[at - 1]):
        owner[at] = owner[at - 1]
        sids[at] = sids[at - 1]
        covers[at] = covers[at - 1]
        qualities[at] = qualities[at - 1]
        index[at] = index[at - 1]
        at -= 1
    owner[at] = b
    sids[at] = sid
    covers[at] = cover
    qualities[at] = q
    index[at] = t
    return kept


@numba.njit(**HELPER_JIT_OPTIONS)
def _offer(ranked, kept, pos, n_picked, conds, lens, cand_feature, cand_op, picked, picked_conds):
    """Offer the kept candidates in rank order from ``pos``: each is merged into the next
    free row of ``picked_conds`` and picked (``picked``: member, static id, length) unless
    it repeats a picked conjunction (then overwritten by the next offer), until the beam is
    full. Returns ``(n_picked, pos)``."""
    beam_width = picked.shape[1]
    while n_picked < beam_width and pos < kept:
        j = pos
        pos += 1
        b = ranked[0][j]
        s = ranked[1][j]
        k = _merge(
            conds[b], lens[b], s, cand_feature[s], cand_op[s], cand_feature, cand_op,
            picked_conds[n_picked],
        )  # fmt: skip
        if not _repeats(picked_conds, picked[2], n_picked, k):
            picked[0, n_picked] = b
            picked[1, n_picked] = s
            picked[2, n_picked] = k
            n_picked += 1
    return n_picked, pos


@numba.njit(**HELPER_JIT_OPTIONS)
def _repeats(picked_conds, picked_lens, n_picked, k):
    """Whether row ``n_picked`` of ``picked_conds`` (length k) repeats a picked one."""
    for p in range(n_picked):
        if picked_lens[p] == k:
            same = True
            for i in range(k):
                if picked_conds[p, i] != picked_conds[n_picked, i]:
                    same = False
                    break
            if same:
                return True
    return False


@numba.njit(**HELPER_JIT_OPTIONS)
def _kept_versions(
    bins, y, C, target, cov, picked, picked_conds, n_picked, cand_feature, cand_op, cand_bin
):
    """The picked versions' coverage, conditions, lengths and class counts, and whether
    every one is pure. Every entry is written, in one loop (no zeroing passes and few
    loops: each costs compile time)."""
    n, L = bins.shape[0], picked_conds.shape[1]
    new_cov = np.empty((n_picked, n), dtype=np.bool_)
    new_counts = np.empty((n_picked, C), dtype=np.int64)
    new_conds = np.empty((n_picked, L), dtype=np.intp)
    new_lens = np.empty(n_picked, dtype=np.intp)
    all_pure = n_picked == n_picked  # (True, not a literal)
    for p in range(n_picked):
        _cover_rows(
            bins, y, cov[picked[0, p]], picked[1, p], cand_feature, cand_op, cand_bin,
            new_cov[p], new_counts[p],
        )  # fmt: skip
        size = n_picked - n_picked
        classes = n_picked - n_picked
        for c in range(C):
            size += new_counts[p, c]
            classes += new_counts[p, c] > 0
        if (target < 0 and classes > 1) or (target >= 0 and new_counts[p, target] != size):
            all_pure = False
        new_lens[p] = picked[2, p]
        for i in range(L):
            new_conds[p, i] = picked_conds[p, i] if i < picked[2, p] else 0
    return new_cov, new_conds, new_lens, new_counts, all_pure


@numba.njit(**HELPER_JIT_OPTIONS)
def _best_version(
    bins, y, C, cov, conds, lens, best_t, best_b, best_s, cand_feature, cand_op, cand_bin
):
    """``(found, best_cov, best_conds, best_len, best_counts)`` of the best candidate; its
    arrays are empty when there is none (its fields are then unused)."""
    n, L = bins.shape[0], conds.shape[1]
    found = best_t >= 0
    best_cov = np.empty((1 if found else 0, n), dtype=np.bool_)  # (2-D: one allocator less)
    best_counts = np.empty(C if found else 0, dtype=np.int64)
    best_conds = np.empty(L if found else 0, dtype=np.intp)
    best_len = best_t - best_t  # (an int64 zero, not a literal)
    if found:
        best_len = _merge(
            conds[best_b], lens[best_b], best_s, cand_feature[best_s], cand_op[best_s],
            cand_feature, cand_op, best_conds,
        )  # fmt: skip
        _cover_rows(
            bins, y, cov[best_b], best_s, cand_feature, cand_op, cand_bin, best_cov[0], best_counts
        )
    return found, best_cov, best_conds, best_len, best_counts


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
