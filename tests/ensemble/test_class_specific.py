from collections import Counter

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, StratifiedKFold
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import MaxAbsScaler
from sklearn.tree import DecisionTreeClassifier

from widefs._utils import encode_fit
from widefs.datasets import load_dataset
from widefs.ensemble import ClassSpecificEnsemble, subset_inclusiveness
from widefs.search import (
    ClassifierEvaluator,
    GeneticSelector,
    KNNEvaluator,
    NaiveBayesEvaluator,
    SequentialSelector,
)


def knn_predict(Xtr, ytr, Xte, cols, k):
    """kNN by hand: distance ties to the lower index, vote ties to the nearest tied class."""
    out = []
    for x in Xte:
        d = ((Xtr[:, cols] - x[cols]) ** 2).sum(axis=1)
        order = sorted(range(len(ytr)), key=lambda j: (d[j], j))[:k]
        votes = Counter(ytr[j] for j in order)
        top = max(votes.values())
        out.append(next(ytr[j] for j in order if votes[ytr[j]] == top))
    return np.array(out)


def knn_loo(X, y, cols, k):
    n = len(y)
    return np.array(
        [
            knn_predict(X[np.arange(n) != i], y[np.arange(n) != i], X[[i]], cols, k)[0]
            for i in range(n)
        ]
    )


