"""The wide CN2-POE and CEFS parts read the matrix in place: the same fits as the former paths,
which handed a DataFrame of every column to ``SelectKBest`` and ``Prescreened``."""

import numpy as np
import pandas as pd
import pytest
from sklearn.feature_selection import SelectKBest

from widefs._utils import top_k_mask
from widefs.analysis import _models
from widefs.ensemble import ClassSpecificEnsemble
from widefs.model_selection import Prescreened, f_scores_blockwise
from widefs.rules import rules_summary

K = 7


def _data(dtype, n_classes=2, seed=0):
    rng = np.random.default_rng(seed)
    y = np.repeat(np.array(["a", "b", "c"])[:n_classes], 14)
    X = np.round(rng.normal(size=(y.size, 60)), 1).astype(dtype)
    X[y == "b", 4] += 1.5
    X[y == "a", 20] -= 1.0
    X[:, 30] = 1.0  # constant: F is NaN, ranked last
    X[:, 31:34] = X[:, [4]]  # tied F statistics
    names = [f"gene {j}" for j in range(X.shape[1])]
    return X, y, names


def _frame(X, names):
    return pd.DataFrame(X, columns=names)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("seed", [0, 1])
def test_rules_equal_the_dataframe_path(monkeypatch, dtype, n_classes, seed):
    monkeypatch.setattr(_models, "PRESCREEN", K)
    X, y, names = _data(dtype, n_classes, seed)
    got = _models.rules_analysis(X, y, names, seed=seed)
    former = rules_summary(
        _frame(X, names), y, random_state=seed, prescreen=SelectKBest(f_scores_blockwise, k=K)
    )
    assert got.summary.text == former.text
    assert got.summary.test_error == former.test_error
    np.testing.assert_array_equal(got.summary.prescreen_support, former.prescreen_support)
    assert list(got.summary.model.feature_names_in_) == list(former.model.feature_names_in_)
    assert got.prescreened == K


@pytest.mark.filterwarnings("ignore:X does not have valid feature names")
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_cefs_equals_the_prescreened_dataframe_path(monkeypatch, dtype, n_classes):
    monkeypatch.setattr(_models, "PRESCREEN", K)
    X, y, names = _data(dtype, n_classes, 2)
    got = _models.cefs_analysis(X, y, names, seed=3)
    former = Prescreened(ClassSpecificEnsemble(random_state=3), k=K).fit(_frame(X, names), y)
    model = former.estimator_
    assert got.class_subsets == {c: list(map(str, s)) for c, s in model.class_subsets_.items()}
    assert got.overall_subset == list(map(str, model.overall_subset_))
    kept = former.screen_support_
    np.testing.assert_array_equal(
        got.model.predict(_frame(X[:, kept], list(np.array(names)[kept]))),
        former.predict(_frame(X, names)),
    )
    assert got.prescreened == K


def test_top_k_is_select_k_best():
    rng = np.random.default_rng(4)
    scores = rng.integers(0, 5, size=40).astype(float)  # many ties
    scores[[3, 17]] = np.nan
    for k in (1, 5, 12, 38, 40):
        expected = SelectKBest(lambda X, y: (scores, None), k=k).fit(np.zeros((2, 40)), [0, 1])
        np.testing.assert_array_equal(top_k_mask(scores, k), expected.get_support())
    assert not top_k_mask(scores, 38)[[3, 17]].any()  # NaN last


def test_the_f_screen_equals_select_k_best_on_the_training_copy(monkeypatch):
    monkeypatch.setattr(_models, "PRESCREEN", K)
    X, y, _ = _data(np.float32, 3, 5)
    train = np.random.default_rng(5).permutation(y.size)[:25]
    expected = SelectKBest(f_scores_blockwise, k=K).fit(X[train], y[train]).get_support()
    np.testing.assert_array_equal(_models._f_screen(X, y[train], train), expected)
