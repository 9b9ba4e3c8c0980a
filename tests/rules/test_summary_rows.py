"""rules_summary on a numpy matrix reads it in place: the same split, screen, rules and errors as
CN2 fitted on the DataFrame parts that ``train_test_split`` copies (the former path)."""

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import sparse
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectKBest
from sklearn.model_selection import StratifiedGroupKFold, train_test_split

from widefs.model_selection import f_scores_blockwise
from widefs.rules import CN2Classifier, rules_summary


def _data(dtype, seed=0, n=48, p=40):
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, p)), 1).astype(dtype)  # rounded: tied values too
    y = np.where(X[:, 3] - X[:, 11] + 0.5 * rng.normal(size=n) > 0, "up", "down")
    return X, y


def _expected(X, y, names, seed, k, groups=None):
    """CN2-POE on DataFrame copies of the parts, screened by SelectKBest on the training copy."""
    frame = pd.DataFrame(X, columns=names or [f"x{j}" for j in range(X.shape[1])])
    if groups is None:
        X_tr, X_te, y_tr, y_te = train_test_split(
            frame, y, test_size=0.33, random_state=seed, stratify=y
        )
    else:
        folds = StratifiedGroupKFold(3, shuffle=True, random_state=np.random.RandomState(seed))
        train, test = next(folds.split(X, y, groups))
        X_tr, X_te, y_tr, y_te = frame.iloc[train], frame.iloc[test], y[train], y[test]
    if k is not None:
        keep = SelectKBest(f_scores_blockwise, k=k).fit(X_tr, y_tr).get_support()
        X_tr, X_te = X_tr.loc[:, keep], X_te.loc[:, keep]
    if names is None:  # a numpy matrix without names stays one
        X_tr, X_te = X_tr.to_numpy(), X_te.to_numpy()
    model = CN2Classifier(stopping="poe").fit(X_tr, y_tr)
    return model, model.predict(X_te), y_te


def _screen(k):
    def screen(X, y_train, train):
        return SelectKBest(f_scores_blockwise, k=k).fit(X[train], y_train).get_support()

    return screen


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("named", [False, True])
@pytest.mark.parametrize("k", [None, 6])
@pytest.mark.parametrize("seed", [0, 5])
def test_the_rows_path_fits_the_rules_of_the_copied_parts(dtype, named, k, seed):
    X, y = _data(dtype, seed)
    names = [f"gene <{j}>" for j in range(X.shape[1])] if named else None
    model, predicted, y_te = _expected(X, y, names, seed, k)
    summary = rules_summary(
        X, y, random_state=seed, prescreen=None if k is None else _screen(k), feature_names=names
    )
    assert str(summary.model) == str(model)
    assert repr(summary.model.rules_) == repr(model.rules_)
    assert summary.test_error == float(np.mean(predicted != y_te))
    assert (summary.n_train, summary.n_test) == (len(y) - len(y_te), len(y_te))
    if named:
        assert list(summary.model.feature_names_in_) == list(model.feature_names_in_)
    if k is None:
        assert summary.prescreen_support is None
    else:  # the callable's mask, over the input features
        assert summary.prescreen_support.sum() == k
        assert summary.prescreen_support.shape == (X.shape[1],)


@pytest.mark.parametrize("selector", [True, False])
def test_a_selector_or_a_callable_screen_the_same_training_rows(selector):
    X, y = _data(np.float32, 2)
    k = 5
    prescreen = SelectKBest(f_scores_blockwise, k=k) if selector else _screen(k)
    summary = rules_summary(X, y, random_state=2, prescreen=prescreen)
    model, predicted, y_te = _expected(X, y, None, 2, k)
    assert str(summary.model) == str(model)
    assert summary.test_error == float(np.mean(predicted != y_te))


def test_the_callable_gets_the_whole_matrix_and_the_training_rows():
    X, y = _data(np.float64, 1)
    seen = {}

    def screen(X_all, y_train, train):
        seen.update(X=X_all, y=y_train, train=train)
        return np.arange(X_all.shape[1]) < 3

    summary = rules_summary(X, y, random_state=1, prescreen=screen)
    train, _ = train_test_split(np.arange(y.size), test_size=0.33, random_state=1, stratify=y)
    assert seen["X"] is X  # no copy handed over
    np.testing.assert_array_equal(seen["train"], train)
    np.testing.assert_array_equal(seen["y"], y[train])
    assert summary.model.n_features_in_ == 3


def test_groups_split_the_rows_as_the_former_path():
    X, y = _data(np.float64, 3)
    groups = np.arange(y.size) // 2  # pairs
    names = [f"g{j}" for j in range(X.shape[1])]
    summary = rules_summary(
        X, y, random_state=3, groups=groups, prescreen=_screen(4), feature_names=names
    )
    model, predicted, y_te = _expected(X, y, names, 3, 4, groups=groups)
    assert str(summary.model) == str(model)
    assert summary.test_error == float(np.mean(predicted != y_te))
    assert summary.n_test == y_te.size


