"""Genetic-algorithm feature selection (Soares 2010, Sections 5.2.5.1-5.2.5.2)."""

from __future__ import annotations

import numbers

import numpy as np
from joblib import Parallel, delayed, effective_n_jobs
from sklearn.base import _fit_context
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval

from widefs.search._base import WrapperSelector, logger
from widefs.search._evaluators import KNNLeaveOneOut
from widefs.search._sequential import _COMMON_ATTRS, _COMMON_PARAMS

__all__ = ["GeneticSelector", "initial_population", "rank_fitness"]


def rank_fitness(scores: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """Order of individuals from fittest: higher score, then fewer features, then index.

    Examples
    --------
    >>> rank_fitness(np.array([0.8, 0.9, 0.9, 0.8]), np.array([3, 5, 2, 1])).tolist()
    [2, 1, 3, 0]
    """
    return np.lexsort((np.arange(scores.size), sizes, -np.asarray(scores, dtype=float)))


def initial_population(
    rng: np.random.RandomState, population_size: int, n_features: int, fractions
) -> np.ndarray:
    """Initial population in equal parts of about ``fractions`` of the features each.

    Soares (2010), Section 5.2.5.1: "1/5 of the initial population contains roughly 10%
    of the features, 1/5 contains 20%, then 40%, 60%, and 80%". Individual ``i`` gets
    fraction ``fractions[i * len(fractions) // population_size]`` and exactly
    ``max(1, round(fraction * n_features))`` distinct features drawn uniformly.

    Examples
    --------
    >>> pop = initial_population(np.random.RandomState(0), 10, 50, (0.1, 0.2, 0.4, 0.6, 0.8))
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


class GeneticSelector(WrapperSelector):
    __doc__ = f"""Genetic-algorithm feature selection scored by leave-one-out (Soares 2010).

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
    deterministic, so results are identical for any ``n_jobs``. Subsets met before are
    not re-evaluated.

    Parameters
    ----------
    population_size : int, default=20
    n_generations : int, default=40
    crossover_rate : float, default=0.6
    mutation_rate : float, default=0.001
    elitism : float, default=0.8
    initial_fractions : array-like of float, default=(0.1, 0.2, 0.4, 0.6, 0.8)
    random_state : int, RandomState instance or None, default=None
    {_COMMON_PARAMS}

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
    {_COMMON_ATTRS}

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(40, 12))
    >>> y = (X[:, 2] > 0).astype(int)
    >>> sel = GeneticSelector(n_generations=10, n_neighbors=3, random_state=0).fit(X, y)
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
        random_state=None,
        estimator="knn",
        n_neighbors="auto",
        k_grid=None,
        target_class=None,
        class_criterion="recall",
        categorical_features="from_dtype",
        var_smoothing=1e-9,
        alpha=1.0,
        cv=5,
        n_jobs=None,
        verbose=0,
    ):
        self.population_size = population_size
        self.n_generations = n_generations
        self.crossover_rate = crossover_rate
        self.mutation_rate = mutation_rate
        self.elitism = elitism
        self.initial_fractions = initial_fractions
        self.random_state = random_state
        self.estimator = estimator
        self.n_neighbors = n_neighbors
        self.k_grid = k_grid
        self.target_class = target_class
        self.class_criterion = class_criterion
        self.categorical_features = categorical_features
        self.var_smoothing = var_smoothing
        self.alpha = alpha
        self.cv = cv
        self.n_jobs = n_jobs
        self.verbose = verbose

    def _evaluate(self, pop, ev, crit, cache):
        """Scores of the rows of ``pop``; new subsets scored in one batch, then cached."""
        keys = [np.packbits(ind).tobytes() for ind in pop]
        todo, seen = [], set()
        for i, key in enumerate(keys):
            if key not in cache and key not in seen and pop[i].any():
                todo.append(i)
                seen.add(key)
        if todo:
            scores = crit.score(ev.predict_masks(pop[todo], n_jobs=self.n_jobs))
            for i, s in zip(todo, np.atleast_1d(scores)):
                cache[keys[i]] = float(s)
        out = np.array(
            [cache.get(k, -np.inf) if pop[i].any() else -np.inf for i, k in enumerate(keys)]
        )
        return out, len(todo)

    def _evaluate_knn(self, pop, make_state, ev, crit, cache):
        """Scores and distance matrices of ``pop``; ``make_state(t)`` builds row t's matrix
        (from a parent's when cheaper). New subsets are scored once, in parallel threads."""
        keys = [np.packbits(ind).tobytes() for ind in pop]
        first: dict = {}
        for i, key in enumerate(keys):
            if pop[i].any() and key not in cache and key not in first:
                first[key] = i
        new = list(first.values())
        jobs = effective_n_jobs(self.n_jobs)
        chunks = [c for c in np.array_split(np.arange(len(pop)), max(1, jobs)) if c.size]

        def work(idx):
            # Distance matrices of rows idx, then one compiled call for the new subsets.
            states = {int(t): make_state(int(t)) for t in idx}
            mine = [t for t in new if t in states]
            scores = {}
            if mine:
                preds = ev.predict_states(np.stack([states[t] for t in mine]))
                scores = dict(zip(mine, np.atleast_1d(crit.score(preds)).tolist()))
            return states, scores

        if len(chunks) > 1:
            parts = Parallel(n_jobs=len(chunks), backend="threading")(
                delayed(work)(c) for c in chunks
            )
        else:
            parts = [work(chunks[0])] if chunks else []
        states, scores = {}, {}
        for st, sc in parts:
            states.update(st)
            scores.update(sc)
        for key, i in first.items():
            cache[key] = scores[i]
        fit = np.array(
            [cache[k] if pop[i].any() else -np.inf for i, k in enumerate(keys)], dtype=float
        )
        return fit, [states[t] for t in range(len(pop))], len(first)

    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y):
        """Run the genetic algorithm.

        Parameters
        ----------
        X : array_like or DataFrame of shape (n_samples, n_features)
        y : array_like of shape (n_samples,)

        Returns
        -------
        self
        """
        fractions = np.asarray(self.initial_fractions, dtype=float).ravel()
        if fractions.size == 0 or np.any((fractions <= 0) | (fractions > 1)):
            raise ValueError(
                f"initial_fractions must be a non-empty list of fractions in (0, 1]; "
                f"got {self.initial_fractions!r}."
            )
        Xe, ev, crit = self._prepare(X, y)
        rng = check_random_state(self.random_state)
        mu, p = int(self.population_size), Xe.shape[1]
        cache: dict = {}
        pop = initial_population(rng, mu, p, fractions)
        # kNN: keep each individual's distance matrix, so that an offspring's comes from
        # its closer parent by adding/subtracting the differing features only.
        delta = isinstance(ev, KNNLeaveOneOut) and mu * Xe.shape[0] ** 2 * 8 <= self._delta_bytes
        states = None
        if delta:
            # Individuals holding most features are cheaper as "all minus the rest".
            full = np.ones(p, dtype=bool)
            D_all = ev.initial_state(full) if np.any(pop.sum(axis=1) > p / 2) else None

            def make_initial(t):
                if D_all is None:
                    return ev.initial_state(pop[t])
                return ev.state_from(D_all, full, pop[t])

            fit, states, n_new = self._evaluate_knn(pop, make_initial, ev, crit, cache)
        else:
            fit, n_new = self._evaluate(pop, ev, crit, cache)
        sizes = pop.sum(axis=1)
        order = rank_fitness(fit, sizes)
        best_mask, best_score = pop[order[0]].copy(), float(fit[order[0]])
        history = [self._record(0, fit, sizes, order, best_score, n_new)]
        for gen in range(1, int(self.n_generations) + 1):
            # Binary tournaments: two distinct individuals, the fitter becomes a parent
            # (a full tie goes to the first drawn).
            a = rng.randint(mu, size=mu)
            b = rng.randint(mu - 1, size=mu)
            b += b >= a
            a_wins = (fit[a] > fit[b]) | ((fit[a] == fit[b]) & (sizes[a] <= sizes[b]))
            parents = np.where(a_wins, a, b)
            children = pop[parents].copy()
            for t in range(0, mu - 1, 2):
                if p > 1 and rng.random_sample() < self.crossover_rate:
                    cut = rng.randint(1, p)
                    tail = children[t, cut:].copy()
                    children[t, cut:] = children[t + 1, cut:]
                    children[t + 1, cut:] = tail
            children ^= rng.random_sample(children.shape) < self.mutation_rate
            if delta:
                # Child t starts as a copy of parent t and may take a tail from its partner;
                # its distances come from whichever of the two differs in fewer features.
                partner = np.arange(mu) ^ 1
                partner[partner >= mu] = mu - 1
                r1, r2 = parents, parents[partner]
                d1 = np.count_nonzero(pop[r1] != children, axis=1)
                d2 = np.count_nonzero(pop[r2] != children, axis=1)
                ref = np.where((d2 < d1) | ((d2 == d1) & (r2 < r1)), r2, r1)

                def make_state(t, ref=ref, old=pop, old_states=states, kids=children):
                    return ev.state_from(old_states[ref[t]], old[ref[t]], kids[t])

                child_fit, child_states, n_new = self._evaluate_knn(
                    children, make_state, ev, crit, cache
                )
            else:
                child_fit, n_new = self._evaluate(children, ev, crit, cache)
            child_sizes = children.sum(axis=1)
            if rng.random_sample() < self.elitism:
                worst = rank_fitness(child_fit, child_sizes)[-1]
                children[worst] = pop[order[0]]
                child_fit[worst], child_sizes[worst] = fit[order[0]], sizes[order[0]]
                if delta:
                    child_states[worst] = states[order[0]]
            if delta:
                states = child_states
            pop, fit, sizes = children, child_fit, child_sizes
            order = rank_fitness(fit, sizes)
            top = order[0]
            if fit[top] > best_score or (fit[top] == best_score and sizes[top] < best_mask.sum()):
                best_mask, best_score = pop[top].copy(), float(fit[top])
            history.append(self._record(gen, fit, sizes, order, best_score, n_new))
            if self.verbose:
                logger.info("generation %d: best %.4f (%d features)", gen, fit[top], sizes[top])
        self.support_ = best_mask
        self.score_ = best_score
        self.history_ = history
        self.population_ = pop
        self.fitness_ = fit
        self.n_evaluations_ = len(cache)
        return self

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
