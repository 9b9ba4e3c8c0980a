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


def brute_genetic(
    X,
    score,
    *,
    population_size,
    n_generations,
    crossover_rate,
    mutation_rate,
    elitism,
    fractions=(0.1, 0.2, 0.4, 0.6, 0.8),
    seed=0,
):
    """The documented genetic algorithm as plain loops, ``score(cols)`` as the fitness.

    It draws from ``np.random.RandomState(seed)`` in the documented order: the initial
    population (``choice`` per individual), then per generation the tournament pairs (two
    ``randint`` vectors), one ``random_sample`` per pair for crossover (and a ``randint``
    cut when it happens), one ``random_sample`` matrix for mutation and one
    ``random_sample`` for elitism. It also counts the ties its rules had to break.
    """
    rng = np.random.RandomState(seed)
    mu, p = population_size, X.shape[1]
    pop = np.zeros((mu, p), dtype=bool)
    for i in range(mu):
        size = min(p, max(1, round(fractions[i * len(fractions) // mu] * p)))
        pop[i, rng.choice(p, size, replace=False)] = True
    cache = {}
    ties = {"score_ties": 0, "full_ties": 0, "elite_ties": 0, "best_ties": 0}

    def evaluate(population):
        fit, new = [], set()
        for ind in population:
            key = tuple(np.flatnonzero(ind).tolist())
            if not key:
                fit.append(-np.inf)  # the empty subset
                continue
            if key not in cache:
                cache[key] = score(list(key))
                new.add(key)
            fit.append(cache[key])
        return np.array(fit), len(new)

    def ranked(fit, sizes):  # fittest first: score, then fewer features, then index
        return sorted(range(len(fit)), key=lambda i: (-fit[i], sizes[i], i))

    def record(gen, fit, sizes, best_so_far, n_new):
        top = ranked(fit, sizes)[0]
        finite = fit[np.isfinite(fit)]
        return {
            "generation": gen,
            "best_score": float(fit[top]),
            "best_n_features": int(sizes[top]),
            "mean_score": float(finite.mean()) if finite.size else float("nan"),
            "best_so_far": best_so_far,
            "n_evaluated": n_new,
        }

    fit, n_new = evaluate(pop)
    sizes = pop.sum(axis=1)
    top = ranked(fit, sizes)[0]
    best_mask, best_score = pop[top].copy(), float(fit[top])
    history = [record(0, fit, sizes, best_score, n_new)]
    for gen in range(1, n_generations + 1):
        first = rng.randint(mu, size=mu)
        second = rng.randint(mu - 1, size=mu)
        second = second + (second >= first)  # two distinct individuals
        parents = []
        for s, t in zip(first, second):
            if fit[s] == fit[t]:
                ties["score_ties" if sizes[s] != sizes[t] else "full_ties"] += 1
            # The fitter wins: higher score, then fewer features; a full tie: the first.
            parents.append(s if (fit[s], -sizes[s]) >= (fit[t], -sizes[t]) else t)
        children = pop[parents].copy()
        for t in range(0, mu - 1, 2):
            if p > 1 and rng.random_sample() < crossover_rate:
                cut = rng.randint(1, p)  # one-point crossover: swap the tails
                for j in range(cut, p):
                    children[t, j], children[t + 1, j] = children[t + 1, j], children[t, j]
        flips = rng.random_sample((mu, p)) < mutation_rate
        children = children != flips
        child_fit, n_new = evaluate(children)
        child_sizes = children.sum(axis=1)
        if rng.random_sample() < elitism:
            worst = ranked(child_fit, child_sizes)[-1]
            ties["elite_ties"] += int(np.sum(child_fit == child_fit[worst]) > 1)
            elite = ranked(fit, sizes)[0]
            children[worst] = pop[elite]
            child_fit[worst], child_sizes[worst] = fit[elite], sizes[elite]
        pop, fit, sizes = children, child_fit, child_sizes
        top = ranked(fit, sizes)[0]
        if fit[top] == best_score and sizes[top] != best_mask.sum():
            ties["best_ties"] += 1
        if fit[top] > best_score or (fit[top] == best_score and sizes[top] < best_mask.sum()):
            best_mask, best_score = pop[top].copy(), float(fit[top])
        history.append(record(gen, fit, sizes, best_score, n_new))
    return {
        "support": best_mask,
        "score": best_score,
        "history": history,
        "population": pop,
        "fitness": fit,
        "n_evaluations": len(cache),
        "ties": ties,
    }


@pytest.fixture
def brute():
    class Brute:
        knn_loo = staticmethod(brute_knn_loo)
        score = staticmethod(brute_score)
        greedy = staticmethod(brute_greedy)
        genetic = staticmethod(brute_genetic)

    return Brute


@pytest.fixture
def gaussian_queries():
    """``(X, y, Q)``: Gaussian classes on columns of growing scale, and queries."""

    def make(seed, n=36, p=4, n_classes=3, nq=200):
        rng = np.random.default_rng(seed)
        y = np.repeat(np.arange(n_classes), n // n_classes)
        X = rng.normal(size=(n, p)) * (1.0 + np.arange(p)) + 0.8 * y[:, None]
        Q = rng.normal(size=(nq, p)) * (1.0 + np.arange(p)) + rng.integers(0, n_classes, (nq, 1))
        return X, y, Q

    return make
