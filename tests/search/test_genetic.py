import itertools
import logging
import re

import numpy as np
import pytest

from widefs.search import GeneticSelector, KNNEvaluator, NaiveBayesEvaluator
from widefs.search._genetic import _initial_population as initial_population
from widefs.search._genetic import _rank_fitness as rank_fitness
from widefs.search._genetic import _tournament_winners


def data(seed=0, n=30, p=25):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 4, size=(n, p)).astype(float)
    y = rng.integers(0, 2, size=n)
    X[:, 4] += 4 * y  # one feature that separates the classes
    return X, y


def test_identical_for_any_n_jobs():
    X, y = data()
    kw = dict(population_size=10, n_generations=8, mutation_rate=0.02, random_state=3)
    a = GeneticSelector(evaluator=KNNEvaluator(n_jobs=1), **kw).fit(X, y)
    b = GeneticSelector(evaluator=KNNEvaluator(n_jobs=2), **kw).fit(X, y)
    np.testing.assert_array_equal(a.support_, b.support_)
    np.testing.assert_array_equal(a.population_, b.population_)
    assert a.history_ == b.history_
    c = GeneticSelector(evaluator=KNNEvaluator(n_jobs=1), **{**kw, "random_state": 4}).fit(X, y)
    assert c.history_ != a.history_


def test_best_is_scored_like_brute_force_and_is_the_best_seen(brute):
    X, y = data(1)
    sel = GeneticSelector(
        population_size=8, n_generations=6, random_state=0, evaluator=KNNEvaluator(3)
    )
    sel.fit(X, y)
    nominal = np.zeros(X.shape[1], bool)
    assert sel.score_ == brute.score(X, y, nominal, np.flatnonzero(sel.support_), 3)
    assert sel.score_ == max(h["best_score"] for h in sel.history_)
    assert [h["best_so_far"] for h in sel.history_] == list(
        np.maximum.accumulate([h["best_score"] for h in sel.history_])
    )
    # Final population fitness re-scored from scratch.
    for ind, fit in zip(sel.population_[:3], sel.fitness_[:3]):
        assert fit == brute.score(X, y, nominal, np.flatnonzero(ind), 3)


def test_full_elitism_never_loses_the_best():
    X, y = data(2)
    sel = GeneticSelector(
        population_size=6, n_generations=10, elitism=1.0, mutation_rate=0.05, random_state=1
    ).fit(X, y)
    best = [(h["best_score"], -h["best_n_features"]) for h in sel.history_]
    assert all(b >= a for a, b in itertools.pairwise(best))


def test_finds_the_planted_feature():
    X, y = data(3, p=40)
    sel = GeneticSelector(random_state=0, evaluator=KNNEvaluator(3)).fit(X, y)
    assert sel.support_[4]
    assert sel.score_ >= 0.9
    assert len(sel.history_) == 41
    # Duplicates are not rescored: far fewer evaluations than 20 x 41.
    assert sel.n_evaluations_ < 20 * 41


def test_initial_population_parts():
    pop = initial_population(np.random.RandomState(0), 20, 200, (0.1, 0.2, 0.4, 0.6, 0.8))
    assert pop.sum(axis=1).tolist() == [20] * 4 + [40] * 4 + [80] * 4 + [120] * 4 + [160] * 4
    tiny = initial_population(np.random.RandomState(0), 5, 3, (0.1, 0.2, 0.4, 0.6, 0.8))
    assert tiny.sum(axis=1).tolist() == [1, 1, 1, 2, 2]
    # Features are drawn uniformly: each is in about the same number of 10% individuals.
    many = initial_population(np.random.RandomState(1), 5000, 10, (0.1,))
    counts = many.sum(axis=0)
    assert np.all(np.abs(counts - 500) < 5 * np.sqrt(5000 * 0.1 * 0.9))


def test_rank_fitness_ties():
    scores = np.array([0.5, 0.7, 0.7, -np.inf, 0.7])
    sizes = np.array([1, 4, 2, 0, 2])
    assert rank_fitness(scores, sizes).tolist() == [2, 4, 1, 0, 3]


