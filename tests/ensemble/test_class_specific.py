from collections import Counter

import numpy as np
import pandas as pd
import pytest
from sklearn.model_selection import GridSearchCV, StratifiedKFold
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import MaxAbsScaler

from widefs.ensemble import ClassSpecificEnsemble, subset_inclusiveness
from widefs.search import ClassifierEvaluator, GeneticSelector, KNNEvaluator, SequentialSelector


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
