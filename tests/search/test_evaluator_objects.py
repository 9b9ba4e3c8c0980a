"""The evaluator objects: same results as the selectors' old per-setting parameters, the
scikit-learn parameter protocol (clone, nested set_params, GridSearchCV) and the engines
and models they build."""

import inspect
import json
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, cross_val_predict, cross_val_score
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import Pipeline
from sklearn.utils._param_validation import InvalidParameterError

from widefs.datasets import load_dataset
from widefs.ensemble import ClassSpecificEnsemble
from widefs.search import (
    ClassifierEvaluator,
    GeneticSelector,
    KNNEvaluator,
    KNNLeaveOneOut,
    KNNModel,
    NaiveBayesEvaluator,
    NaiveBayesLeaveOneOut,
    NaiveBayesModel,
    SequentialSelector,
)

OLD = json.loads((Path(__file__).parent / "data" / "old_api_results.json").read_text())["cases"]


def _data(name):
    """The bundled data of a recorded case, prepared as when it was recorded."""
    if name == "breast_cancer_ljubljana":
        bunch = load_dataset(name)
        return bunch.data, np.asarray(bunch.target)
    X, y = load_dataset("colon" if name == "colon200" else name, return_X_y=True)
    X = X[:, :200] if name == "colon200" else X
    return X / np.abs(X).max(axis=0), np.asarray(y)


def _new_style(kind, params):
    """The selector with the recorded old-style settings moved into an evaluator object."""
    p = dict(params)
    estimator = p.pop("estimator", "knn")
    shared = {
        k: p.pop(k) for k in ("target_class", "class_criterion", "categorical_features") if k in p
    }
    if estimator == "knn":
        own = {k: p.pop(k) for k in ("n_neighbors", "k_grid") if k in p}
        evaluator = KNNEvaluator(**own, **shared)
    elif estimator == "naive_bayes":
        own = {k: p.pop(k) for k in ("var_smoothing", "alpha") if k in p}
        evaluator = NaiveBayesEvaluator(**own, **shared)
    else:
        assert estimator == "knn3"
        evaluator = ClassifierEvaluator(KNeighborsClassifier(3), cv=p.pop("cv"), **shared)
    cls = SequentialSelector if kind.startswith("seq") else GeneticSelector
    return cls(**p, evaluator=evaluator)


def _case_data(case):
    X, y = _data(case["data"])
    if case["kind"] == "seq_cols30":
        X = X[:, :30]
    if case["kind"] == "seq_codes":  # nominal columns given as category codes
        codes = [np.unique(X[:, j].astype(str), return_inverse=True)[1] for j in range(X.shape[1])]
        X = np.column_stack(codes).astype(float)
    return X, y


@pytest.mark.parametrize("name", [n for n, c in OLD.items() if "kind" in c])
def test_same_results_as_the_old_per_setting_parameters(name):
    """Every recorded old-style fit (kNN with fixed and chosen k, naive Bayes, a
    scikit-learn classifier, class criteria, nominal columns, SFS/SBS/GA) on bundled data:
    the same subset, scores, k and history, and the same permutation scores."""
    case = OLD[name]
    X, y = _case_data(case)
    sel = _new_style(case["kind"], case["params"]).fit(X, y)
    assert np.flatnonzero(sel.support_).tolist() == case["support"]
    assert sel.score_ == case["score"] and sel.search_score_ == case["search_score"]
    assert sel.n_neighbors_ == case["n_neighbors"]
    k_scores = None if sel.k_scores_ is None else {str(k): v for k, v in sel.k_scores_.items()}
    assert k_scores == case["k_scores"]
    history = [{k: None if v is None else float(v) for k, v in h.items()} for h in sel.history_]
    assert history == case["history"]
    if "population" in case:
        assert [np.flatnonzero(r).tolist() for r in sel.population_] == case["population"]
        assert sel.fitness_.tolist() == case["fitness"]
        assert sel.n_evaluations_ == case["n_evaluations"]
    if "permutations" in case:
        perms = np.array(case["permutations"])
        scores = _new_style(case["kind"], case["params"]).permutation_search_scores(X, y, perms)
        assert scores.tolist() == case["permutation_scores"]


CEFS_TEMPLATES = {
    "cefs_sfs": (SequentialSelector(n_features=2, evaluator=KNNEvaluator(3)), {}),
    "cefs_sfs_auto": (SequentialSelector(n_features=2), {}),
    "cefs_ga": (GeneticSelector(population_size=6, n_generations=3), {}),
    "cefs_nb_balanced": (
        SequentialSelector(n_features=2, evaluator=NaiveBayesEvaluator()),
        {"member_criterion": "balanced"},
    ),
}


