"""nested_evaluate's numbers pinned against independent computations on small problems.

Each test fixes the splits or the classifier so that every fold's predictions are known, and
recomputes the scores, intervals and recalls with other code (scipy's exact binomial interval,
``statistics``, scikit-learn's splitters and metrics): a flipped comparison, a swapped size or
a dropped factor in the library changes a number here.
"""

import math
import statistics

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.feature_selection import SelectKBest, f_classif
from sklearn.metrics import balanced_accuracy_score
from sklearn.model_selection import GridSearchCV, RepeatedStratifiedKFold
from sklearn.naive_bayes import GaussianNB
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler

from widefs.model_selection import nested_evaluate, selected_feature_mask, selection_stability
from widefs.model_selection._nested import _inject_inner_cv


class Constant(ClassifierMixin, BaseEstimator):
    """Predicts ``label`` whatever the data (and says nothing about features)."""

    def __init__(self, label=0):
        self.label = label

    def fit(self, X, y):
        self.classes_ = np.unique(y)
        return self

    def predict(self, X):
        return np.full(len(X), self.label)


# 12 examples, 8 of class 0 and 4 of class 1, three folds of 3, 4 and 5 test examples.
Y12 = np.array([0] * 8 + [1] * 4)
TESTS = [np.array([0, 1, 8]), np.array([2, 3, 4, 9]), np.array([5, 6, 7, 10, 11])]
SPLITS = [(np.setdiff1d(np.arange(12), te), te) for te in TESTS]


def test_scores_interval_and_recalls_with_known_predictions():
    X = np.zeros((12, 2))
    res = nested_evaluate(Constant(0), X, Y12, cv=SPLITS)
    scores = [2 / 3, 3 / 4, 3 / 5]
    np.testing.assert_allclose(res["test_score"], scores, rtol=1e-12)
    s = statistics.stdev(scores)
    # Mean test size 4 of 12: n_train = 8; Nadeau-Bengio variance (1/3 + 4/8) s^2.
    half = stats.t.ppf(0.975, 2) * math.sqrt((1 / 3 + 4 / 8) * s * s)
    mean = statistics.mean(scores)
    assert res["mean"] == pytest.approx(mean, rel=1e-12)
    assert res["std"] == pytest.approx(s, rel=1e-12)
    assert res["ci"] == (
        pytest.approx(mean - half, rel=1e-12),
        pytest.approx(mean + half, rel=1e-12),
    )
    assert res["pooled_accuracy"] == 8 / 12
    # Balanced: recall 1 for class 0, 0 for class 1, in every fold.
    np.testing.assert_array_equal(res["balanced_test_score"], [0.5, 0.5, 0.5])
    assert (res["balanced_mean"], res["balanced_std"], res["balanced_ci"]) == (0.5, 0.0, (0.5, 0.5))
    assert res["pooled_balanced_accuracy"] == 0.5
    np.testing.assert_array_equal(res["classes"], [0, 1])
    np.testing.assert_array_equal(res["class_support"], [8, 4])
    np.testing.assert_array_equal(res["class_recall"], [1.0, 0.0])
    for (lo, hi), (k, n) in zip(res["class_recall_ci"], [(8, 8), (0, 4)], strict=True):
        ref = stats.binomtest(k, n).proportion_ci(0.95, method="exact")
        assert (lo, hi) == (pytest.approx(ref.low, abs=1e-12), pytest.approx(ref.high, rel=1e-12))
    assert res["predictions"].shape == (1, 12) and not res["predictions"].any()
    assert res["confidence"] == 0.95
    assert res["selection_frequency"] is None and res["n_selected"] is None
    assert np.isnan(res["stability"]) and res["selected_features"] == [None] * 3
    # A lower confidence: a narrower interval around the same mean.
    lower = nested_evaluate(Constant(0), X, Y12, cv=SPLITS, confidence=0.8)
    assert res["ci"][0] < lower["ci"][0] < lower["ci"][1] < res["ci"][1]
    assert lower["confidence"] == 0.8
    # Predicting the minority class instead: every fold's balanced accuracy is still 0.5.
    minority = nested_evaluate(Constant(1), X, Y12, cv=SPLITS)
    np.testing.assert_allclose(minority["test_score"], [1 / 3, 1 / 4, 2 / 5], rtol=1e-12)
    np.testing.assert_array_equal(minority["class_recall"], [0.0, 1.0])