def test_naive_bayes_and_target_class(brute):
    X, y = data(4)
    sel = GeneticSelector(
        population_size=6,
        n_generations=3,
        random_state=0,
        evaluator=NaiveBayesEvaluator(target_class=1),
    ).fit(X, y)
    assert sel.n_neighbors_ is None and 0.0 <= sel.score_ <= 1.0
    knn = GeneticSelector(
        population_size=6,
        n_generations=3,
        random_state=0,
        evaluator=KNNEvaluator(1, target_class=0),
    ).fit(X, y)
    nominal = np.zeros(X.shape[1], bool)
    assert knn.score_ == brute.score(X, y, nominal, np.flatnonzero(knn.support_), 1, target=0)


def test_bad_fractions():
    X, y = data()
    with pytest.raises(ValueError, match="initial_fractions must be"):
        GeneticSelector(initial_fractions=[0.0, 0.5]).fit(X, y)


def test_parent_distance_updates_change_nothing(monkeypatch):
    # Integer data: updating a parent's distances is exact, so the GA must be identical
    # with and without the updates (forced off by a zero memory cap).
    X, y = data(5, p=30)
    kw = dict(population_size=10, n_generations=8, mutation_rate=0.02, random_state=1)
    fast = GeneticSelector(**kw).fit(X, y)
    monkeypatch.setattr(GeneticSelector, "_delta_bytes", 0)
    slow = GeneticSelector(**kw).fit(X, y)
    assert fast.history_ == slow.history_
    np.testing.assert_array_equal(fast.support_, slow.support_)


def test_state_from_parent_equals_from_scratch():
    from widefs.search import KNNLeaveOneOut

    rng = np.random.default_rng(0)
    X = rng.normal(size=(15, 12))
    X[:, 5] = rng.integers(0, 3, 15)
    nominal = np.zeros(12, bool)
    nominal[5] = True
    ev = KNNLeaveOneOut(X, rng.integers(0, 2, 15), 2, nominal, np.arange(15), 3)
    ref = rng.random(12) < 0.6
    child = ref.copy()
    child[[0, 5, 7]] = ~child[[0, 5, 7]]
    D = ev.state_from(ev.initial_state(ref), ref, child)
    np.testing.assert_allclose(D, ev.initial_state(child), rtol=1e-12, atol=1e-12)
    assert ev.state_from(D, child, child) is D


# ------------------------------------------------- the whole algorithm against a reference