def three_class(seed=0, n=45, p=8):
    rng = np.random.default_rng(seed)
    y = np.repeat(np.array(["a", "b", "c"]), n // 3)
    X = rng.integers(0, 4, size=(n, p)).astype(float)
    X[y == "a", 0] += 2
    X[y == "b", 2] += 2
    X[y == "c", 5] -= 2
    perm = rng.permutation(n)
    return X[perm], y[perm]


@pytest.mark.parametrize("combiner", ["unanimous", "specialist"])
def test_prediction_rule_by_hand(combiner):
    X, y = three_class()
    Xte, _ = three_class(seed=1)
    cefs = ClassSpecificEnsemble(
        SequentialSelector(n_features=2, evaluator=KNNEvaluator(3)), combiner=combiner
    ).fit(X, y)
    members = np.column_stack(
        [knn_predict(X, y, Xte, np.flatnonzero(cefs.class_supports_[c]), 3) for c in "abc"]
    )
    np.testing.assert_array_equal(cefs.predict_members(Xte), members)
    overall = knn_predict(X, y, Xte, np.flatnonzero(cefs.overall_support_), 3)
    expected = []
    for row, fallback in zip(members, overall):
        if combiner == "unanimous":
            expected.append(row[0] if len(set(row)) == 1 else fallback)
        else:
            claims = [c for c, pred in zip("abc", row) if pred == c]
            expected.append(claims[0] if len(claims) == 1 else fallback)
    np.testing.assert_array_equal(cefs.predict(Xte), expected)
    decided = cefs.decided_by_members(Xte)
    assert 0 < decided.sum() < len(Xte)  # both branches are exercised
    np.testing.assert_array_equal(cefs.predict(Xte)[~decided], overall[~decided])
    np.testing.assert_array_equal(cefs.predict_overall(Xte), overall)


def test_subsets_are_those_of_independent_searches():
    X, y = three_class(2)
    cefs = ClassSpecificEnsemble(SequentialSelector("backward")).fit(X, y)
    for c in "abc":
        sel = SequentialSelector(
            "backward", evaluator=KNNEvaluator(k_grid=range(1, 11), target_class=c)
        ).fit(X, y)
        np.testing.assert_array_equal(cefs.class_supports_[c], sel.support_)
        assert cefs.class_selectors_[c].n_neighbors_ <= 10
        assert cefs.member_scores_[c] == sel.score_
    overall = SequentialSelector("backward").fit(X, y)
    np.testing.assert_array_equal(cefs.overall_support_, overall.support_)
    assert cefs.class_subsets_["a"].tolist() == [
        f"x{i}" for i in np.flatnonzero(cefs.class_supports_["a"])
    ]


def test_agreement_rate_from_leave_one_out_members():
    X, y = three_class(3)
    cefs = ClassSpecificEnsemble(SequentialSelector(n_features=2, evaluator=KNNEvaluator(5))).fit(
        X, y
    )
    loo = np.column_stack(
        [knn_loo(X, y, np.flatnonzero(cefs.class_supports_[c]), 5) for c in "abc"]
    )
    agree = np.all(loo == loo[:, :1], axis=1)
    assert cefs.agreement_rate_ == agree.mean()


def recaller_data():
    # Column 0 is constant: every distance ties, neighbours are the lowest-index rows,
    # which are all class "a". A member scored by recall of "a" loves it (recall 1: a
    # "recaller" that predicts "a" for everything); column 1 really separates the classes.
    rng = np.random.default_rng(0)
    y = np.repeat(np.array(["a", "b"]), 20)
    X = np.column_stack([np.zeros(40), np.where(y == "a", 0.0, 3.0) + rng.normal(0, 1.2, 40)])
    return X, y


def test_balanced_criterion_avoids_recallers():
    X, y = recaller_data()
    sel = SequentialSelector(n_features=1, evaluator=KNNEvaluator(3))
    paper = ClassSpecificEnsemble(sel).fit(X, y)
    assert paper.class_supports_["a"].tolist() == [True, False]
    assert paper.member_scores_["a"] == 1.0
    assert np.all(paper.predict_members(X)[:, 0] == "a")  # the recaller
    balanced = ClassSpecificEnsemble(sel, member_criterion="balanced").fit(X, y)
    assert balanced.class_supports_["a"].tolist() == [False, True]
    assert balanced.member_scores_["a"] > 0.75
    # Balanced score of the recaller column is exactly 1/2 (recall 1, specificity 0).
    recaller = SequentialSelector(
        evaluator=KNNEvaluator(3, target_class="a", class_criterion="balanced")
    )
    recaller.fit(X[:, [0]], y)
    assert recaller.score_ == 0.5


def test_specialist_combiner_ignores_a_recaller_alone():
    X, y = recaller_data()
    cefs = ClassSpecificEnsemble(
        SequentialSelector(n_features=1, evaluator=KNNEvaluator(3)), combiner="specialist"
    ).fit(X, y)
    members = cefs.predict_members(X)
    # Member "a" claims everything; wherever member "b" also claims, the overall model decides.
    both = (members[:, 0] == "a") & (members[:, 1] == "b")
    assert both.any()
    assert not cefs.decided_by_members(X)[both].any()


def test_pipeline_and_grid_search():
    X, y = three_class(4)
    pipe = Pipeline(
        [
            ("scale", MaxAbsScaler()),
            ("cefs", ClassSpecificEnsemble(SequentialSelector(n_features=1))),
        ]
    )
    grid = GridSearchCV(
        pipe,
        {"cefs__selector__n_features": [1, 2], "cefs__combiner": ["unanimous", "specialist"]},
        cv=StratifiedKFold(3),
    ).fit(X, y)
    assert set(grid.best_params_) == {"cefs__selector__n_features", "cefs__combiner"}
    best = grid.best_estimator_.named_steps["cefs"]
    refit = ClassSpecificEnsemble(
        SequentialSelector(n_features=grid.best_params_["cefs__selector__n_features"]),
        combiner=grid.best_params_["cefs__combiner"],
    ).fit(MaxAbsScaler().fit_transform(X), y)
    assert {c: s.tolist() for c, s in best.class_subsets_.items()} == {
        c: s.tolist() for c, s in refit.class_subsets_.items()
    }


def test_pandas_names_nominal_and_inclusiveness():
    rng = np.random.default_rng(5)
    n = 60
    y = rng.choice(["x", "y"], n)
    df = pd.DataFrame(
        {
            "vote": np.where(rng.random(n) < 0.8, np.where(y == "x", "yes", "no"), "?"),
            "age": rng.normal(size=n) + (y == "y"),
            "noise": rng.normal(size=n),
        }
    )
    cefs = ClassSpecificEnsemble(SequentialSelector(n_features=2, evaluator=KNNEvaluator(3))).fit(
        df, y
    )
    assert set(cefs.class_subsets_) == {"x", "y"}
    assert all(set(s) <= {"vote", "age", "noise"} for s in cefs.class_subsets_.values())
    assert cefs.overall_selector_.categorical_features_.tolist() == [True, False, False]
    r = cefs.inclusiveness()
    assert r == subset_inclusiveness(
        {c: list(s) for c, s in cefs.class_subsets_.items()}, list(cefs.overall_subset_)
    )
    assert set(cefs.predict(df)) <= {"x", "y"}


def test_genetic_members_seeded_and_n_jobs_invariant():
    X, y = three_class(6, n=30)
    kw = dict(selector=GeneticSelector(population_size=6, n_generations=3), random_state=2)
    a = ClassSpecificEnsemble(n_jobs=1, **kw).fit(X, y)
    b = ClassSpecificEnsemble(n_jobs=3, **kw).fit(X, y)
    for c in "abc":
        np.testing.assert_array_equal(a.class_supports_[c], b.class_supports_[c])
        assert a.class_selectors_[c].history_ == b.class_selectors_[c].history_
    seeds = {a.class_selectors_[c].random_state for c in "abc"} | {a.overall_selector_.random_state}
    assert len(seeds) == 4  # one independent seed per search


def test_sklearn_estimator_members():
    X, y = three_class(7, n=30)
    cefs = ClassSpecificEnsemble(
        SequentialSelector(
            n_features=1, evaluator=ClassifierEvaluator(KNeighborsClassifier(3), cv=3)
        )
    ).fit(X, y)
    for c in "abc":
        cols = np.flatnonzero(cefs.class_supports_[c])
        ref = KNeighborsClassifier(3).fit(X[:, cols], y).predict(X[:, cols])
        np.testing.assert_array_equal(cefs.predict_members(X)[:, "abc".index(c)], ref)


def test_rejects_foreign_selector():
    from sklearn.feature_selection import SelectKBest

    X, y = three_class()
    with pytest.raises(TypeError, match=r"selector must be a widefs\.search"):
        ClassSpecificEnsemble(SelectKBest(k=2)).fit(X, y)


def _fitted_selector_state(sel):
    """Every fitted attribute of a member search (arrays as lists)."""
    out = {}
    for name, value in vars(sel).items():
        if name.endswith("_") and not name.startswith("_"):
            out[name] = repr(value.get_params() if hasattr(value, "get_params") else value)
    return out


def wide_nominal_frame(seed):
    # Numeric columns, a nominal column with missing values and one with 13 categories
    # (a search re-reads category codes as texts: their order changes from 11 on).
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(36, 12))
    frame = pd.DataFrame(X, columns=[f"g{j}" for j in range(12)])
    frame["colour"] = pd.Series(rng.choice(["r", "g", None], 36), dtype=object)
    frame["many"] = pd.Series(rng.choice([f"v{i}" for i in range(13)], 36), dtype=object)
    y = np.where(X[:, 0] + (frame["colour"] == "r") > 0.4, "p", "q")
    # Some rows' class follows "many": a tree splits its codes, which their order changes.
    many = frame["many"].isin(["v0", "v3", "v10", "v12", "v5"]).to_numpy()
    y[:18] = np.where(many[:18], "p", "q")
    return frame, y


