"""Genetic-algorithm feature selection (Soares 2010, Sections 5.2.5.1-5.2.5.2)."""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np
from sklearn.utils import check_random_state

from widefs._compat import Interval
from widefs.search._base import SearchProblem, SearchResult, WrapperSelector, logger
from widefs.search._chunks import _map_chunks, _split
from widefs.search._docs import search_docs
from widefs.search._knn import KNNLeaveOneOut

__all__ = ["GeneticSelector"]


def _rank_fitness(scores: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """Order of individuals from fittest: higher score, then fewer features, then index.

    >>> _rank_fitness(np.array([0.8, 0.9, 0.9, 0.8]), np.array([3, 5, 2, 1])).tolist()
    [2, 1, 3, 0]
    """
    return np.lexsort((np.arange(scores.size), sizes, -np.asarray(scores, dtype=float)))


def _tournament_winners(a, b, fit, sizes):
    """Binary tournaments ``a[t]`` against ``b[t]``: the fitter wins (higher score, then
    fewer features; a full tie goes to ``a``, the first drawn)."""
    a_wins = (fit[a] > fit[b]) | ((fit[a] == fit[b]) & (sizes[a] <= sizes[b]))
    return np.where(a_wins, a, b)


@dataclass(frozen=True)
class GeneticResult(SearchResult):
    """:class:`SearchResult` plus the final population, its fitness and the work done."""

    population: np.ndarray
    fitness: np.ndarray
    n_evaluations: int


def _initial_population(
    rng: np.random.RandomState, population_size: int, n_features: int, fractions
) -> np.ndarray:
    """Initial population in equal parts of about ``fractions`` of the features each.

    Soares (2010), Section 5.2.5.1: "1/5 of the initial population contains roughly 10%
    of the features, 1/5 contains 20%, then 40%, 60%, and 80%". Individual ``i`` gets
    fraction ``fractions[i * len(fractions) // population_size]`` and exactly
    ``max(1, round(fraction * n_features))`` distinct features drawn uniformly.

    >>> pop = _initial_population(np.random.RandomState(0), 10, 50, (0.1, 0.2, 0.4, 0.6, 0.8))
    >>> pop.sum(axis=1).tolist()
    [5, 5, 10, 10, 20, 20, 30, 30, 40, 40]
    """
    fractions = list(fractions)
    pop = np.zeros((population_size, n_features), dtype=bool)
    for i in range(population_size):
        frac = fractions[i * len(fractions) // population_size]
        size = min(n_features, max(1, round(frac * n_features)))
        pop[i, rng.choice(n_features, size, replace=False)] = True
    return pop


@search_docs
class GeneticSelector(WrapperSelector):
    """Genetic-algorithm feature selection scored by leave-one-out (Soares 2010).

    An individual is a feature subset; its fitness is the leave-one-out score, ties to
    fewer features. The initial population comes in five equal parts holding about 10,
    20, 40, 60 and 80% of the features. Each generation draws ``population_size``
    parents by binary tournament (two distinct individuals, the fitter wins; a full tie
    goes to the first drawn), pairs them in order, applies one-point crossover with
    probability ``crossover_rate`` and flips each bit with probability
    ``mutation_rate``; the offspring replace the parents (generational replacement),
    except that with probability ``elitism`` the best parent replaces the worst
    offspring. An empty subset gets fitness minus infinity. The best subset met in any
    generation is returned.

    Defaults are the dissertation's final settings (population 20, 40 generations,
    crossover 0.6, mutation 0.001, elitism 0.8; it used population 40 and elitism 0.9 on
    colon and lymphoma). All random draws happen in the parent process and fitness is
    deterministic, so results are identical for any ``n_jobs`` of the evaluator. Subsets
    met before are not re-evaluated.

    Parameters
    ----------
    population_size : int, default=20
    n_generations : int, default=40
    crossover_rate : float, default=0.6
    mutation_rate : float, default=0.001
    elitism : float, default=0.8
    initial_fractions : array-like of float, default=(0.1, 0.2, 0.4, 0.6, 0.8)
    %(selector_params)s
    random_state : int, RandomState instance or None, default=None

    Attributes
    ----------
    support_ : ndarray of bool
        Best subset found.
    score_ : float
        Its leave-one-out score.
    history_ : list of dict
        Per generation (0 = initial population): ``generation``, ``best_score`` and
        ``best_n_features`` of that population, ``mean_score`` (finite fitnesses only),
        ``best_so_far`` and ``n_evaluated`` (new subsets scored).
    population_ : ndarray of bool, shape (population_size, n_features)
        Final population.
    fitness_ : ndarray of float
        Its scores.
    n_evaluations_ : int
        Distinct subsets scored.
    %(selector_attrs)s

    %(selector_see_also)s

    Examples
    --------
    >>> import numpy as np
    >>> from widefs.search import KNNEvaluator
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(40, 12))
    >>> y = (X[:, 2] > 0).astype(int)
    >>> ga = GeneticSelector(n_generations=10, evaluator=KNNEvaluator(3), random_state=0)
    >>> sel = ga.fit(X, y)
    >>> bool(sel.support_[2]), sel.score_ >= 0.85, len(sel.history_)
    (True, True, 11)
    """

    _delta_bytes = 2**28  # memory cap for the kept distance matrices (population x n x n)

    _parameter_constraints: dict = {
        **WrapperSelector._parameter_constraints,
        "population_size": [Interval(numbers.Integral, 2, None, closed="left")],
        "n_generations": [Interval(numbers.Integral, 0, None, closed="left")],
        "crossover_rate": [Interval(numbers.Real, 0, 1, closed="both")],
        "mutation_rate": [Interval(numbers.Real, 0, 1, closed="both")],
        "elitism": [Interval(numbers.Real, 0, 1, closed="both")],
        "initial_fractions": ["array-like"],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        *,
        population_size=20,
        n_generations=40,
        crossover_rate=0.6,
        mutation_rate=0.001,
        elitism=0.8,
        initial_fractions=(0.1, 0.2, 0.4, 0.6, 0.8),
        evaluator=None,
        random_state=None,
        verbose=0,
    ):
        self.population_size = population_size
        self.n_generations = n_generations
        self.crossover_rate = crossover_rate
        self.mutation_rate = mutation_rate
        self.elitism = elitism
        self.initial_fractions = initial_fractions
        self.evaluator = evaluator
        self.random_state = random_state
        self.verbose = verbose

    def _check_search_params(self, n_features: int) -> None:
        fractions = np.asarray(self.initial_fractions, dtype=float).ravel()
        if fractions.size == 0 or np.any((fractions <= 0) | (fractions > 1)):
            raise ValueError(
                f"initial_fractions must be a non-empty list of fractions in (0, 1]; "
                f"got {self.initial_fractions!r}."
            )

    def _evaluate(self, pop, problem: SearchProblem, cache):
        """Scores of the rows of ``pop``; new subsets scored in one batch, then cached."""
        keys, first = _new_subsets(pop, cache)
        todo = list(first.values())
        if todo:
            preds = problem.evaluator.predict_masks(pop[todo], n_jobs=problem.n_jobs)
            for i, s in zip(todo, np.atleast_1d(problem.criterion.score(preds))):
                cache[keys[i]] = float(s)
        return _fitness(pop, keys, cache), len(todo)

    def _evaluate_knn(self, pop, make_state, problem: SearchProblem, cache):
        """Scores and distance matrices of ``pop``; ``make_state(t)`` builds row t's matrix
        (from a parent's when cheaper). New subsets are scored once, in parallel threads."""
        keys, first = _new_subsets(pop, cache)
        new = list(first.values())
        ev, crit = problem.evaluator, problem.criterion

        def work(idx):
            # Distance matrices of rows idx, then one compiled pass over the new subsets.
            states = {int(t): make_state(int(t)) for t in idx}
            mine = [t for t in new if t in states]
            scores = {}
            if mine:
                preds = ev.predict_states([states[t] for t in mine])
                scores = dict(zip(mine, np.atleast_1d(crit.score(preds)).tolist()))
            return states, scores

        states, scores = {}, {}
        for st, sc in _map_chunks(work, _split(len(pop), problem.n_jobs)):
            states.update(st)
            scores.update(sc)
        for key, i in first.items():
            cache[key] = scores[i]
        return _fitness(pop, keys, cache), [states[t] for t in range(len(pop))], len(first)

    def _score_initial(self, problem: SearchProblem, pop, cache, delta: bool):
        """``(fitness, distance matrices or None, new subsets)`` of the initial population."""
        if not delta:
            fit, n_new = self._evaluate(pop, problem, cache)
            return fit, None, n_new
        ev, p = problem.evaluator, problem.n_features
        # Individuals holding most features are cheaper as "all minus the rest".
        full = np.ones(p, dtype=bool)
        D_all = ev.initial_state(full) if np.any(pop.sum(axis=1) > p / 2) else None

        def make_initial(t):
            if D_all is None:
                return ev.initial_state(pop[t])
            return ev.state_from(D_all, full, pop[t])

        return self._evaluate_knn(pop, make_initial, problem, cache)

    def _breed(self, rng, pop, fit, sizes):
        """Parents by binary tournament, then one-point crossover and bit-flip mutation."""
        mu, p = pop.shape
        # Binary tournaments between two distinct individuals.
        a = rng.randint(mu, size=mu)
        b = rng.randint(mu - 1, size=mu)
        b += b >= a
        parents = _tournament_winners(a, b, fit, sizes)
        children = pop[parents].copy()
        for t in range(0, mu - 1, 2):
            if p > 1 and rng.random_sample() < self.crossover_rate:
                cut = rng.randint(1, p)
                tail = children[t, cut:].copy()
                children[t, cut:] = children[t + 1, cut:]
                children[t + 1, cut:] = tail
        children ^= rng.random_sample(children.shape) < self.mutation_rate
        return parents, children

    def _score_children(self, problem: SearchProblem, pop, states, parents, children, cache):
        """``(fitness, distance matrices or None, new subsets)`` of the offspring."""
        if states is None:
            fit, n_new = self._evaluate(children, problem, cache)
            return fit, None, n_new
        # Child t starts as a copy of parent t and may take a tail from its partner; its
        # distances come from whichever of the two differs in fewer features.
        mu = len(pop)
        partner = np.arange(mu) ^ 1
        partner[partner >= mu] = mu - 1
        r1, r2 = parents, parents[partner]
        d1 = np.count_nonzero(pop[r1] != children, axis=1)
        d2 = np.count_nonzero(pop[r2] != children, axis=1)
        ref = np.where((d2 < d1) | ((d2 == d1) & (r2 < r1)), r2, r1)

        def make_state(t):
            return problem.evaluator.state_from(states[ref[t]], pop[ref[t]], children[t])

        return self._evaluate_knn(children, make_state, problem, cache)

    def _search(self, problem: SearchProblem) -> GeneticResult:
        """Generations of tournament selection, crossover, mutation and elitism."""
        fractions = np.asarray(self.initial_fractions, dtype=float).ravel()
        rng = check_random_state(self.random_state)
        mu, n_samples = int(self.population_size), problem.X.shape[0]
        cache: dict = {}
        pop = _initial_population(rng, mu, problem.n_features, fractions)
        # kNN: keep each individual's distance matrix, so that an offspring's comes from
        # its closer parent by adding/subtracting the differing features only.
        delta = (
            isinstance(problem.evaluator, KNNLeaveOneOut)
            and mu * n_samples**2 * 8 <= self._delta_bytes
        )
        fit, states, n_new = self._score_initial(problem, pop, cache, delta)
        sizes = pop.sum(axis=1)
        order = _rank_fitness(fit, sizes)
        best_mask, best_score = pop[order[0]].copy(), float(fit[order[0]])
        history = [self._record(0, fit, sizes, order, best_score, n_new)]
        for gen in range(1, int(self.n_generations) + 1):
            parents, children = self._breed(rng, pop, fit, sizes)
            child_fit, child_states, n_new = self._score_children(
                problem, pop, states, parents, children, cache
            )
            child_sizes = children.sum(axis=1)
            if rng.random_sample() < self.elitism:  # the best parent replaces the worst child
                worst = _rank_fitness(child_fit, child_sizes)[-1]
                children[worst] = pop[order[0]]
                child_fit[worst], child_sizes[worst] = fit[order[0]], sizes[order[0]]
                if states is not None:
                    child_states[worst] = states[order[0]]
            pop, fit, sizes, states = children, child_fit, child_sizes, child_states
            order = _rank_fitness(fit, sizes)
            top = order[0]
            if fit[top] > best_score or (fit[top] == best_score and sizes[top] < best_mask.sum()):
                best_mask, best_score = pop[top].copy(), float(fit[top])
            history.append(self._record(gen, fit, sizes, order, best_score, n_new))
            if self.verbose:
                logger.info("generation %d: best %.4f (%d features)", gen, fit[top], sizes[top])
        return GeneticResult(
            support=best_mask,
            score=best_score,
            history=history,
            population=pop,
            fitness=fit,
            n_evaluations=len(cache),
        )

    @staticmethod
    def _record(gen, fit, sizes, order, best_so_far, n_new):
        finite = fit[np.isfinite(fit)]
        return {
            "generation": gen,
            "best_score": float(fit[order[0]]),
            "best_n_features": int(sizes[order[0]]),
            "mean_score": float(finite.mean()) if finite.size else float("nan"),
            "best_so_far": best_so_far,
            "n_evaluated": int(n_new),
        }


def _new_subsets(pop, cache):
    """Packed keys of the rows of ``pop`` and ``{key: first row}`` of the non-empty
    subsets not scored before."""
    keys = [np.packbits(ind).tobytes() for ind in pop]
    first: dict = {}
    for i, key in enumerate(keys):
        if pop[i].any() and key not in cache and key not in first:
            first[key] = i
    return keys, first


def _fitness(pop, keys, cache):
    """Cached scores of the rows of ``pop``; the empty subset scores minus infinity."""
    return np.array(
        [cache[k] if pop[i].any() else -np.inf for i, k in enumerate(keys)], dtype=float
    )
