"""Exact leave-one-out kNN with incremental distances (the searches' kNN evaluator).

:class:`KNNLeaveOneOut` keeps the pairwise squared-distance matrix ``D`` of the current
subset. Adding (removing) feature ``f`` adds (subtracts) its contribution ``c_f(i, j)``, so
every candidate's leave-one-out predictions come from one compiled pass over ``D +- c_f``
(:func:`widefs.search._kernels.knn_candidate_neighbours`, then a vote). Distance and tie
rules are those of :mod:`widefs.search._knn_model`.
"""

from __future__ import annotations

import hashlib

import numpy as np
from numpy.typing import NDArray

from widefs._utils import array_key
from widefs.search._chunks import _chunk_order, _map_chunks, _split, _threaded
from widefs.search._criterion import Criterion
from widefs.search._interface import _Evaluator
from widefs.search._knn_model import _KNNData

__all__ = ["KNNLeaveOneOut"]

# Neighbour lists shared across relabellings hold at least this many neighbours, so that
# searches whose k was chosen per relabelling (from CLASS_K_GRID, say) share them.
_SHARED_MIN_K = 10
# Up to this many neighbours the leave-one-out vote finds them by insertion; beyond, numpy
# sorts each row of the distances first.
_INSERTION_MAX_K = 32
# Distances on a subset with at least this many terms (columns x rows^2) come from the
# compiled update kernel (from zero), fewer from numpy: a genetic algorithm's or backward
# search's large subsets are ~7x faster compiled (1000 columns, 62 rows: 1.1 vs 7.8 ms),
# while a forward search, whose subsets stay small, compiles no kernel for them.
_COMPILED_DISTANCE_TERMS = 1 << 20
_NO_COLUMNS = np.empty(0, dtype=np.int64)


def _kernels():
    """The compiled kNN kernels, imported (and compiled) on first use."""
    from widefs.search import _kernels

    return _kernels


# The ``weight, want, negate, floor, visit`` of an unbounded kNN kernel pass: every row voted.
_NO_BOUND = (
    np.empty(0, np.int64),
    np.empty(0, np.int64),
    np.empty(0, bool),
    np.int64(-1),
    np.empty(0, np.int64),
)


def _readonly(a: np.ndarray) -> np.ndarray:
    """A read-only view: the kernels take their possibly shared inputs read-only, always
    (one compiled specialization whether or not the label-free cache supplied them)."""
    view = a.view()
    view.setflags(write=False)
    return view


_EMPTY_ORDER = np.empty((0, 0), dtype=np.int64)  # no scan order: every example in index order
# No distances: the kernel votes given lists; no given lists: it finds the neighbours.
_LISTS_GIVEN = _readonly(np.empty((0, 0), dtype=np.float64))
_NO_GIVEN = _readonly(np.empty((0, 0, 0), dtype=np.int32))