def ties_data(seed, n=24, p=12):
    """Small integer data: many subsets reach the same leave-one-out score, so the tie
    rules of the tournament, the ranking and the best-so-far record all matter."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, size=(n, p)).astype(float)
    y = rng.integers(0, 2, n)
    X[:, 4] += y
    return X, y


GA_SETTINGS = [
    dict(population_size=8, n_generations=5, crossover_rate=0.6, mutation_rate=0.05, elitism=0.8),
    dict(population_size=7, n_generations=4, crossover_rate=1.0, mutation_rate=0.0, elitism=1.0),
    dict(population_size=6, n_generations=4, crossover_rate=0.0, mutation_rate=0.0, elitism=0.0),
    dict(population_size=6, n_generations=3, crossover_rate=0.0, mutation_rate=1.0, elitism=0.0),
]


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("settings", GA_SETTINGS, ids=lambda s: "-".join(map(str, s.values())))
def test_equals_the_reference_algorithm(brute, seed, settings):
    # The documented algorithm written out as plain loops (tests/search/conftest.py), with
    # brute-force leave-one-out fitness and the same random draws: every population,
    # fitness and history entry must agree. Pure selection (third setting) isolates the
    # tournament; full elitism (second) the elite's place; mutation 1 flips every bit.
    X, y = ties_data(seed)
    nominal = np.zeros(X.shape[1], bool)
    ref = brute.genetic(X, lambda cols: brute.score(X, y, nominal, cols, 3), seed=seed, **settings)
    sel = GeneticSelector(evaluator=KNNEvaluator(3), random_state=seed, **settings).fit(X, y)
    np.testing.assert_array_equal(sel.population_, ref["population"])
    np.testing.assert_array_equal(sel.fitness_, ref["fitness"])
    assert sel.history_ == ref["history"]
    np.testing.assert_array_equal(sel.support_, ref["support"])
    assert sel.score_ == ref["score"] and sel.n_evaluations_ == ref["n_evaluations"]


def test_reference_exercises_every_tie_rule(brute):
    # The comparison above can only catch a wrong tie rule if ties happen in it.
    seen = {"score_ties": 0, "full_ties": 0, "elite_ties": 0, "best_ties": 0}
    for seed in range(3):
        X, y = ties_data(seed)
        nominal = np.zeros(X.shape[1], bool)
        for settings in GA_SETTINGS:
            ref = brute.genetic(
                X,
                lambda cols, X=X, y=y, nominal=nominal: brute.score(X, y, nominal, cols, 3),
                seed=seed,
                **settings,
            )
            for key in seen:
                seen[key] += ref["ties"][key]
    assert all(count > 0 for count in seen.values()), seen


def test_tournament_winner_rule():
    fit = np.array([0.5, 0.7, 0.7, 0.7, -np.inf])
    sizes = np.array([3, 5, 2, 2, 0])
    a = np.array([0, 1, 2, 3, 4, 2])
    b = np.array([1, 2, 1, 2, 0, 3])
    # Higher score wins; on equal scores fewer features; a full tie goes to the first drawn.
    assert _tournament_winners(a, b, fit, sizes).tolist() == [1, 2, 2, 3, 0, 2]


def test_selection_pressure_raises_mean_fitness():
    # Pure tournament selection (no crossover, mutation or elitism) can only copy winners:
    # the population mean never falls below the initial mean by more than noise, and the
    # best individual spreads. A tournament that kept the less fit would do the opposite.
    X, y = ties_data(5, n=30, p=16)
    sel = GeneticSelector(
        population_size=12,
        n_generations=6,
        crossover_rate=0.0,
        mutation_rate=0.0,
        elitism=0.0,
        random_state=0,
        evaluator=KNNEvaluator(3),
    ).fit(X, y)
    means = [h["mean_score"] for h in sel.history_]
    assert means[-1] > means[0]
    assert np.mean(sel.fitness_ == sel.fitness_.max()) >= 0.5


def _spy_distance_builds(monkeypatch):
    """Record the kNN distance matrices the GA builds: ("scratch", features) for a
    from-scratch build, ("update", features) for one derived from a parent's."""
    from widefs.search import KNNLeaveOneOut

    calls = []
    scratch, update = KNNLeaveOneOut.initial_state, KNNLeaveOneOut.state_from

    def initial_state(self, mask):
        calls.append(("scratch", int(np.count_nonzero(mask))))
        return scratch(self, mask)

    def state_from(self, D_ref, ref_mask, mask):
        calls.append(("update", int(np.count_nonzero(mask))))
        return update(self, D_ref, ref_mask, mask)

    monkeypatch.setattr(KNNLeaveOneOut, "initial_state", initial_state)
    monkeypatch.setattr(KNNLeaveOneOut, "state_from", state_from)
    return calls


