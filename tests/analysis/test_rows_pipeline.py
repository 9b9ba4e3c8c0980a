"""The comparison's selection pipelines read a fold's rows in place and evaluate as
``make_pipeline`` does: the same fold scores, predictions and selected features."""

import numpy as np
import pytest
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline

from widefs.analysis._pipeline import RowsPipeline, rows_pipeline
from widefs.analysis._spec import candidates
from widefs.model_selection import PriorFallbackClassifier, nested_evaluate
from widefs.model_selection._nested import _rows_fit
from widefs.univariate import ClassDifferenceScreen, DiscriminativeSelector


def _data(dtype, n=30, m=80):
    rng = np.random.default_rng(0)
    y = np.repeat(["a", "b"], n // 2)
    X = rng.normal(size=(n, m)).astype(dtype)
    X[y == "b", :5] += 1.2
    X[:, 7] = 1.0
    return X, y


def _selectors():
    return [
        DiscriminativeSelector("mgm", statistic="errors", random_state=0),
        DiscriminativeSelector("max_chance", statistic="errors", random_state=0),
        ClassDifferenceScreen("fdr", random_state=0),
        DiscriminativeSelector(2, statistic="errors", random_state=0),
        ClassDifferenceScreen("fdr", counts=False, random_state=0),
    ]


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("index", range(5))
@pytest.mark.parametrize("n_jobs", [1, 2])
def test_rows_pipeline_evaluates_as_make_pipeline(dtype, index, n_jobs):
    X, y = _data(dtype)
    steps = lambda: (_selectors()[index], PriorFallbackClassifier(GaussianNB()))  # noqa: E731
    plain = make_pipeline(*steps())
    rows = rows_pipeline(*steps())
    assert isinstance(rows, RowsPipeline) and _rows_fit(rows, X)
    assert [n for n, _ in rows.steps] == [n for n, _ in plain.steps]
    a = nested_evaluate(plain, X, y, cv=3, n_repeats=2, random_state=4, n_jobs=n_jobs)
    b = nested_evaluate(rows, X, y, cv=3, n_repeats=2, random_state=4, n_jobs=n_jobs)
    np.testing.assert_array_equal(a["test_score"], b["test_score"])
    np.testing.assert_array_equal(a["predictions"], b["predictions"])
    for ia, ib in zip(a["selected_features"], b["selected_features"], strict=True):
        np.testing.assert_array_equal(ia, ib)


def test_the_comparison_builds_its_selection_pipelines_as_rows_pipelines():
    made = {c.name: c.make(0) for c in candidates(("chance",), n_features=10)}
    for name in ("MGM + naive Bayes", "E[X(1)] + naive Bayes", "FDR 5% + naive Bayes"):
        assert type(made[name]) is RowsPipeline


def test_a_fold_that_selects_nothing_warns_as_selector_transform_and_predicts():
    X, y = _data(np.float32)
    X[:, :5] = np.random.default_rng(1).normal(size=(30, 5))  # no signal left
    pipe = rows_pipeline(
        DiscriminativeSelector(1e-9, statistic="errors", random_state=0),
        PriorFallbackClassifier(GaussianNB()),
    )
    with pytest.warns(UserWarning, match="No features were selected"):
        pipe._fit_rows(X, y[:20], np.arange(20))
    with pytest.warns(UserWarning, match="No features were selected"):
        pred = pipe._predict_rows(X, np.arange(20, 30))
    assert pred.shape == (10,)


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_wide_scms_read_columns_in_blocks_and_fit_the_same_machines(monkeypatch, dtype, n_classes):
    from widefs.analysis import _models

    rng = np.random.default_rng(n_classes)
    y = np.repeat(np.array(["a", "b", "c"])[:n_classes], 12)
    X = np.round(rng.normal(size=(y.size, 300)), 2).astype(dtype)
    X[y == "b", 3] += 2.0
    X[y == "a", 9] -= 1.5
    names = [f"gene {j}" for j in range(300)]
    in_memory = _models.scm_analysis(X, y, names)
    monkeypatch.setattr(_models, "SCM_IN_MEMORY_BYTES", 8 * X.size - 1)
    by_blocks = _models.scm_analysis(X, y, names)
    assert by_blocks.descriptions == in_memory.descriptions
    assert "gene 3" in "".join(in_memory.descriptions.values())
    assert by_blocks.bounds == in_memory.bounds
    for name, model in in_memory.models.items():
        other = by_blocks.models[name]
        np.testing.assert_array_equal(other.predict(X), model.predict(X))
