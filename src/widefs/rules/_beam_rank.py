"""Candidate generation and ranking of one CN2 beam round (:mod:`widefs.rules._beam`).

Every one-condition specialization of every beam member is generated in a fixed order (the
documented tie-break); only the best few are kept, in rank order. An attribute with tied or
missing values is walked in value order over the member's covered rows (or counted into a
(bin, class) table on narrow data), and all its candidates scored. An attribute whose values
are all present and distinct (most continuous ones) makes a known number of candidates, one
per covered row on each side, so it is walked from each end only as long as a later
candidate could still be kept or become the best (:func:`_walk_distinct`): on colon most
walks stop after a few rows, and a member none of whose candidates can rank is not walked.
That test is an integer comparison per class and row: the most examples of other classes
a walk may pass, recomputed only when the kept list or the best changes (:func:`_error_limits`;
colon's first round of each rule search, 1.6 -> 0.8 s CPU, with its exact tie rule).
"""

from __future__ import annotations

import numba
import numpy as np

from widefs._utils import HELPER_JIT_OPTIONS, KERNEL_JIT_OPTIONS
from widefs.rules._beam_quality import (
    _beaten,
    _better,
    _bound,
    _floor,
    _quality,
    _significant,
)

__all__: list[str] = []


@numba.njit(**KERNEL_JIT_OPTIONS)
def _rank_candidates(
    bins, y, C, feature_nominal, feature_offset, feature_n_bins, feature_first_candidate,
    walk_rows, walk_bins, walk_distinct, table_counts, cov, lens, member_counts, max_len,
    entropy_work, quality, scratch, ranked, keep,
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
        f = zero
        while f < F:
            if walk_distinct[f]:  # a run of such attributes in one call
                stop = f + 1
                while stop < F and walk_distinct[stop]:
                    stop += 1
                state = _walk_distinct(
                    (f, stop, limit, b), walk_rows, walk_bins, feature_first_candidate,
                    feature_n_bins, feature_offset, cov[b], y, member_counts[b], entropy_work,
                    quality, scratch[2], scratch[3], ranked, keep, state,
                )  # fmt: skip
                f = stop
                continue
            off, nb, nominal = feature_offset[f], feature_n_bins[f], feature_nominal[f]
            f += 1
            # Groups: the distinct bins of the covered rows, in increasing order, with the
            # cumulative class counts after each (see _table_groups, _walk_groups).
            if table_counts is not None and table:
                G = _table_groups(table_counts, off, nb, nominal, C, scratch[0], scratch[1])
            else:
                G = _walk_groups(
                    walk_rows[f - 1], walk_bins[f - 1], cov[b], y, C, scratch[0], scratch[1]
                )
            if G > 0:
                from_table = table_counts is not None and table and nominal
                group = (G, nb, off, feature_first_candidate[f - 1], limit, b)
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


@numba.njit(inline="always")
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
    min_covered = quality[3]
    group_bin, group_counts, vec = scratch[0], scratch[1], scratch[2]
    n_ok, kept, best_t, best_b, best_s, best_c, best_q = state
    for side in range(1 if nominal else 2):
        for g in range(G):
            cover, top = _class_counts(
                g, side, G, nominal, from_table, group_bin, group_counts, table_counts, vec
            )
            if cover < min_covered or cover >= limit:
                continue
            t = n_ok
            n_ok += 1
            q = _quality(vec, cover, top, entropy_work, quality)
            if q >= _floor(ranked, kept, keep, best_t, best_q):
                sid = first + side * nb + group_bin[g] - off
                state = (n_ok, kept, best_t, best_b, best_s, best_c, best_q)
                state = _consider(q, cover, t, b, sid, vec, quality, ranked, keep, state)
                n_ok, kept, best_t, best_b, best_s, best_c, best_q = state
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
def _consider(q, cover, t, b, sid, vec, quality, ranked, keep, state):
    """Offer one candidate (quality q, generation index t) as the best and to the kept
    list, inserted in rank order (in place of the last when ``keep`` are kept, which it
    beats); returns ``state`` (see :func:`_rank_candidates`) updated. (One function, not
    two: each compiled call level costs a first run its callees' code once more.)"""
    n_ok, kept, best_t, best_b, best_s, best_c, best_q = state
    test, base_p, threshold = quality[4], quality[5], quality[6]
    # The test (a logarithm per class) only for a would-be best.
    if (best_t < 0 or _better(q, cover, t, best_q, best_c, best_t)) and (
        not test or _significant(vec, float(cover), base_p, threshold)
    ):
        best_t, best_b, best_s, best_c, best_q = t, b, sid, cover, q
    owner, sids, covers, qualities, index = ranked
    w = keep - 1
    # Generation order breaks ties: a later candidate never beats an equal one, so most
    # candidates stop here.
    if kept == keep and (keep == 0 or not _better(q, cover, t, qualities[w], covers[w], index[w])):
        return n_ok, kept, best_t, best_b, best_s, best_c, best_q
    if kept == keep:
        at = w
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
    return n_ok, kept, best_t, best_b, best_s, best_c, best_q


@numba.njit(**HELPER_JIT_OPTIONS)
def _walk_distinct(
    span, walk_rows, walk_bins, feature_first_candidate, feature_n_bins, feature_offset, covb,
    y, totals, entropy_work, quality, vec, limits, ranked, keep, state,
):  # fmt: skip
    """:func:`_rank_groups` for attributes ``start <= f < stop`` whose every value is present
    and distinct, for member b covering ``limit`` rows (``span``): each covered row is a
    group of its own, so an attribute's candidates are ``<=`` at the s-th covered value (s
    examples; generation index ``s - min_covered`` in the attribute) and ``>`` at the g-th
    (the ``limit - 1 - g`` after it; index ``valid + g``), ``valid = limit - min_covered`` of
    each. Their number is known without walking: the ``<=`` ones are walked from the lowest
    value and the ``>`` ones from the highest, each only while a later one could still be
    kept or become the best: while some class c has at most ``limits[c]`` examples of other
    classes among those walked (:func:`_error_limits`). A member whose every limit is
    negative has no candidate left to walk: only their number is counted.
    """
    start, stop, limit, b = span
    min_covered = quality[3]
    valid = limit - min_covered
    if valid <= 0:
        return state
    n, C = walk_rows.shape[1], vec.size
    floor = _error_limits(totals, limit, entropy_work is None, quality, ranked, keep, state, limits)
    considered = False
    for f in range(start, stop):
        if considered:  # the candidates kept from the last attribute now lose ties
            floor = _error_limits(
                totals, limit, entropy_work is None, quality, ranked, keep, state, limits
            )
            considered = False
        if _exhausted(limits):
            n_ok, kept, best_t, best_b, best_s, best_c, best_q = state
            return n_ok + 2 * valid * (stop - f), kept, best_t, best_b, best_s, best_c, best_q
        first, nb, off = feature_first_candidate[f], feature_n_bins[f], feature_offset[f]
        for side in range(2):
            for c in range(C):
                vec[c] = 0
            cover = limit - limit  # (int64 zeros, not literals)
            top = cover
            g = limit - 1  # side 1: the rank of the row reached among the covered ones
            for step in range(n):
                pos = step if side == 0 else n - 1 - step
                i = walk_rows[f, pos]
                if not covb[i]:
                    continue
                if side == 0:  # the candidate holds the row
                    vec[y[i]] += 1
                    cover += 1
                    top = max(top, vec[y[i]])
                    if cover >= limit:
                        break
                if not _walking(cover, vec, limits):
                    break  # (integer tests only, for most rows)
                if cover >= min_covered:
                    q = _quality(vec, cover, top, entropy_work, quality)
                    if q >= floor:
                        t = state[0] + (cover - min_covered if side == 0 else valid + g)
                        sid = first + side * nb + walk_bins[f, pos] - off
                        last, best_t = ranked[4][keep - 1], state[2]
                        kept = state[1]
                        state = _consider(q, cover, t, b, sid, vec, quality, ranked, keep, state)
                        if (kept, best_t, last) != (state[1], state[2], ranked[4][keep - 1]):
                            considered = True  # (most candidates offered change nothing)
                            floor = _error_limits(
                                totals, limit, entropy_work is None, quality, ranked, keep,
                                state, limits,
                            )  # fmt: skip
                if side == 1:  # the candidates after this one hold the row
                    vec[y[i]] += 1
                    cover += 1
                    top = max(top, vec[y[i]])
                    g -= 1
                    if g < 0:
                        break
        n_ok, kept, best_t, best_b, best_s, best_c, best_q = state
        state = (n_ok + 2 * valid, kept, best_t, best_b, best_s, best_c, best_q)
    return state


@numba.njit(inline="always")
def _walking(cover, vec, limits):
    """Whether a walk goes on: some class c has at most ``limits[c]`` examples of other
    classes among the ``cover`` rows walked (class counts ``vec``)."""
    walk_on = False  # (a loop, not any(): numba compiles generators slowly)
    for c in range(vec.size):
        walk_on = walk_on or cover - vec[c] <= limits[c]
    return walk_on


@numba.njit(inline="always")
def _exhausted(limits):
    """Whether no candidate of the member left to walk could rank: every limit negative."""
    exhausted = True
    for c in range(limits.size):
        exhausted = exhausted and limits[c] < 0
    return exhausted


@numba.njit(**HELPER_JIT_OPTIONS)
def _error_limits(totals, limit, prune, quality, ranked, keep, state, limits):
    """Per class c, ``limits[c]``: the most examples of other classes a walk over a member
    (``totals``, ``limit``) may have passed while a later candidate predicting c could still
    be kept or become the best (:func:`_bound` of that many errors not :func:`_pruned`; the
    bound falls as the errors grow, so the test is a comparison of integers per row).
    ``limit`` for every class while nothing is kept or pruning is off (the entropy: see
    :func:`_walk_distinct`); -1 for a class no candidate predicts. Returns :func:`_floor`.

    The state's ``n_ok`` is the current attribute's first candidate (the tie-break of
    :func:`_beaten`); limits kept from an earlier attribute prune less, never more.
    """
    floor = _floor(ranked, state[1], keep, state[2], state[6])
    target = quality[2]
    for c in range(limits.size):
        if not prune or floor == -np.inf:
            limits[c] = limit
            continue
        errors = limit - limit  # (an int64 zero, not a literal)
        while (target < 0 or c == target) and errors < limit:
            # The bound's candidate is the only one reaching it, and covers ``most``.
            most = min(totals[c], limit - 1 - errors) + errors
            if _pruned(_bound(c, errors, totals, limit, quality), most, quality, ranked, keep,
                       state):  # fmt: skip
                break
            errors += 1
        limits[c] = errors - 1
    return floor


@numba.njit(**HELPER_JIT_OPTIONS)
def _pruned(top_q, most, quality, ranked, keep, state):
    """Whether candidates of quality at most ``top_q``, those reaching it covering at most
    ``most`` examples, generated from ``n_ok`` on, rank below both the last kept candidate
    and the best (:func:`_beaten`)."""
    n_ok, _, _, _, _, best_c, best_q = state
    kind, w = quality[0], keep - 1
    return _beaten(top_q, most, n_ok, kind, ranked[3][w], ranked[2][w], ranked[4][w]) and (
        _beaten(top_q, most, n_ok, kind, best_q, best_c, state[2])
    )
