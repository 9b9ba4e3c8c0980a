"""Compiled beam rounds for CN2: all specializations of a beam counted, ranked and kept.

Why numba: on small, mostly nominal data (a few hundred examples, tens of attributes) a
CN2 fit is hundreds of beam rounds of a few hundred candidates each. Done with numpy, each
round costs some thirty array calls of one to a few microseconds each plus Python objects
for the kept versions, and that fixed cost, not the counting, dominated the fit
(benchmarks/bench_cn2.py). A round is three compiled calls (usually): one counts and ranks
every candidate condition of every beam member, one keeps the ``beam_width`` best distinct
conjunctions, one builds their coverage masks; Python keeps only the stopping rules
(significance, POE).

The kernels read the bins and static candidates of a ``CandidateTable``
(:mod:`widefs.rules._table`, built once per fit). This module loads numba, so CN2 imports it
on first use only; its kernels avoid what makes numba compile slowly (array-to-array slice
assignment, typed containers, numba's generic sorts), because every fresh install compiles
them once. A round reads as its three concepts, each a compiled kernel that
:func:`beam_round` calls (candidate generation and scoring,
:func:`widefs.rules._beam_rank._rank_candidates`; selection of the distinct conjunctions,
:func:`_offer`; the outputs, :func:`_versions`). The rule qualities and the significance test are in
:mod:`widefs.rules._beam_quality`.

Measured and not taken: :func:`_offer` in Python and :func:`_versions` in numpy over all picked
versions at once (same outputs): a colon run's first run 15.4 -> 15.0 s CPU (their compile),
warm 8.8 -> 8.9 s, and more per round on nominal data, where the rounds are the cost.
"""

from __future__ import annotations

import numba
import numpy as np

from widefs._utils import HELPER_JIT_OPTIONS, KERNEL_JIT_OPTIONS
from widefs.rules._beam_quality import best_is_significant, could_pass, quality_of
from widefs.rules._beam_rank import _rank_candidates, _walk_numeric
from widefs.rules._rule import EQ, LE

__all__ = ["beam_round", "best_is_significant", "quality_of"]


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