@pytest.mark.parametrize("name", sorted(CEFS_TEMPLATES))
def test_cefs_same_results_as_the_old_per_setting_parameters(name):
    case = OLD[name]
    X, y = _data(case["data"])
    template, kw = CEFS_TEMPLATES[name]
    ens = ClassSpecificEnsemble(template, random_state=0, **kw).fit(X, y)
    got = {str(c): np.flatnonzero(s).tolist() for c, s in ens.class_supports_.items()}
    assert got == case["class_supports"]
    assert np.flatnonzero(ens.overall_support_).tolist() == case["overall_support"]
    assert {str(c): s for c, s in ens.member_scores_.items()} == case["member_scores"]
    assert {str(c): s.n_neighbors_ for c, s in ens.class_selectors_.items()} == case["member_k"]
    assert ens.search_score_ == case["search_score"]
    assert ens.predict(X).tolist() == case["predict"]


def test_selectors_take_at_most_nine_parameters():
    for cls in (SequentialSelector, GeneticSelector):
        params = inspect.signature(cls).parameters
        assert len(params) <= 9 and "evaluator" in params, cls.__name__


def test_clone_and_nested_params_reach_the_evaluator():
    """``evaluator__k`` style parameters: get_params lists them, set_params changes the
    selector's own copy, clone copies the evaluator (a fit never modifies it)."""
    evaluator = KNNEvaluator(3, target_class="a")
    sel = SequentialSelector(n_features=1, evaluator=evaluator)
    params = sel.get_params()
    assert params["evaluator__n_neighbors"] == 3 and params["evaluator__target_class"] == "a"
    sel.set_params(evaluator__n_neighbors=5)
    assert evaluator.n_neighbors == 5  # set_params acts on the object the selector holds
    copy = clone(sel)
    assert copy.evaluator is not evaluator and copy.evaluator.get_params() == evaluator.get_params()
    X = np.random.default_rng(0).normal(size=(20, 4))
    y = np.array(["a", "b"] * 10)
    sel = SequentialSelector(n_features=1, evaluator=KNNEvaluator()).fit(X, y)
    assert sel.evaluator.n_neighbors == "auto"  # the chosen k lives in evaluator_
    assert sel.evaluator_.n_neighbors == sel.n_neighbors_ and sel.evaluator_ is not sel.evaluator