def _one_nn_by_hand(X, y, splits, n_repeats):
    pred = np.empty((n_repeats, len(y)), dtype=y.dtype)
    per_repeat = len(splits) // n_repeats
    for k, (tr, te) in enumerate(splits):
        pred[k // per_repeat, te] = KNeighborsClassifier(1).fit(X[tr], y[tr]).predict(X[te])
    return pred


def test_repeats_predictions_and_pooled_recall_by_hand():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(30, 1))
    y = np.where(X[:, 0] + 0.8 * rng.normal(size=30) > 0.4, "b", "a")
    res = nested_evaluate(KNeighborsClassifier(1), X, y, cv=3, n_repeats=2, random_state=5)
    seed = np.random.RandomState(5).randint(np.iinfo(np.int32).max)
    splits = list(RepeatedStratifiedKFold(n_splits=3, n_repeats=2, random_state=seed).split(X, y))
    for (tr, te), (tr2, te2) in zip(splits, res["splits"], strict=True):
        np.testing.assert_array_equal(tr, tr2)
        np.testing.assert_array_equal(te, te2)
    pred = _one_nn_by_hand(X, y, splits, 2)
    np.testing.assert_array_equal(res["predictions"], pred)
    assert res["pooled_accuracy"] == pytest.approx(np.mean(pred == y), rel=1e-12)
    folds = [balanced_accuracy_score(y[te], pred[k // 3, te]) for k, (_, te) in enumerate(splits)]
    np.testing.assert_allclose(res["balanced_test_score"], folds, rtol=1e-12)
    # Recall pooled over both repeats; the interval's trials are the class's examples (the
    # repeats re-test the same examples), with the mean count of correct predictions.
    for c, name in enumerate(["a", "b"]):
        n_c = int(np.sum(y == name))
        hits = np.sum((pred == name) & (y == name)) / 2
        assert res["class_support"][c] == n_c
        assert res["class_recall"][c] == pytest.approx(hits / n_c, rel=1e-12)
        lo = stats.beta.ppf(0.025, hits, n_c - hits + 1) if hits > 0 else 0.0
        hi = stats.beta.ppf(0.975, hits + 1, n_c - hits) if hits < n_c else 1.0
        np.testing.assert_allclose(res["class_recall_ci"][c], [lo, hi], rtol=1e-10)
    assert res["pooled_balanced_accuracy"] == pytest.approx(np.mean(res["class_recall"]), rel=1e-12)
    n_test = np.mean([len(te) for _, te in splits])
    s = np.std(res["test_score"], ddof=1)
    half = stats.t.ppf(0.975, 5) * np.sqrt((1 / 6 + n_test / (30 - n_test)) * s**2)
    np.testing.assert_allclose(res["ci"], np.clip([res["mean"] - half, res["mean"] + half], 0, 1))
    b = res["balanced_test_score"]
    b_half = stats.t.ppf(0.975, 5) * np.sqrt((1 / 6 + n_test / (30 - n_test)) * np.var(b, ddof=1))
    np.testing.assert_allclose(
        res["balanced_ci"], np.clip([b.mean() - b_half, b.mean() + b_half], 0, 1)
    )
    assert res["balanced_std"] == pytest.approx(np.std(b, ddof=1), rel=1e-12)
    # Another seed, other folds; the same seed, the same folds (and a DataFrame gives the same).
    other = nested_evaluate(KNeighborsClassifier(1), X, y, cv=3, n_repeats=2, random_state=6)
    assert not np.array_equal(other["splits"][0][1], splits[0][1])
    frame = pd.DataFrame(X, index=[f"s{i}" for i in range(30)])
    again = nested_evaluate(KNeighborsClassifier(1), frame, y, cv=3, n_repeats=2, random_state=5)
    np.testing.assert_array_equal(again["predictions"], pred)


def test_scoring_replaces_test_score_only():
    X = np.zeros((12, 2))

    def always_one(est, X, y):
        return 1.0

    res = nested_evaluate(Constant(0), X, Y12, cv=SPLITS, scoring=always_one)
    np.testing.assert_array_equal(res["test_score"], [1.0, 1.0, 1.0])
    np.testing.assert_array_equal(res["balanced_test_score"], [0.5, 0.5, 0.5])
    assert res["pooled_accuracy"] == 8 / 12


def test_argument_errors():
    X = np.zeros((12, 2))

    class NoPredict(BaseEstimator):
        def fit(self, X, y):
            return self

    with pytest.raises(TypeError, match="estimator must be a classifier with fit and predict"):
        nested_evaluate(NoPredict(), X, Y12)
    with pytest.raises(ValueError, match="n_repeats applies to an int cv only"):
        nested_evaluate(Constant(0), X, Y12, cv=SPLITS, n_repeats=2)


def _shifted(seed, n, p, shifts):
    """Standard normal features, two equal classes, ``{feature: shift}`` in the second."""
    rng = np.random.default_rng(seed)
    X, y = rng.normal(size=(n, p)), np.repeat([0, 1], n // 2)
    for feature, shift in shifts.items():
        X[:, feature] += shift * y
    return X, y


def test_selection_summary_and_stability_by_hand():
    X, y = _shifted(3, 40, 6, {1: 2.5, 4: 0.6})
    pipe = Pipeline([("kbest", SelectKBest(f_classif, k=2)), ("nb", GaussianNB())])
    res = nested_evaluate(pipe, X, y, cv=4, n_repeats=2, random_state=1)
    masks = [SelectKBest(f_classif, k=2).fit(X[tr], y[tr]).get_support() for tr, _ in res["splits"]]
    assert all(idx.dtype == np.intp for idx in res["selected_features"])
    np.testing.assert_array_equal(
        np.array(res["selected_features"]), [np.flatnonzero(m) for m in masks]
    )
    np.testing.assert_array_equal(res["n_selected"], [2] * 8)
    np.testing.assert_allclose(res["selection_frequency"], np.mean(masks, axis=0), rtol=1e-12)
    assert res["stability"] == selection_stability(np.array(masks))


def test_selection_stability_against_the_definition():
    masks = np.array([[1, 1, 0, 0], [1, 1, 0, 0], [1, 0, 1, 0]], bool)
    variances = [statistics.variance(col) for col in masks.T.astype(int).tolist()]
    kbar = statistics.mean(masks.sum(axis=1).tolist())
    want = 1 - statistics.mean(variances) / ((kbar / 4) * (1 - kbar / 4))
    assert selection_stability(masks) == pytest.approx(want, rel=1e-12)
    assert selection_stability(masks) == pytest.approx(1 - (1 / 6) / (1 / 4), rel=1e-12)
    assert np.isnan(selection_stability(masks[:1]))  # one fold: no agreement to measure
    assert np.isnan(selection_stability(np.ones((3, 4), bool)))  # everything selected
    assert np.isnan(selection_stability(np.zeros((3, 4), bool)))  # nothing selected
    assert selection_stability(np.array([[1, 0], [1, 0]], bool)) == 1.0


def test_selected_feature_mask_skips_passthrough_and_reads_searches():
    X, y = _shifted(4, 30, 5, {3: 3.0})
    pipe = Pipeline(
        [
            ("skip", "passthrough"),
            ("none", None),
            ("k", SelectKBest(f_classif, k=1)),
            ("nb", GaussianNB()),
        ]
    ).fit(X, y)
    assert selected_feature_mask(pipe, 5).tolist() == [False, False, False, True, False]
    plain = Pipeline([("skip", "passthrough"), ("nb", GaussianNB())]).fit(X, y)
    assert selected_feature_mask(plain, 5) is None
    search = GridSearchCV(pipe, {"k__k": [2]}, cv=3).fit(X, y)
    mask = selected_feature_mask(search, 5)
    assert mask.sum() == 2 and mask[3]


def test_inner_cv_is_given_to_the_cv_parameter_only():
    search = GridSearchCV(GaussianNB(), {"var_smoothing": [1e-9]}, cv=5)
    assert _inject_inner_cv(search, 3).cv == 3
    assert _inject_inner_cv(GridSearchCV(GaussianNB(), {}, cv=5), None).cv == 5
    nb = GaussianNB()
    assert _inject_inner_cv(nb, 3) is nb and "cv" not in nb.get_params()
    # Through nested_evaluate: the search in every outer fold used 2 inner folds.
    rng = np.random.default_rng(2)
    X = rng.normal(size=(24, 3))
    y = np.repeat([0, 1], 12)

    class Recording(GridSearchCV):
        def fit(self, X, y=None, **params):
            assert self.cv == 2
            return super().fit(X, y, **params)

    res = nested_evaluate(
        Recording(GaussianNB(), {"var_smoothing": [1e-9]}), X, y, cv=3, inner_cv=2
    )
    assert len(res["test_score"]) == 3


class IntSupport(BaseEstimator):
    """A selector whose get_support answers with 0/1 integers."""

    def fit(self, X, y):
        return self

    def get_support(self):
        return [0, 1, 1]


def test_masks_are_boolean_and_nested_pipelines_compose():
    mask = selected_feature_mask(IntSupport(), 3)
    assert mask.dtype == bool and mask.tolist() == [False, True, True]
    X, y = _shifted(5, 30, 6, {2: 3.0, 5: 2.0})
    pipe = Pipeline(
        [
            ("scale", StandardScaler()),  # no get_support: passes every feature on
            ("inner", Pipeline([("k4", SelectKBest(f_classif, k=4))])),
            ("k1", SelectKBest(f_classif, k=1)),
            ("nb", GaussianNB()),
        ]
    ).fit(X, y)
    mask = selected_feature_mask(pipe, 6)
    kept4 = SelectKBest(f_classif, k=4).fit(X, y).get_support(indices=True)
    best = kept4[SelectKBest(f_classif, k=1).fit(X[:, kept4], y).get_support()]
    assert mask.dtype == bool and np.flatnonzero(mask).tolist() == best.tolist() == [2]


def test_degenerate_stability_is_nan_without_a_warning():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no 0/0 on the way
        assert np.isnan(selection_stability(np.ones((3, 4), bool)))
        assert np.isnan(selection_stability(np.zeros((3, 4), bool)))


def test_scoring_receives_the_fold_model_and_its_test_data():
    X, y = _shifted(6, 24, 3, {0: 2.0})
    seen = []

    def scorer(est, X_test, y_test):
        seen.append(len(y_test))
        return float(np.mean(est.predict(X_test) == y_test)) / 2 + len(y_test) / 100

    res = nested_evaluate(GaussianNB(), X, y, cv=3, random_state=0, scoring=scorer)
    plain = nested_evaluate(GaussianNB(), X, y, cv=3, random_state=0)
    np.testing.assert_allclose(res["test_score"], plain["test_score"] / 2 + 0.08, rtol=1e-12)
    assert seen == [8, 8, 8]


def test_default_and_none_cv_are_stratified_five_fold():
    X, y = np.zeros((20, 2)), np.array([0] * 15 + [1] * 5)
    assert len(nested_evaluate(Constant(0), X, y, random_state=0)["test_score"]) == 5
    res = nested_evaluate(Constant(0), X, y, cv=None)
    # Unshuffled StratifiedKFold(5): every test fold holds 3 + 1 (KFold would not).
    assert [np.bincount(y[te], minlength=2).tolist() for _, te in res["splits"]] == [[3, 1]] * 5


def test_a_predictor_without_classifier_mixin_is_accepted():
    class Predictor(BaseEstimator):
        def fit(self, X, y):
            return self

        def predict(self, X):
            return np.zeros(len(X), int)

    res = nested_evaluate(Predictor(), np.zeros((12, 2)), Y12, cv=SPLITS)
    np.testing.assert_allclose(res["test_score"], [2 / 3, 3 / 4, 3 / 5], rtol=1e-12)
    assert res["class_support"].dtype.kind == "i"


def test_error_messages_are_exact():
    class NoPredict(BaseEstimator):
        def fit(self, X, y):
            return self

    with pytest.raises(TypeError, match=r"^estimator must be a classifier with fit and predict\.$"):
        nested_evaluate(NoPredict(), np.zeros((12, 2)), Y12)
    with pytest.raises(ValueError, match=r"^n_repeats applies to an int cv only; repeat inside"):
        nested_evaluate(Constant(0), np.zeros((12, 2)), Y12, cv=SPLITS, n_repeats=2)


def test_n_jobs_reaches_the_workers(monkeypatch):
    from widefs.model_selection import _nested

    calls = []
    original = _nested.parallel_calls

    def recording(fn, args, *, n_jobs=None):
        calls.append(n_jobs)
        return original(fn, args, n_jobs=1)

    monkeypatch.setattr(_nested, "parallel_calls", recording)
    nested_evaluate(Constant(0), np.zeros((12, 2)), Y12, cv=SPLITS, n_jobs=3)
    assert calls == [3]


def test_one_class_and_no_example_messages_are_exact():
    with pytest.raises(ValueError) as single:
        nested_evaluate(Constant(0), np.zeros((4, 2)), ["a"] * 4, cv=2)
    assert str(single.value) == (
        "y has a single class ('a' for all 4 examples): an accuracy on one class measures "
        "nothing; nested_evaluate needs at least 2 classes."
    )
    with pytest.raises(ValueError) as empty:
        nested_evaluate(Constant(0), np.zeros((0, 2)), [], cv=2)
    assert str(empty.value) == "y is empty: nested_evaluate needs examples of at least 2 classes."


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.uint8, int])
def test_selection_stability_is_computed_in_float64_whatever_the_mask_dtype(dtype):
    # 0/1 masks of any numeric dtype: the same index as boolean ones, to the last bit
    # (float16 or float32 means would round p_f = 1/3 and k/d otherwise).
    masks = np.array([[1, 1, 0, 0, 1], [1, 0, 1, 0, 0], [0, 1, 1, 0, 1]], bool)
    want = selection_stability(masks)
    assert selection_stability(masks.astype(dtype)) == want
    # p_f = 2/3 on four features, 0 on one: mean s_f^2 = 4/15; k/d = 8/15.
    assert want == pytest.approx(1 - (4 / 15) / ((8 / 15) * (7 / 15)), rel=1e-12)  # -1/14


class RowsMean(ClassifierMixin, BaseEstimator):
    """Predicts the class whose training mean of feature 0 is nearer; fits on rows of the whole
    matrix in place too, recording which path each fold took."""

    paths: list = []

    def fit(self, X, y):
        RowsMean.paths.append(("copy", len(y)))
        return self._fit(np.asarray(X)[:, 0], np.asarray(y))

    def _fit_rows(self, X, y, rows):
        RowsMean.paths.append(("rows", tuple(rows)))
        return self._fit(X[rows, 0], y)

    def _fit(self, x, y):
        self.classes_ = np.unique(y)
        self.means_ = np.array([x[y == c].mean() for c in self.classes_])
        return self

    def predict(self, X):
        x = np.asarray(X)[:, 0]
        return self.classes_[np.argmin(np.abs(x[:, None] - self.means_), axis=1)]

    def _predict_rows(self, X, rows):
        return self.predict(X[rows])


def test_folds_fit_rows_in_place_only_on_a_c_ordered_array_without_params_or_scoring():
    """The rows path gets each fold's training rows of the whole matrix, and gives the copy
    path's results; a frame, an F-ordered array, a strided view or a scorer copy."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(24, 3))
    y = np.repeat([0, 1], 12)
    X[y == 1, 0] += 2
    splits = list(RepeatedStratifiedKFold(n_splits=3, n_repeats=1, random_state=0).split(X, y))
    RowsMean.paths = []
    fast = nested_evaluate(RowsMean(), X, y, cv=splits)
    assert RowsMean.paths == [("rows", tuple(tr)) for tr, _ in splits]
    right = [np.mean(fast["predictions"][0, te] == y[te]) for _, te in splits]
    np.testing.assert_array_equal(fast["test_score"], right)
    assert 0.5 not in right  # an error rate would differ from every accuracy
    for kw in (
        dict(X=pd.DataFrame(X)),
        dict(X=np.asfortranarray(X)),
        dict(X=X, scoring=lambda est, X, y: float(np.mean(est.predict(X) == y))),
    ):
        RowsMean.paths = []
        X_ = kw.pop("X")
        slow = nested_evaluate(RowsMean(), X_, y, cv=splits, **kw)
        assert [p[0] for p in RowsMean.paths] == ["copy"] * 3
        np.testing.assert_array_equal(slow["predictions"], fast["predictions"])
        np.testing.assert_array_equal(slow["test_score"], fast["test_score"])
    RowsMean.paths = []
    nested_evaluate(RowsMean(), X[:, ::2], y, cv=splits)  # a strided view: not C-ordered
    assert [p[0] for p in RowsMean.paths] == ["copy"] * 3
