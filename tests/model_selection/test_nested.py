"""Nested evaluation: correctness of its bookkeeping and the random-label pitfall."""

import numpy as np
import pytest
from scipy import stats
from sklearn.feature_selection import SelectKBest, f_classif
from sklearn.model_selection import GridSearchCV, StratifiedKFold, cross_val_score
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline
from sklearn.svm import LinearSVC

from widefs.ensemble import ClassSpecificEnsemble
from widefs.model_selection import (
    PriorFallbackClassifier,
    nested_evaluate,
    selected_feature_mask,
    selection_stability,
)
from widefs.rules import CN2Classifier
from widefs.scm import PACBayesSCM, SampleCompressionSCM
from widefs.univariate import DiscriminativeSelector


@pytest.fixture(scope="module")
def noise():
    """Pure noise, 60 x 5000, balanced random labels."""
    rng = np.random.default_rng(2026)
    X = rng.normal(size=(60, 5000))
    y = rng.permutation(np.repeat([0, 1], 30))
    return X, y


def chance_band(n, level=0.999):
    """Accuracy band of a classifier guessing on n balanced examples."""
    lo, hi = stats.binom.interval(level, n, 0.5)
    return lo / n, hi / n


WIDEFS_PIPELINES = {
    "mgm + naive Bayes": make_pipeline(DiscriminativeSelector("mgm", random_state=0), GaussianNB()),
    # On noise E[X(1)] often keeps nothing: the fallback then predicts the training prior.
    "E[X(1)] + naive Bayes": make_pipeline(
        DiscriminativeSelector("max_chance", random_state=0), PriorFallbackClassifier(GaussianNB())
    ),
    "10 best stumps + naive Bayes": make_pipeline(
        DiscriminativeSelector(10, scorer="stump", random_state=0), GaussianNB()
    ),
    "PAC-Bayes SCM": PACBayesSCM(),
    "sample-compression SCM": SampleCompressionSCM(),
    "CN2-POE rules": CN2Classifier(stopping="poe"),
    "CEFS ensemble": ClassSpecificEnsemble(random_state=0),
}


@pytest.mark.parametrize("name", list(WIDEFS_PIPELINES))
@pytest.mark.filterwarnings("ignore:No feature")
@pytest.mark.filterwarnings("ignore::widefs.exceptions.HeuristicBoundWarning")
def test_random_labels_give_chance_accuracy(noise, name):
    X, y = noise
    res = nested_evaluate(WIDEFS_PIPELINES[name], X, y, cv=5, n_repeats=2, random_state=0)
    lo, hi = chance_band(60)
    assert lo <= res["pooled_accuracy"] <= hi, res["pooled_accuracy"]
    assert res["ci"][0] <= 0.5 + 0.2


def test_selecting_on_all_data_first_is_the_pitfall(noise):
    """The counter-example: select features on all 60 examples, then cross-validate."""
    X, y = noise
    leaky = SelectKBest(f_classif, k=20).fit(X, y)
    naive = cross_val_score(
        GaussianNB(), leaky.transform(X), y, cv=StratifiedKFold(5, shuffle=True, random_state=0)
    )
    honest = nested_evaluate(
        make_pipeline(SelectKBest(f_classif, k=20), GaussianNB()), X, y, cv=5, random_state=0
    )
    lo, hi = chance_band(60)
    assert naive.mean() > 0.85  # measured: ~0.95 on pure noise
    assert lo <= honest["pooled_accuracy"] <= hi