@pytest.mark.parametrize(
    ("fractions", "full_built"),
    [((0.3, 0.8), True), ((0.4, 0.5), False)],  # 16 > p/2 features; at most p/2 = 10
)
def test_all_features_matrix_built_once_only_when_an_individual_holds_most(
    monkeypatch, brute, fractions, full_built
):
    def brute_score_of(X, y, nominal, ind):
        return brute.score(X, y, nominal, np.flatnonzero(ind), 3)

    # Generation 0 derives the matrices of individuals holding more than half of the p
    # features from the all-features matrix ("all minus the rest"), built once; when no
    # individual holds more than half, every matrix is built from its own features.
    X, y = ties_data(0, n=12, p=20)
    calls = _spy_distance_builds(monkeypatch)
    kw = dict(population_size=8, n_generations=0, initial_fractions=fractions, random_state=0)
    GeneticSelector(evaluator=KNNEvaluator(3), **kw).fit(X, y)
    assert calls.count(("scratch", 20)) == (1 if full_built else 0)
    assert any(kind == "update" for kind, _ in calls) == full_built
    # The 16-feature individuals come from the full matrix minus 4 features, never from
    # scratch; and the matrices give the fitness of the path without kept matrices.
    assert ("scratch", 16) not in calls
    fast = GeneticSelector(evaluator=KNNEvaluator(3), **kw).fit(X, y)
    monkeypatch.setattr(GeneticSelector, "_delta_bytes", 0)
    slow = GeneticSelector(evaluator=KNNEvaluator(3), **kw).fit(X, y)
    np.testing.assert_array_equal(fast.fitness_, slow.fitness_)
    nominal = np.zeros(X.shape[1], bool)
    for ind, fit in zip(fast.population_, fast.fitness_):
        assert fit == brute_score_of(X, y, nominal, ind)


def test_parent_distance_updates_used_up_to_the_memory_cap(monkeypatch):
    # The offspring's matrices come from their parents' while population x n^2 doubles
    # fit in _delta_bytes (n samples, not p features); above it, no matrix is kept.
    X, y = ties_data(1, n=12, p=20)
    kw = dict(population_size=6, n_generations=3, mutation_rate=0.05, random_state=2)
    needed = 6 * 12**2 * 8
    histories = []
    for cap, used in [(needed, True), (needed - 1, False)]:
        monkeypatch.setattr(GeneticSelector, "_delta_bytes", cap)
        calls = _spy_distance_builds(monkeypatch)
        histories.append(GeneticSelector(evaluator=KNNEvaluator(3), **kw).fit(X, y).history_)
        assert any(kind == "update" for kind, _ in calls) == used, cap
        monkeypatch.undo()
    assert histories[0] == histories[1]


def test_init_stores_every_parameter_as_given():
    # scikit-learn's clone and get_params rely on __init__ storing each argument as is.
    from sklearn.base import clone

    params = dict(
        population_size=7,
        n_generations=3,
        crossover_rate=0.5,
        mutation_rate=0.01,
        elitism=0.7,
        initial_fractions=(0.3,),
        evaluator=NaiveBayesEvaluator(
            var_smoothing=1e-6,
            alpha=0.5,
            target_class=1,
            class_criterion="balanced",
            categorical_features=[0],
            n_jobs=2,
        ),
        random_state=5,
        verbose=1,
    )
    sel = GeneticSelector(**params)
    assert sel.get_params(deep=False) == params
    # clone copies the evaluator (a new object with the same settings).
    copied = clone(sel).get_params(deep=False)
    assert copied["evaluator"] is not params["evaluator"]
    assert copied.pop("evaluator").get_params() == params.pop("evaluator").get_params()
    assert copied == params


@pytest.mark.parametrize("p", [1, 2])
def test_one_and_two_features_equal_the_reference(brute, p):
    # One feature: no crossover point exists (no cut is drawn); two: the only cut is 1.
    rng = np.random.default_rng(p)
    X = rng.integers(0, 3, size=(16, p)).astype(float)
    y = rng.integers(0, 2, 16)
    X[:, 0] += y
    nominal = np.zeros(p, bool)
    settings = dict(
        population_size=6, n_generations=3, crossover_rate=1.0, mutation_rate=0.2, elitism=0.8
    )
    ref = brute.genetic(X, lambda cols: brute.score(X, y, nominal, cols, 3), seed=0, **settings)
    sel = GeneticSelector(evaluator=KNNEvaluator(3), random_state=0, **settings).fit(X, y)
    np.testing.assert_array_equal(sel.population_, ref["population"])
    assert sel.history_ == ref["history"]


