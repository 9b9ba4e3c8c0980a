"""Compiled kNN kernels for the leave-one-out evaluators (numba).

Why numba: scoring every candidate addition (or removal) means, for each candidate f
and each held-out row i, ranking the other rows by ``D[i, j] +- c_f(i, j)`` and voting
among the k nearest with exact tie rules (distance ties to the lower index, vote ties to
the class met first in distance order). In numpy that needs an
``(candidates, n, n)`` temporary per block plus several passes (argpartition, boundary
tie repair, per-class minima); the fused loop below keeps only k entries per row and is
10-50x faster (measured in ``benchmarks/bench_search.py``).

Distances are squared Euclidean on numeric columns plus a 0/1 mismatch on nominal
columns (whose values are category codes), as in Soares (2010), Section 5.2.5.1.
Accumulation order is fixed (the order of ``cols``), so integer-valued data give exact
distances and exact ties.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from widefs._utils import KERNEL_JIT_OPTIONS

__all__ = [
    "knn_candidate_neighbours",
    "update_distances",
]

# Bounded candidate passes re-rank their rows by failure rate this often (candidates).
_RERANK = 32
# Two-class votes of at least this many neighbours come from a distance threshold
# (:func:`_threshold_vote`); fewer, from the insertion scan, whose early stop is cheaper.
# A scan that cannot stop early (no ``order``: from the empty subset, say) gives way to the
# threshold from 3 neighbours on (colon's CEFS: those votes ~15% faster, k < 8 pruned ~15%
# slower).
_THRESHOLD_MIN_K = 8

# Compile time matters as much as run time here (every fresh install compiles these once):
# no array-to-array slice assignment (numba's shape-mismatch error path alone costs seconds
# to compile), no literal-argument calls that make a second specialization, no sort (a
# large k gets its order from numpy's stable argsort), and no kernel of its own for the
# distances on a subset: numpy computes small ones (``_KNNData.distances_to``), and the
# update kernel, from zero, large ones (``KNNLeaveOneOut.distances``).
# The small helpers below are inlined at numba IR level (inline="always") instead of
# compiled as functions of their own: a first CEFS fit executes ~3% fewer instructions
# (cachegrind). Inlining CN2's beam helpers the same way measured 6-20% more.
# Tried and rejected: the first step from the empty subset as a 1-D walk outwards from
# each row on its candidate's sorted values (O(k) a row, no scan of every row): replayed
# colon calls 0.13 s CPU faster (lists and votes), but +0.6-0.8 s to compile this kernel
# (+0.4 s as a helper of its own), whatever the helper's form; nor did a "k-nearest set
# unchanged" shortcut pay (2-7% of pairs).


@njit(inline="always")
def _winner(nearest, y, counts):
    """Majority class among ``nearest``; a vote tie goes to the nearest tied class."""
    if counts.size == 2:
        # Two classes: one sum instead of a chain of stores to ``counts`` (votes from lists
        # ~15% faster in a CEFS certificate); a tie goes to the nearest's class.
        ones = np.int64(0)
        for q in range(nearest.size):
            ones += y[nearest[q]]
        rest = nearest.size - ones
        return 1 if ones > rest else (0 if ones < rest else y[nearest[0]])
    for c in range(counts.size):  # (a loop: a slice assignment compiles to far more code)
        counts[c] = 0
    for q in range(nearest.size):
        counts[y[nearest[q]]] += 1
    top = np.int64(0)  # (not a literal: see knn_candidate_neighbours)
    for c in range(counts.size):
        if counts[c] > top:
            top = counts[c]
    for q in range(nearest.size):
        c = y[nearest[q]]
        if counts[c] == top:
            return c
    return 0


@njit(**KERNEL_JIT_OPTIONS)
def knn_candidate_neighbours(
    D, order, XT, nominal, cands, sign, rows, kk, y, n_classes,
    weight, want, negate, floor, visit, given, out, votes,
):  # fmt: skip
    """Leave-one-out neighbours of ``rows`` on ``D +- contribution(f)``, for every candidate f.

    Or, with ``D`` empty, the votes of lists ``given`` (an earlier call's): one kernel for
    both, so a fresh install compiles one. ``D`` and ``given`` are read-only, always.

    Parameters
    ----------
    D : (n, n) float64, current squared distances; (0, 0): the lists are ``given``.
    order : (n, n) int64, each row of ``D`` in increasing order, ties by index (only when
        adding features; see :func:`_nearest`), or (0, 0): every example in index order.
    XT, nominal : (p, n) float64, the data transposed; (p,) bool, nominal columns.
    cands : (m,) int64 feature indices.
    sign : +1.0 (add the feature), -1.0 (remove it) or 0.0 with a zero column: ``D``.
    rows, kk : (r,) int64 held-out rows; int, 1 <= kk <= n - 1, neighbours per row.
    y, n_classes : (n,) int64 class codes in ``[0, n_classes)`` (read for ``votes``); int.
    weight, want, negate : (r,) int64, int64, bool, or all (0,): with ``votes``, a bound
        that abandons hopeless candidates (:func:`_hopeless`); the first maximum of the
        scores and its score stay exact.
    floor : int64, with the bound: the score to reach (-1: none), or be abandoned.
    visit : (m,) int64 or (0,), with the bound: the order in which to scan the candidates
        (positions in ``cands``; empty: in order). Results do not depend on it.
    given : (m, n, K) int32 lists of all rows with K >= kk, when ``D`` is empty (else any
        empty array): row ``rows[r]`` of list t is voted by its kk nearest (the first kk).
    out : (m, r, kk) int32 or (0, r, kk): when given, the kk nearest other rows, in order
        (:func:`_nearest`); lists need no labels: one serves every relabelling.
    votes : (m, r) int64 or (0, r): when given, the kNN votes (the majority class, a tie to
        the tied class met first); an abandoned candidate's row starts with -1.
    """
    listed, pruned, lists, voting, bound, ordered, threshold = _modes(
        D, order, cands, rows, kk, n_classes, weight, visit, out, votes
    )
    bestd = np.empty(kk, dtype=np.float64)  # the kk best so far: distances, ...
    besti = np.empty(kk, dtype=np.int32)  # ... rows (the lists' type: one compiled _winner)
    counts = np.empty(n_classes, dtype=np.int64)  # _winner's scratch (it zeroes it)
    dnew = np.empty(D.shape[0], dtype=np.float64)  # a row's new distances
    R = rows.size
    seq, fails, visits, left = _bound_state(R)  # see _hopeless
    best = floor  # the best complete score
    best_t = cands.size  # the position of the best complete candidate (none yet)
    for s in range(cands.size):
        if bound and s % _RERANK == 0:
            _rerank(seq, fails, visits, left, weight)
        t = visit[s] if ordered else s
        need = best if t < best_t else best + 1  # ties go to the lower position
        nom, xf = nominal[cands[t]], XT[cands[t]]
        score = np.int64(0)  # (not a literal: one compiled _hopeless)
        for step in range(R):
            r = seq[step]
            i = rows[r]
            v = np.int64(-1)  # no vote yet
            if listed:  # copied, not sliced: one array type for _winner (votes 25-40% faster)
                for q in range(kk):
                    besti[q] = given[t, i, q]
            else:
                _new_distances(D[i], xf, xf[i], nom, sign, dnew)
                if threshold:
                    v = _threshold_vote(dnew, i, kk, y)
                if v < 0:  # (no threshold vote: the kk nearest in order)
                    _nearest(D, order, i, kk, pruned, bestd, besti, dnew)
                    if lists:
                        for q in range(kk):
                            out[t, r, q] = besti[q]
            if voting:
                if v < 0:
                    v = _winner(besti, y, counts)
                votes[t, r] = v
                if bound:
                    score, stop = _hopeless(
                        v, r, step, weight, want, negate, fails, visits, left, score, need
                    )
                    if stop:
                        votes[t, 0] = -1  # abandoned
                        break
        if bound and votes[t, 0] >= 0:  # complete: it reached ``need``
            best = score
            best_t = t


@njit(inline="always")
def _modes(D, order, cands, rows, kk, n_classes, weight, visit, out, votes):
    """What a call of the candidate kernel does, from the shapes of its arguments:
    ``(listed, pruned, lists, voting, bound, ordered, threshold)``."""
    n = D.shape[0]
    listed = n == 0  # the lists are ``given``: only voted
    voting = votes.shape[0] == cands.size
    bound = voting and weight.size == rows.size and rows.size > 0
    pruned = not listed and order.shape[0] == n
    lists = not listed and out.shape[0] == cands.size
    ordered = bound and visit.size == cands.size
    threshold = voting and not listed and not lists
    threshold = threshold and n_classes == 2 and kk >= (_THRESHOLD_MIN_K if pruned else 3)
    return listed, pruned, lists, voting, bound, ordered, threshold


@njit(inline="always")
def _nearest(D, order, i, kk, pruned, bestd, besti, dnew):
    """The kk nearest other rows of row ``i`` on its new distances ``dnew`` (those of
    :func:`_new_distances`), into ``besti`` (distances in ``bestd``): the kk smallest by
    (distance, index), nearest first.

    With ``pruned`` the examples are scanned in the order of ``D[i]`` (``order[i]``), and
    the scan stops at the first whose *current* distance already exceeds the kk-th best
    candidate distance: adding a feature never shortens a distance (``fl(a + c) >= a`` for
    ``c >= 0``). Otherwise every example is scanned in index order.
    """
    Di = D[i]
    n = D.shape[0]
    m = np.int64(0)  # (not a literal: see knn_candidate_neighbours)
    for q in range(n):
        j = order[i, q] if pruned else q
        if j == i:
            continue
        if pruned and m == kk and Di[j] > bestd[kk - 1]:
            break
        d = dnew[j]
        if m < kk:
            pos = m
            m += 1
        elif d < bestd[kk - 1] or (d == bestd[kk - 1] and j < besti[kk - 1]):
            pos = kk - 1
        else:
            continue
        # Lexicographic (distance, index): the pruned scan is not in index order.
        while pos > 0 and (bestd[pos - 1] > d or (bestd[pos - 1] == d and besti[pos - 1] > j)):
            bestd[pos] = bestd[pos - 1]
            besti[pos] = besti[pos - 1]
            pos -= 1
        bestd[pos] = d
        besti[pos] = j


@njit(inline="always")
def _new_distances(Di, xf, xi, nom, sign, dnew):
    """``dnew = Di + sign * c_f(i, .)``; with ``sign`` 0 and a column of zeros (the move that
    changes nothing) ``Di`` exactly (``Di + 0.0 * 0.0``: no loop of its own to compile).

    Every new distance of a row first, in branch-free loops the compiler vectorizes (~13%
    less kernel time in a CEFS certificate than computing each inside :func:`_nearest`'s
    scan); the floating-point operations of ``KNNLeaveOneOut.apply_move``, so the same
    values.
    """
    if nom:
        for j in range(Di.size):
            dnew[j] = Di[j] + sign * (1.0 if xi - xf[j] != 0.0 else 0.0)
    else:
        for j in range(Di.size):
            diff = xi - xf[j]
            dnew[j] = Di[j] + sign * (diff * diff)


@njit(inline="always")
def _threshold_vote(dnew, i, kk, y):
    """The two-class vote of row ``i``'s kk nearest on the distances ``dnew``, from a
    threshold found by bisection: the kk nearest are then the rows within it, in any order
    (the insertion scan orders them: on colon's certificate, k = 15..46, 2x slower).

    The bisection stops once a threshold decides the vote: when at most kk rows lie within
    it, they are all among the kk nearest (a class with more than kk / 2 of them wins); when
    at least kk do, the kk nearest are among them (a class with fewer than kk / 2 loses).
    On colon's certificate: 5.7 rounds a row instead of 9.7 at k = 15, the votes of k >= 8
    ~25% faster (replayed kernel calls).

    Returns -1 when no threshold separates exactly kk rows (equal distances at the kk-th,
    a NaN) or the vote ties: the caller then finds them in order. ``dnew[i]`` is restored.
    """
    n = dnew.size
    own = dnew[i]
    dnew[i] = np.inf  # row i is not its own neighbour
    lo = np.inf  # below every distance: fewer than kk rows lie within it, ...
    hi = -np.inf  # ... the largest finite one: at least kk do
    nan = np.int64(0)  # (not a literal: see knn_candidate_neighbours)
    for j in range(n):
        d = dnew[j]
        nan += d != d
        if d < lo:
            lo = d
        if d > hi and d < np.inf:
            hi = d
    lo = (lo + lo if lo < 0.0 else 0.0) - 1.0  # (below it)
    v = np.int64(-1)
    while nan == 0:
        mid = 0.5 * (lo + hi)
        if not (lo < mid < hi):  # no float between: ties at the kk-th (or infinities)
            break
        within = np.int64(0)
        ones = np.int64(0)
        for j in range(n):  # branch-free: vectorized
            inside = dnew[j] <= mid
            within += inside
            ones += y[j] * inside
        zeros = within - ones
        # At most kk rows within: all among the kk nearest (a majority of kk decides); at
        # least kk: the kk nearest among them (a class with under kk / 2 of them loses).
        if (within <= kk and 2 * ones > kk) or (within >= kk and 2 * zeros < kk):
            v = np.int64(1)
            break
        if (within <= kk and 2 * zeros > kk) or (within >= kk and 2 * ones < kk):
            v = np.int64(0)
            break
        if within < kk:
            lo = mid
        elif within > kk:
            hi = mid
        else:  # exactly the kk nearest, a tied vote: to the nearest's class, found in order
            break
    dnew[i] = own
    return v


@njit(inline="always")
def _bound_state(R):
    """A bound's row order (``0..R-1``), failure and visit counts, remaining-weight sums."""
    seq = np.empty(R, dtype=np.int64)
    fails = np.empty(R, dtype=np.int64)
    visits = np.empty(R, dtype=np.int64)
    left = np.empty(R + 1, dtype=np.int64)
    left[R] = 0
    for r in range(R):  # (one loop: slice assignments compile to far more code)
        seq[r] = r
        fails[r] = 0
        visits[r] = 0
        left[r] = 0
    return seq, fails, visits, left


@njit(inline="always")
def _rerank(seq, fails, visits, left, weight):
    """Order ``seq`` by failure rate, highest first (stable insertion sort), and set ``left``.

    The rate is ``(fails + 1) / (visits + 2)`` (a row never voted counts as 1/2): rows the
    bound abandons candidates before reaching are voted less often, so a count of failures
    would keep them at the back however often they fail (rows voted for a CEFS
    certificate on colon: -17%, its bounded passes ~13% faster; replayed kernel calls).
    """
    R = seq.size
    for a in range(1, R):
        r = seq[a]
        pos = a
        while pos > 0 and _rate_below(seq[pos - 1], r, fails, visits):
            seq[pos] = seq[pos - 1]
            pos -= 1
        seq[pos] = r
    left[R] = 0
    for step in range(R - 1, -1, -1):
        left[step] = left[step + 1] + weight[seq[step]]


@njit(inline="always")
def _rate_below(a, b, fails, visits):
    """Whether row ``a``'s failure rate is below row ``b``'s (exact, in integers)."""
    return (fails[a] + 1) * (visits[b] + 2) < (fails[b] + 1) * (visits[a] + 2)


@njit(inline="always")
def _hopeless(v, r, step, weight, want, negate, fails, visits, left, score, need):
    """Row ``r`` (the ``step``-th voted) voted ``v``: the score plus its weight on a success
    (a failure is counted otherwise), and whether even success on every row left could not
    lift the score to ``need``."""
    visits[r] += 1
    if (v == want[r]) != negate[r]:
        score += weight[r]
    else:
        fails[r] += 1
    return score, score + left[step + 1] < need


@njit(**KERNEL_JIT_OPTIONS)
def update_distances(D_ref, XT, nominal, add, remove, D):
    """``D = D_ref + sum_{f in add} c_f - sum_{f in remove} c_f`` (new array ``D``).

    Used by the genetic algorithm: an offspring differs from one of its parents by a few
    features, so its distances cost ``n^2`` per differing feature instead of per feature.
    """
    n = D.shape[0]
    for i in range(n):
        for j in range(i + 1, n):
            D[i, j] = D_ref[i, j]
    for sign, cols in ((1.0, add), (-1.0, remove)):
        for t in range(cols.size):
            f = cols[t]
            xf = XT[f]
            nom = nominal[f]
            for i in range(n):
                xi = xf[i]
                Di = D[i]
                for j in range(i + 1, n):
                    diff = xi - xf[j]
                    c = (1.0 if diff != 0.0 else 0.0) if nom else diff * diff
                    Di[j] += sign * c
    for i in range(n):
        D[i, i] = 0.0
        for j in range(i + 1, n):
            D[j, i] = D[i, j]