def test_grid_search_over_evaluator_settings_and_kinds():
    """GridSearchCV over ``sel__evaluator__n_neighbors`` and over evaluator objects: the
    best parameters are those whose separately fitted pipelines score best."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 6))
    y = (X[:, 1] + 0.3 * rng.normal(size=40) > 0).astype(int)
    pipe = Pipeline([("sel", SequentialSelector(n_features=1)), ("clf", KNeighborsClassifier(3))])
    grid = GridSearchCV(
        pipe, {"sel__evaluator": [KNNEvaluator(1)], "sel__evaluator__n_neighbors": [1, 7]}, cv=3
    )
    grid.fit(X, y)
    by_hand = {}
    for k in (1, 7):
        p = clone(pipe).set_params(sel__evaluator=KNNEvaluator(k))
        by_hand[k] = cross_val_score(p, X, y, cv=3).mean()
    best = max(by_hand, key=lambda k: (by_hand[k], -k))
    assert grid.best_params_["sel__evaluator__n_neighbors"] == best
    kinds = GridSearchCV(
        pipe, {"sel__evaluator": [KNNEvaluator(3), NaiveBayesEvaluator()]}, cv=3
    ).fit(X, y)
    assert len(kinds.cv_results_["params"]) == 2


def test_invalid_evaluator_settings_are_named():
    X = np.random.default_rng(0).normal(size=(12, 3))
    y = np.array([0, 1] * 6)
    with pytest.raises(InvalidParameterError, match="'n_neighbors' parameter of KNNEvaluator"):
        SequentialSelector(evaluator=KNNEvaluator(0)).fit(X, y)
    with pytest.raises(InvalidParameterError, match="'alpha' parameter of NaiveBayesEvaluator"):
        GeneticSelector(evaluator=NaiveBayesEvaluator(alpha=0.0)).fit(X, y)
    with pytest.raises(InvalidParameterError, match="'evaluator' parameter"):
        SequentialSelector(evaluator="knn").fit(X, y)
    with pytest.raises(
        ValueError, match=r"^target_class='z' is not one of the classes \[0, 1\]\.$"
    ):
        SequentialSelector(evaluator=NaiveBayesEvaluator(target_class="z")).fit(X, y)
    with pytest.raises(ValueError, match="n_neighbors='auto' is chosen by a search"):
        KNNEvaluator().fit_model(X, y, n_classes=2, support=np.ones(3, bool))


@pytest.mark.parametrize("with_encoding", [False, True])
def test_evaluators_pass_every_setting_through(with_encoding, brute, gaussian_queries):
    """fit_model / leave_one_out of each evaluator equal the engines and models built by
    hand with its settings (k, var_smoothing, alpha, cv), with and without an encoding;
    other settings give other predictions (so each comparison can fail)."""
    X, y, Q = gaussian_queries(2)
    support = np.array([True, False, True, True])
    nominal, enc = np.zeros(4, dtype=bool), None
    if with_encoding:
        X, Q = X.copy(), Q.copy()
        X[:, 1] = np.arange(36) % 3
        Q[:, 1] = np.arange(Q.shape[0]) % 3
        nominal = np.array([False, True, False, False])
        enc = SimpleNamespace(nominal=nominal, n_categories=np.array([0, 3, 0, 0]))
        support = np.array([True, True, False, True])
    cols = np.flatnonzero(support)
    n_cat = np.zeros(4, np.int64) if enc is None else enc.n_categories
    rows = np.array([0, 5, 13, 20, 35])
    data = {"n_classes": 3, "encoding": enc}

    knn = KNNEvaluator(5)
    got = knn.fit_model(X, y, support=support, **data).predict_codes(Q)
    np.testing.assert_array_equal(got, KNNModel(X, y, 3, nominal, cols, 5).predict_codes(Q))
    assert np.any(got != KNNModel(X, y, 3, nominal, cols, 1).predict_codes(Q))
    engine = knn.leave_one_out(X, y, rows=rows, **data)
    assert isinstance(engine, KNNLeaveOneOut) and engine.n_neighbors == 5
    np.testing.assert_array_equal(engine.rows, rows)
    np.testing.assert_array_equal(
        engine.predict_subset(support), brute.knn_loo(X, y, nominal, cols, 5, rows)
    )
    np.testing.assert_array_equal(knn.leave_one_out(X, y, **data).rows, range(36))

    nb = NaiveBayesEvaluator(var_smoothing=0.4, alpha=3.0)
    model = nb.fit_model(X, y, support=support, **data)
    ref = NaiveBayesModel(X, y, 3, nominal, n_cat, cols, 0.4, 3.0)
    np.testing.assert_array_equal(model.predict_codes(Q), ref.predict_codes(Q))
    assert model.stats.alpha == 3.0 and model.stats.epsilon == ref.stats.epsilon
    default = NaiveBayesModel(X, y, 3, nominal, n_cat, cols).predict_codes(Q)
    assert np.any(model.predict_codes(Q) != default)
    engine = nb.leave_one_out(X, y, rows=rows, **data)
    ref = NaiveBayesLeaveOneOut(X, y, 3, nominal, n_cat, rows, 0.4, 3.0)
    np.testing.assert_array_equal(engine.predict_subset(support), ref.predict_subset(support))
    assert engine.stats.epsilon == ref.stats.epsilon and engine.stats.alpha == 3.0

    classifier = KNeighborsClassifier(3)
    ev = ClassifierEvaluator(classifier, cv=3)
    model = ev.fit_model(X, y, support=support, **data)
    assert model.estimator is not classifier  # a clone
    expected = KNeighborsClassifier(3).fit(X[:, cols], y).predict(Q[:, cols])
    np.testing.assert_array_equal(model.predict_codes(Q), expected)
    engine = ev.leave_one_out(X, y, rows=rows, **data)
    expected = cross_val_predict(KNeighborsClassifier(3), X[:, cols], y, cv=3)[rows]
    np.testing.assert_array_equal(engine.predict_subset(support), expected)


def test_n_jobs_of_the_evaluator_changes_nothing():
    """Threads for candidates (SFS) and individuals (GA) come from the evaluator."""
    X, y = _data("wine")
    for make in (
        lambda j: SequentialSelector(n_features=3, evaluator=KNNEvaluator(3, n_jobs=j)),
        lambda j: GeneticSelector(
            population_size=6, n_generations=2, evaluator=KNNEvaluator(n_jobs=j), random_state=0
        ),
    ):
        serial, threaded = make(None).fit(X, y), make(2).fit(X, y)
        np.testing.assert_array_equal(serial.support_, threaded.support_)
        assert serial.history_ == threaded.history_