@pytest.mark.parametrize(
    "selector",
    [
        None,
        SequentialSelector(evaluator=NaiveBayesEvaluator()),
        SequentialSelector(
            n_features=2, evaluator=ClassifierEvaluator(DecisionTreeClassifier(random_state=0))
        ),
    ],
)
def test_member_searches_fitted_as_by_their_own_fit(selector):
    # The ensemble encodes the data once for its searches; each member search must be
    # fitted exactly as its own fit on the ensemble's encoded data fits it.
    X, y = wide_nominal_frame(0)
    cefs = ClassSpecificEnsemble(selector, member_criterion="balanced").fit(X, y)
    Xe, y_checked, _ = encode_fit(clone(cefs), X, y, "from_dtype", missing="category")
    for label, sel in [*cefs.class_selectors_.items(), (None, cefs.overall_selector_)]:
        own = clone(sel).fit(Xe, y_checked)
        assert _fitted_selector_state(own) == _fitted_selector_state(sel), label


@pytest.mark.parametrize("data", ["numeric", "nominal"])
@pytest.mark.parametrize("n_jobs", [None, 2])
def test_permutation_search_scores_equal_plain_refits(data, n_jobs):
    if data == "numeric":
        X, y = three_class(4)
        est = ClassSpecificEnsemble(random_state=0)
    else:
        X, y = wide_nominal_frame(1)
        genetic = GeneticSelector(population_size=8, n_generations=3)
        est = ClassSpecificEnsemble(genetic, random_state=2)
    perms = np.array([np.random.default_rng(i).permutation(len(y)) for i in range(6)])
    perms[0] = np.arange(len(y))  # the real labelling among them
    batched = est.permutation_search_scores(X, y, perms, n_jobs=n_jobs)
    plain = [clone(est).fit(X, y[p]).search_score_ for p in perms]
    np.testing.assert_array_equal(batched, plain)
    assert len(set(plain)) > 1  # the relabellings differ


def test_permutation_search_scores_on_colon_columns():
    # Colon's rows with a few hundred genes: the certificate's refits, shared work and all.
    X, y = load_dataset("colon", return_X_y=True)
    X = X[:, :300]
    perms = np.array([np.random.default_rng(i).permutation(len(y)) for i in range(4)])
    est = ClassSpecificEnsemble(random_state=0)
    batched = est.permutation_search_scores(X, y, perms)
    np.testing.assert_array_equal(batched, [clone(est).fit(X, y[p]).search_score_ for p in perms])