def beam_round(
    bins, y, n_classes, feature_nominal, feature_offset, feature_n_bins, feature_first_candidate,
    cand_feature, cand_op, cand_bin, walk_rows, walk_bins, walk_distinct, table_counts,
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

    Quality (``kind``): 0 Laplace, 1 m-estimate with ``entropy_work`` None (a type of its own
    to numba, which then drops the entropy code: :func:`quality_of` is not compiled); 2 minus
    the entropy with ``entropy_work`` scratch space of ``n_classes`` floats.

    Three compiled steps, called from here: :func:`_rank_candidates` (numeric data nothing
    is counted for: :func:`_walk_numeric`) ranks every candidate, keeping the best few;
    :func:`_offer` picks the distinct conjunctions among them; :func:`_versions` builds the
    outputs. (From Python, not one compiled round: numba optimizes a callee again in every
    caller, and compiles ``np.empty`` anew per shape, type and caller.)
    """
    n, L = bins.shape[0], conds.shape[1]
    picked = np.empty((3, beam_width), dtype=np.intp)  # member, static id, length
    picked_conds = np.empty((beam_width, L), dtype=np.intp)  # rows written before read
    # The groups' bins and cumulative class counts (row g + 1 after group g, written from row
    # g before read; a spare row): for nominal attributes and the table only (see above).
    groups = None
    if table_counts is not None or feature_nominal.any():
        groups = (np.empty(n, dtype=np.intp), np.zeros((n + 2, n_classes), dtype=np.int64))
    # One candidate's class counts, a walk's error limits, each member's classes that could lead
    leads = could_pass(member_counts, target, test, base_p, threshold)
    scratch = (np.empty(n_classes, dtype=np.int64), np.empty(n_classes, dtype=np.int64), leads)
    quality = (kind, float(m), target, min_covered, test, base_p, float(threshold))
    n_picked = pos = 0
    # Candidates kept, best first, on the first pass over them: twice the beam leaves room for
    # duplicate conjunctions (one member's are distinct: the beam alone, pruning walks more);
    # a round that needs more passes again keeping four times as many. (64 at first cost
    # 10-20% of a fit on many-class data: each insertion shifts them.)
    size = beam_width if cov.shape[0] == 1 else 2 * beam_width
    while True:
        ranked = (
            np.empty(size, dtype=np.intp),  # owner (beam member)
            np.empty(size, dtype=np.intp),  # static id
            np.empty(size, dtype=np.int64),  # cover
            np.empty(size, dtype=np.float64),  # quality
            np.empty(size, dtype=np.intp),  # generation index
        )
        if groups is None:  # numeric attributes only, none counted: every one walked
            n_ok, kept, best_t, best_b, best_s, _, best_q = _walk_numeric(
                (0, walk_rows.shape[0], 0, cov.shape[0]), walk_rows, walk_bins, walk_distinct,
                feature_first_candidate, feature_n_bins, feature_offset, cov, y, lens,
                member_counts, max_len, entropy_work, quality, scratch, ranked, size,
                (0, 0, -1, 0, 0, 0, 0.0),
            )  # fmt: skip
        else:
            n_ok, kept, best_t, best_b, best_s, _, best_q = _rank_candidates(
                bins, y, n_classes, feature_nominal, feature_offset, feature_n_bins,
                feature_first_candidate, walk_rows, walk_bins, walk_distinct, table_counts, groups,
                cov, lens, member_counts, max_len, entropy_work, quality, scratch, ranked, size,
            )  # fmt: skip
        n_picked, pos = _offer(
            ranked, kept, pos, n_picked, conds, lens, cand_feature, cand_op, picked, picked_conds
        )
        if n_picked == beam_width or kept == n_ok:
            break
        size = min(4 * size, n_ok)
    found = best_t >= 0
    new, best = _outputs(
        bins, y, n_classes, target, cov, conds, lens, picked, picked_conds, n_picked,
        cand_feature, cand_op, cand_bin, best_b if found else -1, best_s,
    )  # fmt: skip
    return (n_ok, *new[:4], found, *best, best_q if found else 0.0, new[4])


def _outputs(
    bins, y, C, target, cov, conds, lens, picked, picked_conds, n_picked, cand_feature, cand_op,
    cand_bin, best_b, best_s,
):  # fmt: skip
    """``((new_cov, new_conds, new_lens, new_counts, all_pure), (best_cov, best_conds,
    best_len, best_counts))`` of the picked versions and of the best candidate (static id
    ``best_s`` added to member ``best_b``; none when ``best_b`` < 0: empty arrays)."""
    n, L = bins.shape[0], conds.shape[1]
    new_cov = np.empty((n_picked, n), dtype=np.bool_)
    new_counts = np.empty((n_picked, C), dtype=np.int64)
    new_conds = np.empty((n_picked, L), dtype=np.intp)
    new_lens = np.empty(n_picked, dtype=np.intp)
    found = best_b >= 0
    best_cov = np.empty((1 if found else 0, n), dtype=np.bool_)
    best_counts = np.empty(C if found else 0, dtype=np.int64)
    best_conds = np.empty(L if found else 0, dtype=np.intp)
    all_pure, best_len = _versions(
        bins, y, target, cov, conds, lens, picked, picked_conds, cand_feature, cand_op, cand_bin,
        new_cov, new_conds, new_lens, new_counts, best_b, best_s, best_cov, best_conds,
        best_counts,
    )  # fmt: skip
    return (new_cov, new_conds, new_lens, new_counts, all_pure), (
        best_cov, best_conds, best_len, best_counts,
    )  # fmt: skip


@numba.njit(**KERNEL_JIT_OPTIONS)
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


@numba.njit(**KERNEL_JIT_OPTIONS)
def _versions(
    bins, y, target, cov, conds, lens, picked, picked_conds, cand_feature, cand_op, cand_bin,
    new_cov, new_conds, new_lens, new_counts, best_b, best_s, best_cov, best_conds, best_counts,
):  # fmt: skip
    """The outputs of :func:`_outputs`, written into its arrays (every entry of the
    ``new_*`` arrays, one row per picked version; ``best_conds`` up to the best's length):
    returns ``(all_pure, best_len)``. One kernel with few loops (no zeroing passes): each
    costs compile time."""
    n_picked, L = new_lens.size, picked_conds.shape[1]
    C = new_counts.shape[1]
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
    best_len = n_picked - n_picked  # (an int64 zero, not a literal)
    if best_b >= 0:
        best_len = _merge(
            conds[best_b], lens[best_b], best_s, cand_feature[best_s], cand_op[best_s],
            cand_feature, cand_op, best_conds,
        )  # fmt: skip
        _cover_rows(
            bins, y, cov[best_b], best_s, cand_feature, cand_op, cand_bin, best_cov[0],
            best_counts,
        )  # fmt: skip
    return all_pure, best_len


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