def test_best_so_far_tie_rule_equals_the_reference(brute):
    # No elitism and some mutation: the population's best meets the record score again
    # with as many or more features; the record keeps the first subset (it changes only
    # for a higher score, or the same score with fewer features). Seed and settings found
    # by search so that keeping the latest subset instead changes support_.
    X, y = ties_data(1)
    nominal = np.zeros(X.shape[1], bool)
    settings = dict(
        population_size=6, n_generations=6, crossover_rate=0.6, mutation_rate=0.1, elitism=0.0
    )
    ref = brute.genetic(X, lambda cols: brute.score(X, y, nominal, cols, 3), seed=1, **settings)
    sel = GeneticSelector(evaluator=KNNEvaluator(3), random_state=1, **settings).fit(X, y)
    assert ref["ties"]["best_ties"] > 0
    np.testing.assert_array_equal(sel.support_, ref["support"])
    assert sel.score_ == ref["score"] and sel.history_ == ref["history"]


def test_defaults_are_the_documented_ones():
    # Every "name : type, default=value" of the docstring (the dissertation's settings for
    # the GA parameters) is the constructor's default, and every parameter is documented.
    import ast
    import re

    documented = {
        name: ast.literal_eval(value)
        for name, value in re.findall(
            r"^    (\w+) : .*?default=(.+)$", GeneticSelector.__doc__, re.M
        )
    }
    assert GeneticSelector().get_params() == documented


def test_verbose_logs_each_generation(caplog):
    X, y = ties_data(0)
    kw = dict(population_size=6, n_generations=3, evaluator=KNNEvaluator(3), random_state=0)
    with caplog.at_level(logging.INFO, logger="widefs.search"):
        sel = GeneticSelector(verbose=1, **kw).fit(X, y)
    lines = [r.getMessage() for r in caplog.records if r.getMessage().startswith("generation")]
    assert lines == [
        f"generation {h['generation']}: best {h['best_score']:.4f} ({h['best_n_features']} features)"
        for h in sel.history_[1:]
    ]
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="widefs.search"):
        GeneticSelector(verbose=0, **kw).fit(X, y)
    assert not [r for r in caplog.records if r.getMessage().startswith("generation")]


def test_generation_of_empty_subsets_is_recorded_silently():
    # One feature and every bit flipped: generation 1 holds only empty subsets (fitness
    # minus infinity); its mean score is NaN, computed without a warning, and the best
    # subset stays the one-feature subset of generation 0.
    import warnings

    rng = np.random.default_rng(2)
    y = rng.integers(0, 2, 20)
    X = (rng.integers(0, 3, 20) + y).astype(float)[:, None]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sel = GeneticSelector(
            population_size=4,
            n_generations=1,
            crossover_rate=0.0,
            mutation_rate=1.0,
            elitism=0.0,
            random_state=0,
            evaluator=KNNEvaluator(3),
        ).fit(X, y)
    last = sel.history_[1]
    assert last["best_score"] == -np.inf and last["best_n_features"] == 0
    assert np.isnan(last["mean_score"])
    assert sel.support_.tolist() == [True] and sel.score_ == sel.history_[0]["best_score"]


@pytest.mark.parametrize(
    ("fractions", "ok"),
    [((1.0,), True), ((0.5,), True), ((0.2, 1.0), True), ((1.5,), False), ((), False)],
)
def test_initial_fractions_in_half_open_unit_interval(fractions, ok):
    X, y = data()
    sel = GeneticSelector(
        population_size=4, n_generations=0, initial_fractions=fractions, random_state=0
    )
    if ok:
        sel.fit(X, y)
        expected = [max(1, round(fractions[i * len(fractions) // 4] * 25)) for i in range(4)]
        assert sel.population_.sum(axis=1).tolist() == expected
    else:
        message = (
            f"initial_fractions must be a non-empty list of fractions in (0, 1]; got {fractions!r}."
        )
        with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
            sel.fit(X, y)