def test_a_list_input_is_read_as_its_array():
    X, y = _data(np.float64, 4, n=30, p=15)
    from_list = rules_summary(X.tolist(), list(y), random_state=4)
    from_array = rules_summary(X, y, random_state=4)
    assert from_list.text == from_array.text


@pytest.mark.parametrize("smallest", [1, 2])
def test_stratified_when_every_class_has_two_examples(smallest):
    rng = np.random.default_rng(smallest)
    y = np.array(["rare"] * smallest + ["common"] * 20)
    X = rng.normal(size=(y.size, 4))
    summary = rules_summary(X, y, random_state=7)
    stratify = y if smallest >= 2 else None
    _, test = train_test_split(np.arange(y.size), test_size=0.33, random_state=7, stratify=stratify)
    assert summary.n_test == test.size
    # The held-out labels are the expected rows': the majority-class error says which.
    assert summary.default_error == float(np.mean(y[test] != "common"))
    if smallest == 2:
        assert "rare" in y[test]


def _grouped():
    X, y = _data(np.float64, 6, n=36, p=14)
    return X, y, np.arange(y.size) // 3  # twelve groups of three


@pytest.mark.parametrize("test_size", [0.5, 12, 0.25])
def test_groups_hold_out_one_fold_of_round_one_over_the_fraction(test_size):
    X, y, groups = _grouped()
    summary = rules_summary(X, y, random_state=2, groups=groups, test_size=test_size)
    fraction = test_size if isinstance(test_size, float) else test_size / y.size
    n_splits = max(2, round(1 / fraction))
    folds = StratifiedGroupKFold(n_splits, shuffle=True, random_state=np.random.RandomState(2))
    _, test = next(folds.split(X, y, groups))
    assert summary.n_test == test.size
    assert summary.default_error == float(np.mean(y[test] != _majority(y, test)))


def _majority(y, test):
    labels, counts = np.unique(np.delete(y, test), return_counts=True)
    return labels[np.argmax(counts)]


def test_two_groups_are_enough_and_one_is_refused():
    X, y, _ = _grouped()
    two = np.arange(y.size) % 2
    assert rules_summary(X, y, random_state=0, groups=two).n_test in (18,)
    with pytest.raises(ValueError, match="needs at least two groups"):
        rules_summary(X, y, random_state=0, groups=np.zeros(y.size))


def test_a_random_state_instance_seeds_the_grouped_split():
    X, y, groups = _grouped()
    seeded = rules_summary(X, y, random_state=np.random.RandomState(4), groups=groups)
    assert seeded.text == rules_summary(X, y, random_state=4, groups=groups).text


class _CallableSelector(BaseEstimator):
    """A selector that is also callable: fitted as a selector, never called."""

    def __call__(self, *args):
        raise AssertionError("a selector is fitted, not called")

    def fit(self, X, y):
        self.n_ = np.asarray(X).shape[1]
        return self

    def get_support(self):
        return (np.arange(self.n_) < 3).astype(int)  # 0/1: read as a mask


def test_a_callable_selector_is_fitted_and_masks_are_boolean():
    X, y = _data(np.float64, 8)
    summary = rules_summary(X, y, random_state=8, prescreen=_CallableSelector())
    assert summary.prescreen_support.dtype == bool
    np.testing.assert_array_equal(summary.prescreen_support, np.arange(X.shape[1]) < 3)
    called = rules_summary(
        X, y, random_state=8, prescreen=lambda X, y, rows: [1, 0, 1] + [0] * (X.shape[1] - 3)
    )
    assert called.prescreen_support.dtype == bool
    assert called.model.n_features_in_ == 2


def test_the_default_seed_the_errors_and_the_text():
    X, y = _data(np.float64, 9)
    names = [f"g{j}" for j in range(X.shape[1])]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a named model predicts named columns
        summary = rules_summary(X, y, feature_names=names)
    assert summary.text == rules_summary(X, y, random_state=0, feature_names=names).text
    train, test = train_test_split(np.arange(y.size), test_size=0.33, random_state=0, stratify=y)
    model, predicted, y_te = _expected(X, y, names, 0, None)
    labels, counts = np.unique(y[train], return_counts=True)
    default = float(np.mean(y[test] != labels[np.argmax(counts)]))
    assert summary.default_error == default
    error = float(np.mean(predicted != y_te))
    assert summary.text == (
        f"{model}\nheld-out error {error:.3f} on {test.size} examples "
        f"(majority-class error {default:.3f}); trained on {train.size}."
    )


def test_a_sparse_matrix_is_refused_by_cn2_with_its_message():
    X, y = _data(np.float64, 10)
    with pytest.raises(TypeError, match="CN2Classifier"):
        rules_summary(sparse.csr_matrix(X), y)