class KNNLeaveOneOut(_KNNData, _Evaluator):
    """Leave-one-out k-nearest-neighbour predictions with incremental distances.

    The search state is the ``(n, n)`` matrix of squared distances on the current
    subset. Scoring all m candidate moves costs ``O(m * len(rows) * n)`` with no
    ``(m, n, n)`` temporary.

    Parameters
    ----------
    X : ndarray of float64, shape (n_samples, n_features)
        Numeric values and nominal category codes (see ``nominal``).
    y : ndarray of int, shape (n_samples,)
        Class codes ``0 .. n_classes - 1``.
    n_classes : int
        Number of classes.
    nominal : ndarray of bool, shape (n_features,)
        Nominal columns (0/1 mismatch distance).
    rows : ndarray of int
        Held-out rows whose predictions are returned.
    n_neighbors : int, default=1
        k.

    See Also
    --------
    KNNEvaluator : Builds this engine.
    KNNModel : The same classifier fitted on all rows, for new examples.

    Examples
    --------
    >>> X = np.array([[0.0, 5.0], [0.1, 0.0], [1.0, 5.0], [1.1, 0.0]])
    >>> y = np.array([0, 0, 1, 1])
    >>> ev = KNNLeaveOneOut(X, y, 2, np.zeros(2, bool), np.arange(4), n_neighbors=1)
    >>> D = ev.initial_state(np.array([False, False]))
    >>> ev.predict_moves(D, np.array([0, 1]), add=True)  # feature 0 separates, 1 does not
    array([[0, 0, 1, 1],
           [1, 1, 0, 0]])
    """

    def __init__(self, X, y, n_classes, nominal, rows, n_neighbors=1):
        from widefs._utils import data_digest, label_free_cache

        # Inside widefs._utils.sharing_label_free_work (a search certificate), distance
        # matrices and candidate neighbour lists, which do not depend on y, are shared
        # with the evaluators of the other relabellings; so is the transposed data.
        self._shared = label_free_cache()
        XT = None
        data = b""
        if self._shared is not None:
            X = np.asarray(X, dtype=np.float64)
            data = data_digest(X)
            XT = self._shared.get_or_compute((b"knn-XT", data), lambda: np.ascontiguousarray(X.T))
        super().__init__(X, y, n_classes, nominal, n_neighbors, XT=XT)
        self.rows = np.ascontiguousarray(rows, dtype=np.int64)
        # The data part of every key: X's digest (X determines XT; one comparison of the
        # data per engine, not two: ~0.4 ms each for colon's 1 MB) and the nominal columns.
        # It holds X's digest as it is, so values leave the cache with X's data.
        if self._shared is not None:
            nominal_key = hashlib.blake2b(array_key(self.nominal), digest_size=20).digest()
            data += nominal_key
        self._data_id = data
        self._labels_key = self.y.tobytes()  # lists are stored once two labellings ask
        self._no_change = None  # _unchanged_pass' constant column, built on first use
        self._shared_k = 0  # the largest k of choose_k's grid (shared list length)
        # Each feature's last score from score_moves (-inf: abandoned), to scan the likely
        # best first next time (a bounded pass then abandons the others sooner).
        self._last_scores = np.full(self.XT.shape[0], -np.inf)

    def distances(self, cols) -> NDArray[np.float64]:
        """Squared distances between all training rows on ``cols`` (summed in that order).

        Parameters
        ----------
        cols : array-like of int
            Feature indices.

        Returns
        -------
        D : ndarray of float64, shape (n_samples, n_samples)
        """
        cols = np.ascontiguousarray(cols, dtype=np.int64)
        n = self.n_samples
        if cols.size * n * n < _COMPILED_DISTANCE_TERMS:
            D = self.distances_to(self.XT, cols)
            # (a - b)^2 == (b - a)^2 exactly, so D is symmetric; its diagonal is 0.
            np.fill_diagonal(D, 0.0)
            return D
        # The same sums in the same order (0 + c_1 + c_2 + ..., in the order of cols).
        D = np.empty((n, n))
        zero = _readonly(np.zeros((n, n)))
        _kernels().update_distances(zero, self.XT, self.nominal, cols, _NO_COLUMNS, D)
        return D

    def initial_state(self, mask) -> NDArray[np.float64]:
        cols = np.flatnonzero(mask)
        if self._shared is None:
            return self.distances(cols)
        key = (b"distances", self._data_id, array_key(cols))
        return self._shared.get_or_compute(key, lambda: self.distances(cols))

    def state_from(self, D_ref, ref_mask, mask) -> NDArray[np.float64]:
        """Distances on ``mask`` from those on ``ref_mask``, updating only differing features.

        Computed from scratch when that is cheaper.

        Parameters
        ----------
        D_ref : ndarray of float64, shape (n_samples, n_samples)
            Distances on ``ref_mask``.
        ref_mask, mask : ndarray of bool, shape (n_features,)

        Returns
        -------
        D : ndarray of float64, shape (n_samples, n_samples)
            ``D_ref`` itself when the masks are equal.
        """
        ref_mask = np.asarray(ref_mask, dtype=bool)
        mask = np.asarray(mask, dtype=bool)
        add = np.flatnonzero(mask & ~ref_mask)
        remove = np.flatnonzero(ref_mask & ~mask)
        if add.size + remove.size == 0:
            return D_ref
        if add.size + remove.size >= mask.sum():
            return self.initial_state(mask)

        def update():
            D = np.empty_like(D_ref)
            _kernels().update_distances(_readonly(D_ref), self.XT, self.nominal, add, remove, D)
            return D

        if self._shared is None:
            return update()
        key = (b"update", self._data_id, array_key(D_ref), array_key(add), array_key(remove))
        return self._shared.get_or_compute(key, update)

    def contribution(self, f: int) -> NDArray[np.float64]:
        """``c_f(i, j)``: squared difference, or 0/1 mismatch for a nominal column.

        Parameters
        ----------
        f : int
            Feature index.

        Returns
        -------
        c : ndarray of float64, shape (n_samples, n_samples)
        """
        x = self.XT[f]
        diff = x[:, None] - x[None, :]
        return (diff != 0.0).astype(np.float64) if self.nominal[f] else diff * diff

    def apply_move(self, state, f: int, add: bool) -> NDArray[np.float64]:
        # The same floating-point operations as the kernel, so the accepted state equals
        # the one that was scored.
        sign = 1.0 if add else -1.0
        return state + sign * self.contribution(f)

    def predict_state(self, D, n_neighbors: int | None = None) -> NDArray[np.int64]:
        """Leave-one-out predictions of ``rows`` from a state.

        Parameters
        ----------
        D : ndarray of float64, shape (n_samples, n_samples)
        n_neighbors : int, default=None
            k (default: ``self.n_neighbors``).

        Returns
        -------
        pred : ndarray of int, shape (len(rows),)
        """
        k = self.n_neighbors if n_neighbors is None else int(n_neighbors)
        return self.predict_state_ks(D, [k])[0]

    def predict_state_ks(self, D, ks) -> NDArray[np.int64]:
        """Leave-one-out predictions of ``rows`` for several k at once.

        Parameters
        ----------
        D : ndarray of float64, shape (n_samples, n_samples)
        ks : array-like of int
            Any order; each k is clipped to ``1 .. n_samples - 1``.

        Returns
        -------
        pred : ndarray of int, shape (len(ks), len(rows))
        """
        return self._loo_votes(np.ascontiguousarray(D), np.asarray(ks, dtype=np.int64))

    def predict_states(self, Ds) -> NDArray[np.int64]:
        """Predictions for a stack of states.

        Parameters
        ----------
        Ds : ndarray of float64, shape (m, n_samples, n_samples)

        Returns
        -------
        pred : ndarray of int, shape (m, len(rows))
        """
        R = self.rows.size
        if self.n_samples < 2 or R == 0:
            return np.zeros((len(Ds), R), dtype=np.int64)  # no other example votes: class 0
        # The genetic algorithm's hot path: one kernel call per state, votes written in place.
        out = np.empty((len(Ds), R), dtype=np.int64)
        K = min(max(self.n_neighbors, 1), self.n_samples - 1)
        no_lists = np.empty((0, R, K), dtype=np.int32)
        for b, D in enumerate(Ds):
            self._unchanged_pass(np.ascontiguousarray(D), K, no_lists, out[b : b + 1])
        return out

    def _unchanged_pass(self, D, K, lists, votes):
        """The candidate kernel on the move that changes nothing (``sign`` 0): the K nearest
        on ``D`` itself of each row, listed (``lists`` of shape ``(1, R, K)``) or voted
        (``votes`` of shape ``(1, R)``). The kernels of the search's moves, so a run compiles
        no third one. Beyond ``_INSERTION_MAX_K`` neighbours the rows of ``D`` are sorted
        first, so that the kernel's scan stops after the K nearest."""
        if self._no_change is None:  # a constant column, as XT, nominal and cands
            self._no_change = (
                _readonly(np.zeros((1, self.n_samples))),  # read-only, as ``XT``
                np.zeros(1, dtype=bool),
                np.zeros(1, dtype=np.int64),
            )
        order = np.argsort(D, axis=1, kind="stable") if K > _INSERTION_MAX_K else _EMPTY_ORDER
        _kernels().knn_candidate_neighbours(
            _readonly(D), order, *self._no_change, 0.0, self.rows, K, self.y, self.n_classes,
            *_NO_BOUND, _NO_GIVEN, lists, votes,
        )  # fmt: skip

    def _loo_votes(self, D, ks) -> NDArray[np.int64]:
        """Leave-one-out votes of ``rows`` on ``D`` for each k of ``ks``."""
        n = self.n_samples
        R = self.rows.size
        if n < 2 or R == 0:
            return np.zeros((ks.size, R), dtype=np.int64)  # no other example votes: class 0
        K = int(np.clip(ks.max(initial=1), 1, n - 1))
        if ks.size == 1:
            out = np.empty((1, R), dtype=np.int64)
            self._unchanged_pass(D, K, np.empty((0, R, K), dtype=np.int32), out)
            return out
        lists = np.empty((1, R, K), dtype=np.int32)
        self._unchanged_pass(D, K, lists, np.empty((0, R), dtype=np.int64))
        out = np.empty((ks.size, R), dtype=np.int64)
        positions = np.arange(R, dtype=np.int64)
        for j, k in enumerate(ks):
            kk = int(np.clip(k, 1, n - 1))
            self._vote_lists(lists, self._no_change, positions, kk, _NO_BOUND, out[j : j + 1])
        return out

    def _vote_lists(self, lists, features, positions, kk, bound, out):
        """The kernel on given neighbour lists (``D`` empty): ``out[t, r]``, the vote of the
        kk nearest of ``lists[t, positions[r]]``, with ``bound``. ``features``: the
        ``(XT, nominal, cands)`` the lists were made for (only their count is used)."""
        no_lists = np.empty((0, positions.size, kk), dtype=np.int32)
        _kernels().knn_candidate_neighbours(
            _LISTS_GIVEN, _EMPTY_ORDER, *features, 1.0, positions, kk, self.y, self.n_classes,
            *bound, _readonly(lists), no_lists, out,
        )  # fmt: skip

    def predict_moves(self, state, candidates, add: bool, n_jobs=None) -> NDArray[np.int64]:
        return self._moves(state, candidates, add, n_jobs)

    def score_moves(self, state, candidates, add: bool, criterion, n_jobs=None, baseline=None):
        # Voted row by row with a bound (see the kernel): a candidate that can no longer be
        # the first best (or beat the baseline's count of successes) is abandoned. The
        # candidates that scored best last time are scanned first: the bound then tightens
        # sooner (same results, ~10% less kernel time in a CEFS certificate).
        cands = np.ascontiguousarray(candidates, dtype=np.int64)
        bound = _NO_BOUND
        if np.array_equal(criterion.rows, self.rows):
            weight, want, negate = (np.ascontiguousarray(a) for a in criterion.row_weights())
            floor = -1
            if baseline is not None and weight.size:
                floor = int(weight[(np.asarray(baseline) == want) != negate].sum()) + 1
            visit = np.argsort(-self._last_scores[cands], kind="stable")
            bound = (weight, want, negate, np.int64(floor), visit)
        pred = self._moves(state, cands, add, n_jobs, bound)
        if pred.size:
            # Only the complete candidates are scored (a bounded step abandons nearly all:
            # scoring every row of ``pred`` took ~0.7 ms a step on colon); the abandoned
            # score -inf (their rows start with -1; class codes are >= 0).
            done = pred[:, 0] >= 0
            scores = np.full(cands.size, -np.inf)
            scores[done] = criterion.score(pred[done])
        else:
            scores = np.asarray(criterion.score(pred), dtype=np.float64)
        if bound is not _NO_BOUND:
            self._last_scores[cands] = scores
        return scores

    def _moves(self, state, candidates, add: bool, n_jobs, bound=_NO_BOUND):
        cands = np.ascontiguousarray(candidates, dtype=np.int64)
        out = np.empty((cands.size, self.rows.size), dtype=np.int64)
        if cands.size == 0:
            return out
        D = np.ascontiguousarray(state)
        sign = 1.0 if add else -1.0
        k = max(1, self.n_neighbors)
        kk = min(k, self.n_samples - 1)
        if self._shared is not None:
            # The neighbour lists depend on D and the candidates only (the K nearest start
            # with the k nearest, so one list serves every k <= K): found in the shared
            # cache, or computed for every row and stored the third time this position is
            # reached (with any k), once two labellings have reached it (the searches of
            # one fit alone never reuse lists on data a pre-screen picked for their
            # labels); then only the vote uses y. Lists
            # for every row cost several bounded passes (50x at k = 10 on colon), so a
            # position two relabellings reach, deep in a search, is not worth them; the
            # start of a search, which every relabelling reaches, is. They hold the
            # largest k a search's grid may choose (``_shared_k``), so that relabellings
            # whose k differs do not recompute them for each larger k.
            key = (b"moves", self._data_id, array_key(D), array_key(cands), array_key([sign]))
            neighbours = self._shared.lookup(key)
            if neighbours is not None and neighbours.shape[2] < kk:
                neighbours = None  # stored for a smaller k: replaced by a longer list
            if neighbours is None and self._shared.wanted(key, 2, self._labels_key):
                K = self._shared_list_length(k, cands.size)
                neighbours = self.candidate_neighbours(D, cands, add, K, n_jobs=n_jobs)
                self._shared.store(key, neighbours)
            if neighbours is not None:
                features = (self.XT, self.nominal, cands)
                self._vote_lists(neighbours, features, self.rows, kk, bound, out)
                return out
        # Needed once: the kernel votes as it goes, no lists written.
        return self._candidate_pass(D, cands, add, kk, self.rows, n_jobs, votes=True, bound=bound)

    def _shared_list_length(self, k: int, n_candidates: int) -> int:
        """Neighbours per shared list: k, at least ``_SHARED_MIN_K`` and the largest k of
        the grid ``choose_k`` saw, within an eighth of the sharing budget."""
        n = self.n_samples
        K = min(max(k, _SHARED_MIN_K, self._shared_k), n - 1)
        fits = self._shared.budget_bytes // 8 // max(4 * n_candidates * n, 1)
        return max(min(K, fits), k)

    def candidate_neighbours(self, D, candidates, add, k, rows=None, n_jobs=None):
        """Leave-one-out neighbours after each candidate move (no labels involved).

        Parameters
        ----------
        D : ndarray of float64, shape (n_samples, n_samples)
            Current distances.
        candidates : ndarray of int, shape (m,)
        add : bool
            Add (True) or remove each candidate.
        k : int
            Neighbours (at most ``n_samples - 1`` are listed).
        rows : ndarray of int, default=None
            Rows whose neighbours are listed (``None``: all).
        n_jobs : int, default=None
            Threads over candidates.

        Returns
        -------
        neighbours : ndarray of int32, shape (m, len(rows), min(k, n_samples - 1))
            Nearest first, equal distances to the lower index.
        """
        cands = np.ascontiguousarray(candidates, dtype=np.int64)
        n = self.n_samples
        rows = np.arange(n) if rows is None else np.ascontiguousarray(rows, dtype=np.int64)
        return self._candidate_pass(
            np.ascontiguousarray(D), cands, add, min(int(k), n - 1), rows, n_jobs
        )

    def _candidate_pass(self, D, cands, add, kk, rows, n_jobs, votes=False, bound=_NO_BOUND):
        """The kernel over candidate chunks: neighbour lists, or (``votes``) predictions
        (with ``bound = (weight, want, negate)``: abandoned candidates start with -1)."""
        # Adding to a non-empty subset: rows of D in increasing order, ties by index, so
        # that the kernel's scan stops early (from the empty subset every distance is 0).
        if add and np.any(D):
            order = np.argsort(D, axis=1, kind="stable")
        else:
            order = np.empty((0, 0), dtype=np.int64)
        sign = 1.0 if add else -1.0
        kernel = _kernels().knn_candidate_neighbours
        if votes:
            out = np.empty((cands.size, rows.size), dtype=np.int64)
        else:
            out = np.empty((cands.size, rows.size, kk), dtype=np.int32)
        no_lists = np.empty((0, rows.size, kk), dtype=np.int32)
        no_votes = np.empty((0, rows.size), dtype=np.int64)
        weight, want, negate, floor, visit = bound
        D = _readonly(D)

        def work(idx):
            # Chunks are consecutive ranges: each thread writes its own rows of ``out``.
            part = out[idx[0] : idx[-1] + 1]
            lists, preds = (no_lists, part) if votes else (part, no_votes)
            # This chunk's candidates in the order ``visit`` gives them (positions in it).
            sub = visit if idx.size == cands.size else _chunk_order(visit, idx)
            kernel(
                D, order, self.XT, self.nominal, cands[idx], sign, rows, kk, self.y,
                self.n_classes, weight, want, negate, floor, sub, _NO_GIVEN, lists, preds,
            )  # fmt: skip

        _map_chunks(work, _split(cands.size, n_jobs))
        return out

    def predict_masks(self, masks, n_jobs=None) -> NDArray[np.int64]:
        masks = np.asarray(masks, dtype=bool)
        out = np.empty((masks.shape[0], self.rows.size), dtype=np.int64)
        if masks.shape[0] == 0:
            return out

        def work(idx):
            return idx, np.array([self.predict_subset(masks[m]) for m in idx])

        return _threaded(work, _split(masks.shape[0], n_jobs), out)

    def choose_k(self, criterion: Criterion, grid, mask) -> tuple[int, dict]:
        """Pick k by the criterion's leave-one-out score on the features of ``mask``.

        Soares (2010), Section 5.2.3: k is tuned once, before the search, by leave-one-out
        on the training set (for class-specific members, on that class's criterion). Ties
        go to the smaller k; k outside ``1 .. n_samples - 1`` is dropped.

        Parameters
        ----------
        criterion : Criterion
        grid : iterable of int
        mask : ndarray of bool, shape (n_features,)

        Returns
        -------
        k : int
        scores : dict {k: score}
        """
        grid = sorted({int(k) for k in grid if 1 <= int(k) <= self.n_samples - 1}) or [1]
        self._shared_k = grid[-1]  # the longest neighbour list worth sharing (see _moves)
        scores = criterion.score(self.predict_state_ks(self.initial_state(mask), grid))
        best = int(np.argmax(scores))  # first maximum: the smallest k
        return grid[best], dict(zip(grid, scores.tolist()))
