"""Variants of the Soares (2010) kNN protocol that test why CEFS loses where it loses.

Built from the public pieces of :mod:`widefs.search` (leave-one-out evaluators, fitted
kNN models, the class criterion), so each variant changes exactly one thing:

- ``stopping``: ``"first"`` stops SFS / SBS at the first step that does not improve the
  leave-one-out score (the library's ``n_features="auto"``); ``"best"`` searches to the
  end (all features for SFS, one for SBS) and keeps the best subset on the path, ties to
  fewer features (the dissertation's general process: "the best subset is kept").
- ``k``: ``"all"`` tunes k once on all features before the search (Section 5.2.3) and
  keeps it; ``"subset"`` re-tunes it on the selected subset, by the same criterion and
  grid, for the final model.
- ``knn``: ``"library"`` breaks distance ties by row order (exactly k neighbours vote);
  ``"tie-aware"`` lets every training instance tied with the k-th nearest vote, so a
  subset of one or two nominal features no longer picks its k voters by row order.

:func:`sequential_search` with ``knn="library"`` and ``stopping="first"`` reproduces
:class:`widefs.search.SequentialSelector` exactly (tested), so differences between the
variants come from the variant, not from a second implementation.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from widefs.search import (
    CLASS_K_GRID,
    Criterion,
    KNNLeaveOneOut,
    KNNModel,
    dissertation_k_grid,
)

__all__ = [
    "VariantResult",
    "cefs_variant",
    "predict_knn",
    "retuned_k",
    "sequential_search",
    "tie_aware_knn",
]


def _feature_distances(XA, XB, nominal):
    """Per-feature distance terms, shape ``(p, len(XA), len(XB))``: squared differences on
    numeric features, 0/1 mismatch on nominal ones (the library's kNN distance)."""
    diff = XA.T[:, :, None] - XB.T[:, None, :]
    return np.where(nominal[:, None, None], (diff != 0).astype(float), diff**2)


def tie_aware_knn(D, y, n_classes: int, k: int):
    """kNN votes where every instance tied with the k-th nearest distance votes.

    Parameters
    ----------
    D : ndarray of shape (n_queries, n_train)
        Distances (``inf`` for excluded pairs, e.g. a query to itself in leave-one-out).
    y : ndarray of int, shape (n_train,)
    n_classes, k : int

    Returns
    -------
    ndarray of int, shape (n_queries,)
        The class with most votes; a vote tie goes to the class of the nearest tied
        neighbour among the tied classes (distance, then lower row index), as in the
        dissertation.

    Examples
    --------
    >>> D = np.array([[1.0, 2.0, 2.0, 2.0, 5.0]])
    >>> y = np.array([0, 1, 1, 0, 0])
    >>> int(tie_aware_knn(D, y, 2, k=2)[0])  # voters: the four within 2.0, 2 votes each
    0
    >>> int(tie_aware_knn(D, np.array([0, 1, 1, 1, 0]), 2, k=2)[0])  # 1 vote against 3
    1
    """
    kth = np.partition(D, k - 1, axis=1)[:, k - 1 : k]
    within = kth >= D
    votes = np.stack([(within & (y == c)).sum(axis=1) for c in range(n_classes)], axis=1)
    tied = votes == votes.max(axis=1, keepdims=True)
    pred = np.argmax(votes, axis=1)
    for i in np.flatnonzero(tied.sum(axis=1) > 1):
        order = np.lexsort((np.arange(D.shape[1]), D[i]))
        pred[i] = next(int(y[j]) for j in order if tied[i, y[j]])
    return pred


class _TieAwareLOO:
    """Leave-one-out tie-aware kNN on the rows of a criterion (same interface as the
    library's evaluator where :func:`sequential_search` needs it)."""

    def __init__(self, X, y, n_classes, nominal, rows, n_neighbors=1):
        self.y, self.n_classes, self.rows = y, n_classes, rows
        self.n_neighbors = int(n_neighbors)
        self.terms = _feature_distances(X[rows], X, nominal)
        self.self_pairs = (np.arange(rows.size), rows)

    def initial_state(self, mask):
        D = self.terms[mask].sum(axis=0) if mask.any() else np.zeros(self.terms.shape[1:])
        D[self.self_pairs] = np.inf
        return D

    def apply_move(self, D, f, add):
        return D + self.terms[f] if add else D - self.terms[f]

    def predict_state(self, D, n_neighbors=None):
        k = self.n_neighbors if n_neighbors is None else int(n_neighbors)
        return tie_aware_knn(D, self.y, self.n_classes, k)

    def predict_moves(self, D, candidates, add):
        return np.stack([self.predict_state(self.apply_move(D, f, add)) for f in candidates])


def _evaluator(knn, X, y, n_classes, nominal, rows, k=1):
    if knn == "library":
        return KNNLeaveOneOut(X, y, n_classes, nominal, rows, n_neighbors=k)
    return _TieAwareLOO(X, y, n_classes, nominal, rows, n_neighbors=k)


def _choose_k(ev, criterion, grid, mask):
    """Smallest k of ``grid`` with the best leave-one-out score on ``mask``."""
    n = ev.y.size
    grid = sorted({int(k) for k in grid if 1 <= int(k) <= n - 1}) or [1]
    state = ev.initial_state(mask)
    scores = [float(criterion.score(ev.predict_state(state, k))) for k in grid]
    return grid[int(np.argmax(scores))]


def sequential_search(X, y, n_classes, nominal, *, direction, stopping, knn, target, k_grid):
    """SFS / SBS with the library's scoring and tie rules, and the variant's options.

    k is tuned on all features first (ties to the smaller k); a step takes the first best
    candidate (lowest feature index). ``stopping="first"``: forward steps must raise the
    score, backward steps must not lower it. ``stopping="best"``: run to the end and keep
    the best subset on the path (ties to fewer features).

    Returns
    -------
    mask : ndarray of bool
    k : int
    """
    criterion = Criterion(y, target=target, kind="recall")
    ev = _evaluator(knn, X, y, n_classes, nominal, criterion.rows)
    p = X.shape[1]
    k = _choose_k(ev, criterion, k_grid, np.ones(p, dtype=bool))
    ev.n_neighbors = k
    forward = direction == "forward"
    mask = np.zeros(p, dtype=bool) if forward else np.ones(p, dtype=bool)
    state = ev.initial_state(mask)
    path = []
    current = -np.inf if forward else float(criterion.score(ev.predict_state(state)))
    if not forward:
        path.append((mask.copy(), current))
    while (mask.sum() < p) if forward else (mask.sum() > 1):
        cands = np.flatnonzero(mask != forward)
        scores = criterion.score(ev.predict_moves(state, cands, add=forward))
        b = int(np.argmax(scores))
        new = float(scores[b])
        improves = new > current if forward else new >= current
        if stopping == "first" and mask.any() and not improves:
            break
        mask[cands[b]] = forward
        state = ev.apply_move(state, int(cands[b]), forward)
        current = new
        path.append((mask.copy(), new))
    if stopping == "best":
        best = max(s for _, s in path)
        mask = min((m for m, s in path if s == best), key=lambda m: int(m.sum())).copy()
    return mask, k


def retuned_k(X, y, n_classes, nominal, mask, target, k_grid, knn="library"):
    """k re-tuned on the selected subset by the member's (or overall) criterion."""
    criterion = Criterion(y, target=target, kind="recall")
    ev = _evaluator(knn, X, y, n_classes, nominal, criterion.rows)
    return _choose_k(ev, criterion, k_grid, mask)


def predict_knn(knn, Xtr, ytr, n_classes, nominal, mask, k, Xte):
    """Class codes of ``Xte`` by the library's or the tie-aware kNN on ``mask``."""
    cols = np.flatnonzero(mask)
    if knn == "library":
        return KNNModel(Xtr, ytr, n_classes, nominal, cols, k).predict_codes(Xte)
    D = _feature_distances(Xte, Xtr, nominal)[mask].sum(axis=0)
    return tie_aware_knn(D, ytr, n_classes, k)


@dataclass
class VariantResult:
    """Test predictions (class codes) of one variant on one split."""

    no_fs: np.ndarray
    traditional: np.ndarray
    cefs: np.ndarray
    overall: np.ndarray  # selected features (bool mask)
    members: dict  # class code -> bool mask
    k_overall: int
    k_members: dict


def cefs_variant(Xtr, ytr, Xte, nominal, *, direction, stopping="first", k="all", knn="library"):
    """No selection, traditional selection and CEFS (unanimous members, else the overall
    model) under one variant, on one split (kNN only)."""
    n_classes = int(ytr.max()) + 1
    p = Xtr.shape[1]
    overall_grid = dissertation_k_grid(ytr.size)
    targets = [None, *range(n_classes)]
    masks, ks = {}, {}
    for t in targets:
        grid = overall_grid if t is None else CLASS_K_GRID
        mask, kt = sequential_search(
            Xtr,
            ytr,
            n_classes,
            nominal,
            direction=direction,
            stopping=stopping,
            knn=knn,
            target=t,
            k_grid=grid,
        )
        if k == "subset":
            kt = retuned_k(Xtr, ytr, n_classes, nominal, mask, t, grid, knn=knn)
        masks[t], ks[t] = mask, kt
    all_mask = np.ones(p, dtype=bool)
    k_all = retuned_k(Xtr, ytr, n_classes, nominal, all_mask, None, overall_grid, knn=knn)
    no_fs = predict_knn(knn, Xtr, ytr, n_classes, nominal, all_mask, k_all, Xte)
    trad = predict_knn(knn, Xtr, ytr, n_classes, nominal, masks[None], ks[None], Xte)
    member_pred = np.column_stack(
        [
            predict_knn(knn, Xtr, ytr, n_classes, nominal, masks[c], ks[c], Xte)
            for c in range(n_classes)
        ]
    )
    decided = np.all(member_pred == member_pred[:, :1], axis=1)
    cefs = np.where(decided, member_pred[:, 0], trad)
    return VariantResult(
        no_fs=no_fs,
        traditional=trad,
        cefs=cefs,
        overall=masks[None],
        members={c: masks[c] for c in range(n_classes)},
        k_overall=ks[None],
        k_members={c: ks[c] for c in range(n_classes)},
    )
