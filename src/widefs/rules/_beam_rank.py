"""Candidate generation and ranking of one CN2 beam round (:mod:`widefs.rules._beam`).

Every one-condition specialization of every beam member is generated in a fixed order (the
documented tie-break); only the best few are kept, in rank order. An attribute with tied or
missing values is walked in value order over the member's covered rows (or counted into a
(bin, class) table on narrow data), and all its candidates scored. An attribute whose values
are all present and distinct (most continuous ones) makes a known number of candidates, one
per covered row on each side, so it is walked from each end only as long as a later
candidate could still be kept or become the best (:func:`_walk_numeric`): on colon most
walks stop after a few rows, and a member none of whose candidates can rank is not walked.
That test is an integer comparison per class and row: the most examples of other classes
a walk may pass, recomputed only when the kept list or the best changes (:func:`_error_limits`;
colon's first round of each rule search, 1.6 -> 0.8 s CPU, with its exact tie rule). Under
the significance test a class none of whose candidates could pass it is bounded by the kept
list alone (:func:`widefs.rules._beam_quality.could_pass`): on the few rows later rules
search, the best passing candidate is often weak or none, and every walk went on to the end.
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
    walk_rows, walk_bins, walk_distinct, table_counts, groups, cov, lens, member_counts, max_len,
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
    that code before compiling (a first CN2 fit on colon: 1.96 -> 1.73 s of CPU). ``groups``
    is the groups' scratch (their bins, cumulative class counts), ``scratch`` one
    candidate's class counts and the walks' error limits. Numeric data that nothing is
    counted for skip this kernel: :func:`_walk_numeric` ranks them alone (a first run on
    colon compiles neither this nor the groups' code).
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
                state = _walk_numeric(
                    (f, stop, b, b + 1), walk_rows, walk_bins, walk_distinct,
                    feature_first_candidate, feature_n_bins, feature_offset, cov, y, lens,
                    member_counts, max_len, entropy_work, quality, scratch, ranked, keep, state,
                )  # fmt: skip
                f = stop
                continue
            off, nb, nominal = feature_offset[f], feature_n_bins[f], feature_nominal[f]
            f += 1
            # Groups: the distinct bins of the covered rows, in increasing order, with the
            # cumulative class counts after each (see _table_groups, _walk_groups).
            if table_counts is not None and table:
                G = _table_groups(table_counts, off, nb, nominal, C, groups[0], groups[1])
            else:
                G = _walk_groups(
                    walk_rows[f - 1], walk_bins[f - 1], cov[b], y, C, groups[0], groups[1]
                )
            if G > 0:
                from_table = table_counts is not None and table and nominal
                group = (G, nb, off, feature_first_candidate[f - 1], limit, b)
                state = _rank_groups(
                    group, nominal, from_table, table_counts, entropy_work, quality,
                    (groups[0], groups[1], scratch[0]), ranked, keep, state,
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
    group_bin, group_counts, vec = scratch
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


# One flat kernel: a compiled call per member cost a first run on colon 0.4 s of CPU more
# (each call level optimizes its callees again), one per attribute made walks 25-130% slower
# (each call passes its arrays' reference counts), and an inlined helper returning the
# ranking state doubled a walk's time; the inlined helpers below return plain numbers.
@numba.njit(**KERNEL_JIT_OPTIONS)
def _walk_numeric(
    span, walk_rows, walk_bins, walk_distinct, feature_first_candidate, feature_n_bins,
    feature_offset, cov, y, lens, member_counts, max_len, entropy_work, quality, scratch, ranked,
    keep, state,
):  # fmt: skip
    """:func:`_rank_candidates` for the numeric attributes ``start <= f < stop`` of the beam
    members ``b0 <= b < b1`` (``span``): called from Python for numeric data nothing is
    counted for (a first run on colon compiles neither it nor the groups' code), else from it.
    The ``<=`` candidates are walked from the lowest value (each when its group, the covered
    rows of one value, ends), the ``>`` ones from the highest (each when the next group
    starts), with :func:`_rank_groups`' generation indices. An attribute whose values are
    present and distinct (``walk_distinct``: a group per covered row) is walked only while
    some class c has at most ``limits[c]`` examples of other classes among the rows walked
    (:func:`_error_limits`, from the ranking at the attribute's start: they prune less than
    later limits, never wrongly; all negative: not walked); others whole."""
    start, stop, b0, b1 = span
    min_covered = quality[3]
    vec, limits, leads = scratch
    for b in range(b0, b1):
        limit = _member_rows(b, lens, max_len, member_counts)
        if limit <= min_covered:
            continue  # complete, or no candidate covers enough rows and fewer than it
        valid, covb, totals, lead = limit - min_covered, cov[b], member_counts[b], leads[b]
        considered, floor = limit > min_covered, -np.inf  # (True: a bool, not a literal)
        for f in range(start, stop):
            if considered:  # (one call site: each costs a first run compile time)
                floor = _error_limits(
                    totals, limit, entropy_work is None, quality, ranked, keep, state, lead, limits
                )
                considered = limit < min_covered
            n_ok, kept, best_t, best_b, best_s, best_c, best_q = state
            distinct = walk_distinct[f]
            if _exhausted(limits, distinct):
                state = (n_ok + 2 * valid, kept, best_t, best_b, best_s, best_c, best_q)
                continue
            first, nb, off = feature_first_candidate[f], feature_n_bins[f], feature_offset[f]
            # Groups, covered rows with a value, valid <= and > candidates (counted as walked)
            G, S, low, high = limit, limit, valid, valid
            if not distinct:
                G, S, low, high = _tied_groups(walk_rows[f], walk_bins[f], covb, limit, min_covered)
            bound = limit  # a walk's last row: side 0 the member's last, side 1 its last valued
            for side in range(2):
                for c in range(vec.size):
                    vec[c] = 0
                cover = top = seen = i = limit - limit  # (int64 zeros, not literals)
                last = cover + _END  # the bin of the group walked (none yet; not a literal)
                for step in range(walk_rows.shape[1] + 1):
                    i, k = _reached(walk_rows, walk_bins, f, step, side, covb, i)
                    if k == _PASS:
                        continue
                    if k != last:  # a group ends (side 0) or starts (side 1): a candidate
                        if not _walking(cover, vec, limits, distinct):
                            break  # (integer tests only, for most rows)
                        t, bin_ = (seen, last) if side == 0 else (low + G - 1 - seen, k)
                        if min_covered <= cover < limit:  # (min_covered >= 1: bin_ >= 0)
                            seen += 1 - side
                            high += side * (1 - distinct)
                            q = _quality(vec, cover, top, entropy_work, quality)
                            if q >= floor:
                                sid = first + side * nb + bin_ - off
                                before = (state[1], state[2], ranked[4][keep - 1])
                                state = _consider(
                                    q, cover, n_ok + t, b, sid, vec, quality, ranked, keep, state
                                )
                                if before != (state[1], state[2], ranked[4][keep - 1]):
                                    considered = limit > min_covered  # (most change nothing)
                                    floor = _floor(ranked, state[1], keep, state[2], state[6])
                        if k == _END:
                            break
                        last = k
                        seen += side  # side 1: the groups passed
                    vec[y[i]] += 1
                    cover += 1
                    top = max(top, vec[y[i]])
                    if cover >= bound:
                        break  # no row left to make a candidate valid (side 0) or any (side 1)
                bound = S
            n_ok, kept, best_t, best_b, best_s, best_c, best_q = state
            state = (n_ok + low + high, kept, best_t, best_b, best_s, best_c, best_q)
    return state


@numba.njit(inline="always")
def _member_rows(b, lens, max_len, member_counts):
    """The rows member b covers; 0 for a complete member (not specialized further)."""
    limit = max_len - max_len  # (an int64 zero, not a literal)
    if max_len <= 0 or lens[b] < max_len:
        for c in range(member_counts.shape[1]):
            limit += member_counts[b, c]
    return limit


_END = -2  # the bin past a walk's last row (and of missing values on side 0: they come last)
_PASS = -3  # the bin of a row a walk passes over


@numba.njit(inline="always")
def _reached(walk_rows, walk_bins, f, step, side, covb, i):
    """The row at a walk's ``step`` (side 0 from the lowest value, side 1 from the highest)
    and its bin: ``_END`` past the last row and at a missing value on side 0, ``_PASS`` for
    a row not covered or missing on side 1 (``i`` returned for both)."""
    n = walk_rows.shape[1]
    if step == n:
        return i, step - step + _END
    pos = step if side == 0 else n - 1 - step
    row, k = walk_rows[f, pos], walk_bins[f, pos]
    if not covb[row] or (k < 0 and side == 1):
        return i, step - step + _PASS
    return row, step - step + (k if k >= 0 else _END)


@numba.njit(inline="always")
def _tied_groups(rows_f, bins_f, covb, limit, min_covered):
    """Of an attribute's covered rows with a value (in value order ``rows_f``, ``bins_f``):
    their groups of equal values, their number, and the ``<=`` candidates covering at least
    ``min_covered`` and fewer than ``limit`` rows (a group's candidate covers it and those
    below)."""
    G = S = low = limit - limit  # (int64 zeros, not literals)
    last = G + _END
    for q in range(rows_f.size):
        k = bins_f[q]
        if k < 0 or not covb[rows_f[q]]:
            continue
        if k != last:  # the group before ends (S >= min_covered >= 1: not before the first)
            low += min_covered <= S < limit
            G += 1
            last = k
        S += 1
    return G, S, low + (min_covered <= S < limit), S - S


@numba.njit(inline="always")
def _walking(cover, vec, limits, distinct):
    """Whether a walk goes on: always over an attribute walked whole (not ``distinct``);
    else while some class c has at most ``limits[c]`` examples of other classes among the
    ``cover`` rows walked (class counts ``vec``)."""
    walk_on = not distinct  # (a loop, not any(): numba compiles generators slowly)
    for c in range(vec.size):
        walk_on = walk_on or cover - vec[c] <= limits[c]
    return walk_on


@numba.njit(inline="always")
def _exhausted(limits, distinct):
    """Whether no candidate of a ``distinct`` attribute left to walk could rank: every limit
    negative (an attribute walked whole never is)."""
    exhausted = distinct
    for c in range(limits.size):
        exhausted = exhausted and limits[c] < 0
    return exhausted


@numba.njit(**HELPER_JIT_OPTIONS)
def _error_limits(totals, limit, prune, quality, ranked, keep, state, leads, limits):
    """Per class c, ``limits[c]``: the most examples of other classes a walk over a member
    (``totals``, ``limit``) may have passed while a later candidate predicting c could still
    be kept or become the best: while :func:`_bound` of that many errors is not
    :func:`_beaten` by both the last kept candidate and the best (the bound falls as the
    errors grow, so a walk tests integers per row). ``limit`` for every class while nothing
    is kept or pruning is off (the entropy: see :func:`_walk_numeric`), or while no best is
    found and a candidate predicting c could pass the test (``leads[c]``, see
    :func:`widefs.rules._beam_quality.could_pass`; one that cannot never becomes the best,
    so only the kept list bounds its walk); -1 for a class no candidate predicts. Returns
    :func:`_floor`.

    The state's ``n_ok`` is the current attribute's first candidate (the tie-break of
    :func:`_beaten`); limits kept from an earlier attribute prune less, never more. (One
    function with scalars for its inlined helpers: each compiled helper, and each tuple of
    arrays it takes, costs a first run compile time.)
    """
    n_ok, kept, best_t, _, _, best_c, best_q = state
    floor = _floor(ranked, kept, keep, best_t, best_q)
    kind, m, target = quality[0], quality[1], quality[2]
    w = keep - 1
    last_q, last_c, last_t = ranked[3][w], ranked[2][w], ranked[4][w]
    for c in range(limits.size):
        if not prune or kept < keep or keep == 0 or (best_t < 0 and leads[c]):
            limits[c] = limit
            continue
        errors = limit - limit  # (an int64 zero, not a literal)
        while (target < 0 or c == target) and errors < limit:
            top_q, most = _bound(c, errors, totals, limit, kind, m)
            if _beaten(top_q, most, n_ok, kind, last_q, last_c, last_t) and (
                not leads[c] or _beaten(top_q, most, n_ok, kind, best_q, best_c, best_t)
            ):
                break
            errors += 1
        limits[c] = errors - 1
    return floor
