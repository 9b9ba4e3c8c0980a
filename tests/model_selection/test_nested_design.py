"""nested_evaluate with groups and covariates: routing through Pipeline and GridSearchCV."""

import numpy as np
import pytest
from sklearn import config_context
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin
from sklearn.model_selection import GridSearchCV, KFold
from sklearn.naive_bayes import GaussianNB
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline

from widefs.model_selection import DesignKFold, nested_evaluate


class Recorder(SelectorMixin, BaseEstimator):
    """Keeps every feature; logs the sample ids (column 0 of X) and the design it received."""

    log: list = []  # class-level: clones share it

    def __init__(self, k=1):
        self.k = k

    def fit(self, X, y, covariates=None, groups=None):
        X = np.asarray(X)
        type(self).log.append(
            {
                "ids": X[:, 0].astype(int),
                "covariates": None if covariates is None else np.asarray(covariates)[:, 0],
                "groups": None if groups is None else np.asarray(groups),
            }
        )
        self.n_features_in_ = X.shape[1]
        return self

    def _get_support_mask(self):
        return np.ones(self.n_features_in_, bool)


class DefaultRecorder(Recorder):
    """Requests the design by default, as a widefs screen can declare it."""

    __metadata_request__fit = {"covariates": True, "groups": True}


def _data(seed=0):
    rng = np.random.default_rng(seed)
    patient = np.repeat(np.arange(12), 3)
    y = np.repeat([0, 1], 18)
    X = np.column_stack([np.arange(36.0), rng.normal(size=(36, 4))])
    covariates = np.column_stack([np.arange(36.0) + 1000, rng.normal(size=36)])
    return X, y, patient, covariates


def _check_log(log, patient, expect_groups):
    for entry in log:
        ids = entry["ids"]
        assert np.array_equal(entry["covariates"], ids + 1000)  # the rows of these samples
        if expect_groups:
            assert np.array_equal(entry["groups"], patient[ids])
        # every fit holds whole groups: no patient split between a fit and its test side
        for g in np.unique(patient[ids]):
            assert np.isin(np.flatnonzero(patient == g), ids).all()


def test_pipeline_receives_training_rows_of_covariates_and_groups():
    X, y, patient, cov = _data()
    Recorder.log = []
    with config_context(enable_metadata_routing=True):
        step = Recorder().set_fit_request(covariates=True, groups=True)
    pipe = make_pipeline(step, GaussianNB())
    res = nested_evaluate(pipe, X, y, cv=4, groups=patient, covariates=cov, random_state=0)
    assert len(Recorder.log) == 4
    for entry, (train, _) in zip(Recorder.log, res["splits"], strict=True):
        assert np.array_equal(np.sort(entry["ids"]), np.sort(train))
    _check_log(Recorder.log, patient, expect_groups=True)
    assert res["routed_params"] == ("covariates", "groups")
    assert res["design_case"] == "between groups"


def test_grid_search_inner_splits_are_group_aware_and_route_the_design():
    X, y, patient, cov = _data(1)
    DefaultRecorder.log = []
    search = GridSearchCV(
        make_pipeline(DefaultRecorder(), GaussianNB()), {"defaultrecorder__k": [1, 2]}, cv=3
    )
    res = nested_evaluate(search, X, y, cv=3, groups=patient, covariates=cov, random_state=0)
    # 3 outer folds x (2 candidates x 3 inner folds + 1 refit)
    assert len(DefaultRecorder.log) == 3 * (2 * 3 + 1)
    _check_log(DefaultRecorder.log, patient, expect_groups=True)
    assert res["routed_params"] == ("covariates", "groups")


def test_grid_search_outside_nested_evaluate_with_design_kfold():
    X, y, patient, cov = _data(2)
    DefaultRecorder.log = []
    search = GridSearchCV(
        make_pipeline(DefaultRecorder(), GaussianNB()),
        {"defaultrecorder__k": [1]},
        cv=DesignKFold(3, random_state=0),
    )
    with config_context(enable_metadata_routing=True):
        search.fit(X, y, groups=patient, covariates=cov)
    assert len(DefaultRecorder.log) == 4
    _check_log(DefaultRecorder.log, patient, expect_groups=True)


def test_plain_estimator_receives_what_its_fit_takes():
    X, y, patient, cov = _data(3)
    Recorder.log = []

    class Classifier(Recorder):
        def fit(self, X, y, covariates=None):
            super().fit(X, y, covariates=covariates)
            self.classes_ = np.unique(y)
            return self

        def predict(self, X):
            return np.full(len(X), self.classes_[0])

    res = nested_evaluate(Classifier(), X, y, cv=3, groups=patient, covariates=cov, random_state=0)
    assert res["routed_params"] == ("covariates",)  # groups: used for the splits only
    _check_log(Recorder.log, patient, expect_groups=False)


def test_covariates_nothing_takes_are_refused():
    X, y, patient, cov = _data()
    with pytest.raises(ValueError, match="no step of GaussianNB takes them"):
        nested_evaluate(GaussianNB(), X, y, covariates=cov)
    # a step that takes covariates but did not request them: told how to request
    with pytest.raises(ValueError, match=r"set_fit_request\(covariates=True\)"):
        nested_evaluate(make_pipeline(Recorder(), GaussianNB()), X, y, covariates=cov)
    with pytest.raises(ValueError, match="one row per sample"):
        nested_evaluate(make_pipeline(DefaultRecorder(), GaussianNB()), X, y, covariates=cov[:5])
    with pytest.raises(ValueError, match="groups must have one label per sample"):
        nested_evaluate(GaussianNB(), X, y, groups=patient[:5])


