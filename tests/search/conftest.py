"""Brute-force references shared by the search tests."""

from collections import Counter

import numpy as np
import pytest


def brute_knn_loo(X, y, nominal, cols, k, rows):
    """LOO kNN by an explicit loop (distances summed directly on the subset, neighbours
    sorted by (distance, index), majority vote, vote tie to the first tied class met)."""
    n = X.shape[0]
    preds = []
    for i in rows:
        d = np.zeros(n)
        for f in cols:
            d += (X[:, f] != X[i, f]) if nominal[f] else (X[:, f] - X[i, f]) ** 2
        order = sorted((j for j in range(n) if j != i), key=lambda j: (d[j], j))[:k]
        votes = Counter(int(y[j]) for j in order)
        top = max(votes.values())
        preds.append(next(int(y[j]) for j in order if votes[int(y[j])] == top))
    return np.array(preds)


def brute_score(X, y, nominal, cols, k, target=None, kind="recall"):
    """Criterion by hand: accuracy, class recall or class-balanced accuracy."""
    pred = brute_knn_loo(X, y, nominal, cols, k, range(len(y)))
    if target is None:
        return np.mean(pred == y)
    pos = y == target
    recall = np.mean(pred[pos] == target)
    if kind == "recall":
        return recall
    return 0.5 * (recall + np.mean(pred[~pos] != target))


def brute_greedy(X, y, nominal, k, direction, n_features=None, tol=0.0, **crit):
    """Textbook SFS/SBS: rescore every candidate from scratch; first best candidate."""
    p = X.shape[1]
    forward = direction == "forward"
    current = set() if forward else set(range(p))
    score = -np.inf if forward else brute_score(X, y, nominal, sorted(current), k, **crit)
    trail = []
    while True:
        if forward and (len(current) == p or (n_features and len(current) >= n_features)):
            break
        if not forward and (len(current) == 1 or (n_features and len(current) <= n_features)):
            break
        best_f, best_s = None, -np.inf
        for f in range(p):
            if (f in current) == forward:
                continue
            cols = sorted(current | {f}) if forward else sorted(current - {f})
            s = brute_score(X, y, nominal, cols, k, **crit)
            if s > best_s:
                best_f, best_s = f, s
        if n_features is None and current:
            if forward and not best_s - score > tol:
                break
            if not forward and not score - best_s <= tol:
                break
        current = current | {best_f} if forward else current - {best_f}
        score = best_s
        trail.append((best_f, best_s))
    return sorted(current), score, trail


@pytest.fixture
def brute():
    class Brute:
        knn_loo = staticmethod(brute_knn_loo)
        score = staticmethod(brute_score)
        greedy = staticmethod(brute_greedy)

    return Brute
