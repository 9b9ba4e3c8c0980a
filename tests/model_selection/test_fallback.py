"""PriorFallbackClassifier: the prior without features, the wrapped classifier otherwise."""

import numpy as np
import pytest
from sklearn.dummy import DummyClassifier
from sklearn.neighbors import KNeighborsClassifier

from widefs.model_selection import PriorFallbackClassifier


def test_zero_features_predict_the_training_prior():
    y = np.array(["a", "b", "b", "c", "b", "a"])
    clf = PriorFallbackClassifier(KNeighborsClassifier(1)).fit(np.empty((6, 0)), y)
    assert clf.used_prior_ and clf.n_features_in_ == 0
    assert clf.predict(np.empty((3, 0))).tolist() == ["b", "b", "b"]
    np.testing.assert_allclose(clf.predict_proba(np.empty((1, 0))), [[2 / 6, 3 / 6, 1 / 6]])
    with pytest.raises(ValueError, match="features"):
        clf.predict(np.zeros((2, 1)))


def test_with_features_it_is_the_wrapped_classifier():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 3))
    y = (X[:, 0] > 0).astype(int)
    clf = PriorFallbackClassifier(KNeighborsClassifier(3)).fit(X, y)
    ref = KNeighborsClassifier(3).fit(X, y)
    assert not clf.used_prior_ and not isinstance(clf.estimator_, DummyClassifier)
    Xq = rng.normal(size=(10, 3))
    np.testing.assert_array_equal(clf.predict(Xq), ref.predict(Xq))
    np.testing.assert_allclose(clf.predict_proba(Xq), ref.predict_proba(Xq))


def test_zero_samples_are_still_rejected():
    # The one documented departure from scikit-learn's checks concerns zero *features*.
    with pytest.raises(ValueError, match=r"0 sample\(s\)"):
        PriorFallbackClassifier().fit(np.empty((0, 3)), [])