@pytest.mark.filterwarnings("ignore:The groups parameter is ignored")
def test_a_splitter_that_splits_groups_is_refused():
    X, y, patient, _ = _data()
    with pytest.raises(ValueError, match="is on both sides of split"):
        nested_evaluate(
            GaussianNB(), X, y, cv=KFold(4, shuffle=True, random_state=0), groups=patient
        )
    search = GridSearchCV(
        GaussianNB(), {"var_smoothing": [1e-9]}, cv=KFold(4, shuffle=True, random_state=0)
    )
    with pytest.raises(ValueError, match="is on both sides of split"):
        nested_evaluate(search, X, y, cv=3, groups=patient, random_state=0)


def test_without_groups_pseudo_replication_leaks_and_with_groups_it_does_not():
    # 12 patients x 3 samples, classes by patient, no class effect, strong patient effect:
    # 1-NN finds a sibling sample unless patients stay on one side. Pooled accuracy over
    # 5 repeats of 36 predictions; chance 0.5 (SE about 0.08 per repeat of 12 patients).
    rng = np.random.default_rng(0)
    patient = np.repeat(np.arange(12), 3)
    y = np.repeat(rng.permutation(np.repeat([0, 1], 6)), 3)
    X = 3.0 * rng.normal(size=(12, 50))[patient] + rng.normal(size=(36, 50))
    knn = KNeighborsClassifier(1)
    leak = nested_evaluate(knn, X, y, cv=4, n_repeats=5, random_state=0)
    grouped = nested_evaluate(knn, X, y, cv=4, n_repeats=5, random_state=0, groups=patient)
    assert leak["pooled_accuracy"] > 0.9
    assert abs(grouped["pooled_accuracy"] - 0.5) < 0.2
    assert leak["design_case"] == "independent" and grouped["design_case"] == "between groups"


def test_no_design_keeps_the_previous_splits():
    X, y, _, _ = _data()
    a = nested_evaluate(GaussianNB(), X, y, cv=3, random_state=5)
    from sklearn.model_selection import RepeatedStratifiedKFold

    seed = np.random.RandomState(5).randint(np.iinfo(np.int32).max)
    expected = list(RepeatedStratifiedKFold(n_splits=3, n_repeats=1, random_state=seed).split(X, y))
    assert all(
        np.array_equal(te, te2) for (_, te), (_, te2) in zip(a["splits"], expected, strict=True)
    )
    assert a["routed_params"] == ()


def test_cv_none_with_groups_is_grouped():
    X, y, patient, _ = _data()
    res = nested_evaluate(GaussianNB(), X, y, cv=None, groups=patient, random_state=0)
    assert len(res["splits"]) == 5
    for train, test in res["splits"]:
        assert set(patient[train]).isdisjoint(patient[test])


def test_same_result_for_any_n_jobs_with_a_design():
    X, y, patient, cov = _data(4)
    X = X[:, 1:] + y[:, None]  # drop the id column; a class effect
    search = GridSearchCV(
        make_pipeline(DefaultRecorder(), GaussianNB()), {"defaultrecorder__k": [1, 2]}
    )
    one = nested_evaluate(search, X, y, cv=3, groups=patient, covariates=cov, random_state=0)
    two = nested_evaluate(
        search, X, y, cv=3, groups=patient, covariates=cov, random_state=0, n_jobs=2
    )
    assert np.array_equal(one["predictions"], two["predictions"])
    assert [te.tolist() for _, te in one["splits"]] == [te.tolist() for _, te in two["splits"]]


def test_missing_group_labels_are_refused_before_any_fit():
    X, y, patient, _ = _data()
    groups = patient.astype(object)
    groups[3] = None
    with pytest.raises(ValueError, match="groups has 1 missing labels"):
        nested_evaluate(GaussianNB(), X, y, groups=groups)


def test_covariates_as_a_mapping_or_a_frame_reach_fit_as_their_training_rows():
    import pandas as pd

    X, y, _, cov = _data(4)
    seen = []

    class Classifier(BaseEstimator):
        __metadata_request__fit = {"covariates": True}

        def fit(self, X, y, covariates=None):
            seen.append((np.asarray(X)[:, 0].astype(int), covariates))
            self.classes_ = np.unique(y)
            return self

        def predict(self, X):
            return np.full(len(X), self.classes_[0])

    as_dict = {"id": cov[:, 0], "age": cov[:, 1]}
    as_frame = pd.DataFrame(as_dict, index=np.arange(36) + 500)
    for given in (as_dict, as_frame):
        seen.clear()
        nested_evaluate(Classifier(), X, y, cv=3, covariates=given, random_state=0)
        assert len(seen) == 3
        for ids, got in seen:
            assert type(got) is type(given)  # a frame stays a frame: columns by name
            assert list(got.keys()) == ["id", "age"]
            np.testing.assert_array_equal(np.asarray(got["id"]), ids + 1000)
    with pytest.raises(ValueError, match="one row per sample"):
        nested_evaluate(Classifier(), X, y, covariates={"id": cov[:5, 0]})


def test_a_searchs_own_folds_become_group_folds_of_the_same_number():
    from sklearn.model_selection import GridSearchCV

    from widefs.model_selection import DesignKFold
    from widefs.model_selection._nested import _group_inner_cv

    for cv, n_splits in ((None, 5), (3, 3)):  # None: scikit-learn's default, 5 folds
        search = GridSearchCV(GaussianNB(), {"var_smoothing": [1e-9]}, cv=cv)
        inner = _group_inner_cv(search, np.random.RandomState(0)).cv
        assert type(inner) is DesignKFold and inner.n_splits == n_splits