def test_folds_predictions_and_interval_bookkeeping():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(50, 40))
    y = np.repeat([0, 1], 25)
    X[:, :3] += 1.5 * y[:, None]
    model = make_pipeline(SelectKBest(f_classif, k=3), GaussianNB())
    res = nested_evaluate(model, X, y, cv=5, n_repeats=3, random_state=0)
    assert res["test_score"].shape == (15,) and res["predictions"].shape == (3, 50)
    # Each fold's score is the accuracy of the predictions stored for its test fold.
    for (_, te), score, k in zip(res["splits"], res["test_score"], range(15), strict=True):
        assert score == pytest.approx(np.mean(res["predictions"][k // 5, te] == y[te]))
    lo, hi = res["ci"]
    assert lo < res["mean"] < hi
    # Nadeau-Bengio: wider than the naive t interval.
    naive_half = stats.t.ppf(0.975, 14) * res["std"] / np.sqrt(15)
    assert hi - lo > 2 * naive_half
    np.testing.assert_array_equal(res["n_selected"], np.full(15, 3))
    assert res["selection_frequency"][:3].min() == 1.0
    # Same result for any n_jobs (threads: the same chunking without process start-up).
    from joblib import parallel_config

    with parallel_config(backend="threading"):
        res2 = nested_evaluate(model, X, y, cv=5, n_repeats=3, random_state=0, n_jobs=2)
    np.testing.assert_array_equal(res["test_score"], res2["test_score"])


def test_inner_cv_reaches_the_search():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(40, 30))
    y = np.repeat([0, 1], 20)
    X[:, 0] += 2 * y
    search = GridSearchCV(
        make_pipeline(SelectKBest(f_classif), LinearSVC()), {"selectkbest__k": [1, 5]}
    )
    res = nested_evaluate(search, X, y, cv=4, inner_cv=3, random_state=0)
    assert res["mean"] > 0.8
    assert all(idx is not None and 0 in idx for idx in res["selected_features"])


def test_selected_feature_mask_composes_pipeline_selectors():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(30, 10))
    y = np.repeat([0, 1], 15)
    X[:, 7] += 3 * y
    pipe = make_pipeline(
        SelectKBest(f_classif, k=5), SelectKBest(f_classif, k=1), GaussianNB()
    ).fit(X, y)
    mask = selected_feature_mask(pipe, 10)
    assert mask.sum() == 1 and mask[7]


def test_stability_index_reference_values():
    same = np.array([[1, 0, 1, 0]] * 4, bool)
    assert selection_stability(same) == 1.0
    # Two disjoint halves: p_f = 1/2 for every feature, k = 2 of d = 4 -> 1 - (4/3 * 1/4) / (1/4).
    disjoint = np.array([[1, 1, 0, 0], [0, 0, 1, 1]] * 2, bool)
    assert selection_stability(disjoint) == pytest.approx(1 - (4 / 3) * 0.25 / 0.25)
    rng = np.random.default_rng(0)
    random_masks = np.array(
        [rng.permutation(np.r_[np.ones(10), np.zeros(90)]) for _ in range(200)], bool
    )
    assert abs(selection_stability(random_masks)) < 0.05


def test_selected_feature_mask_of_rules_and_ensembles():
    from widefs.ensemble import ClassSpecificEnsemble
    from widefs.rules import CN2Classifier

    rng = np.random.default_rng(4)
    X = rng.normal(size=(40, 12))
    y = np.repeat([0, 1], 20)
    X[:, 3] += 3 * y
    cn2 = CN2Classifier().fit(X, y)
    tested = {c.feature for r in cn2.rules_ for c in r.conditions}
    assert set(np.flatnonzero(selected_feature_mask(cn2, 12))) == tested and 3 in tested
    assert set(cn2.get_support(indices=True).tolist()) == tested
    cefs = ClassSpecificEnsemble(random_state=0).fit(X, y)
    mask = selected_feature_mask(cefs, 12)
    union = cefs.overall_support_.copy()
    for support in cefs.class_supports_.values():
        union |= support
    np.testing.assert_array_equal(mask, union)
    assert 0 < union.sum() < 12
    np.testing.assert_array_equal(cefs.get_support(indices=True), np.flatnonzero(union))


def test_selected_feature_mask_asks_get_support_only():
    class Probe:
        """Every private convention the old probing chain used, but no get_support."""

        selected_features_ = np.array([1])
        support_ = np.array([True, False, False])
        feature_importances_ = np.array([0.0, 1.0, 0.0])
        coef_ = np.array([[0.0, 0.0, 2.0]])
        rules_ = ()
        class_supports_ = {0: np.array([True, False, False])}
        overall_support_ = np.array([False, False, True])

    assert selected_feature_mask(Probe(), 3) is None

    class Answers(Probe):
        def get_support(self, indices=False):
            return np.array([False, True, True])

    assert selected_feature_mask(Answers(), 3).tolist() == [False, True, True]
    # Inside a pipeline, a step without get_support passes every feature on.
    rng = np.random.default_rng(5)
    X = rng.normal(size=(30, 6))
    y = np.repeat([0, 1], 15)
    X[:, 4] += 3 * y
    pipe = make_pipeline(SelectKBest(f_classif, k=2), LinearSVC()).fit(X, y)
    np.testing.assert_array_equal(selected_feature_mask(pipe, 6), pipe[0].get_support())


def test_selected_feature_mask_of_set_covering_machines():
    rng = np.random.default_rng(6)
    X = rng.normal(size=(40, 10))
    y = np.repeat([0, 1], 20)
    X[:, 2] += 3 * y
    X[:, 7] -= 2 * y
    ranges = (X.min(axis=0), X.max(axis=0))
    for scm in (SampleCompressionSCM(), PACBayesSCM(feature_range=ranges)):
        scm.fit(X, y)
        used = {int(r.feature) for r in scm.rules_}
        assert used and set(np.flatnonzero(selected_feature_mask(scm, 10))) == used


@pytest.mark.parametrize(
    ("y", "shown"),
    [(["a"] * 20, "'a'"), (np.ones(20, int), "1"), (np.array(["x"] * 20, dtype=object), "'x'")],
)
def test_a_single_class_is_refused_not_scored_100_percent(y, shown):
    X = np.random.default_rng(0).normal(size=(20, 4))
    with pytest.raises(ValueError, match=rf"y has a single class \({shown} for all 20 examples\)"):
        nested_evaluate(GaussianNB(), X, y, cv=2, random_state=0)


@pytest.mark.parametrize("shape", [(2, 7), (10, 300), (3, 1)])
def test_stability_of_boolean_masks_equals_the_float_formula_bit_for_bit(shape):
    rng = np.random.default_rng(shape[1])
    masks = rng.random(shape) < 0.3
    Z = masks.astype(float)  # the formula on a float copy, as written in the docstring
    M, d = Z.shape
    p = Z.mean(axis=0)
    kbar = Z.sum(axis=1).mean()
    denom = (kbar / d) * (1 - kbar / d)
    expected = np.nan if denom == 0 else float(1 - (M / (M - 1) * p * (1 - p)).mean() / denom)
    got = selection_stability(masks)
    assert got == expected or (np.isnan(got) and np.isnan(expected))
    assert selection_stability(masks.astype(int)) == selection_stability(Z) or np.isnan(got)
