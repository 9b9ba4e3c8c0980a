"""rules_summary's pre-screen: fitted on the training part only, CN2 on the columns it keeps."""

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectKBest, f_classif
from sklearn.model_selection import train_test_split

from widefs.rules import CN2Classifier, rules_summary

SEEN = []  # module level: clone() deep-copies a list parameter


class _Spy(BaseEstimator):
    """Keeps the first two columns; records the rows it was fitted on."""

    def fit(self, X, y):
        SEEN.append(np.asarray(X)[:, 0].copy())
        self.n_ = np.asarray(X).shape[1]
        return self

    def get_support(self):
        return np.arange(self.n_) < 2


def _data():
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(45, 30)), columns=[f"g{i}" for i in range(30)])
    X["g0"] = np.arange(45.0)  # row ids, to see which rows the screen saw
    y = np.where(X["g5"] + 0.3 * rng.normal(size=45) > 0, "up", "down")
    return X, y


def test_the_screen_sees_the_training_rows_only():
    X, y = _data()
    SEEN.clear()
    summary = rules_summary(X, y, random_state=3, prescreen=_Spy())
    train, _ = train_test_split(np.arange(45), test_size=0.33, random_state=3, stratify=y)
    assert len(SEEN) == 1
    np.testing.assert_array_equal(np.sort(SEEN[0]), np.sort(train.astype(float)))
    np.testing.assert_array_equal(summary.prescreen_support, np.arange(30) < 2)
    assert set(summary.model.feature_names_in_) == {"g0", "g1"}


def test_equals_cn2_on_the_screened_training_part():
    X, y = _data()
    summary = rules_summary(X, y, random_state=1, prescreen=SelectKBest(f_classif, k=4))
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.33, random_state=1, stratify=y)
    keep = SelectKBest(f_classif, k=4).fit(X_tr, y_tr).get_support()
    model = CN2Classifier(stopping="poe").fit(X_tr.loc[:, keep], y_tr)
    assert str(summary.model) == str(model)
    assert summary.test_error == np.mean(model.predict(X_te.loc[:, keep]) != y_te)
    assert summary.prescreen_support.sum() == 4
    assert rules_summary(X, y, random_state=1).prescreen_support is None
