"""A plain float array skips ``validate_data`` in ``fit``: the same checks, the same model."""

import numpy as np
import pandas as pd
import pytest

import widefs.scm._base as base
from widefs.scm import OccamSCM, PACBayesSCM, SampleCompressionSCM
from widefs.scm._base import plain_float_xy


def _all():
    rng = (-8.0, 8.0)
    return [
        SampleCompressionSCM(max_rules=4),
        SampleCompressionSCM(p=2.0, max_rules=6, feature_reuse=True, select="none"),
        OccamSCM(feature_range=rng, max_rules=3),
        PACBayesSCM(feature_range=rng, max_rules=3),
    ]


def _data(seed=0, m=40, n=30, labels=("no", "yes")):
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(m, n)) * 2.0, 1)  # ties: runs of equal values
    y = np.asarray(labels)[((X[:, 2] > -0.5) & (X[:, 5] < 1.0)).astype(int)]
    return X, y


def _fitted(est, X, y, *, fast: bool, monkeypatch):
    """``est`` fitted with the fast path on, or off (every input through validate_data)."""
    with monkeypatch.context() as mp:
        if not fast:
            mp.setattr(base, "plain_float_xy", lambda X, y: False)
        return est.__class__(**est.get_params()).fit(X, y)


def _same_model(a, b, X):
    assert [str(r) for r in a.rules_] == [str(r) for r in b.rules_]
    assert [r.equivalent for r in a.rules_] == [r.equivalent for r in b.rules_]
    assert a.risk_bound_ == b.risk_bound_
    assert a.n_features_in_ == b.n_features_in_ == X.shape[1]
    assert not hasattr(a, "feature_names_in_") and not hasattr(b, "feature_names_in_")
    np.testing.assert_array_equal(a.classes_, b.classes_)
    np.testing.assert_array_equal(a.predict(X), b.predict(X))
    np.testing.assert_array_equal(a.feature_importances_, b.feature_importances_)


@pytest.mark.parametrize("est", _all(), ids=lambda e: type(e).__name__)
@pytest.mark.parametrize(
    "dtype, labels",
    [
        (np.float64, ("no", "yes")),
        (np.float32, (0, 1)),
        (np.float64, (False, True)),
        (np.float64, np.array([b"a", b"b"])),
    ],
)
def test_fast_path_fits_the_model_validate_data_fits(est, dtype, labels, monkeypatch):
    X, y = _data(labels=labels)
    X = X.astype(dtype)
    assert plain_float_xy(X, y)
    calls = []
    real = base.validate_data
    monkeypatch.setattr(base, "validate_data", lambda *a, **k: calls.append(1) or real(*a, **k))
    fast = _fitted(est, X, y, fast=True, monkeypatch=monkeypatch)
    assert calls == []  # fit did not call validate_data
    slow = _fitted(est, X, y, fast=False, monkeypatch=monkeypatch)
    assert calls == [1]
    _same_model(fast, slow, X)


def test_fast_path_three_classes_is_the_same_decision_list(monkeypatch):
    X, _ = _data(m=45)
    y = np.repeat([3, 1, 2], 15)
    fast = _fitted(SampleCompressionSCM(), X, y, fast=True, monkeypatch=monkeypatch)
    slow = _fitted(SampleCompressionSCM(), X, y, fast=False, monkeypatch=monkeypatch)
    assert len(fast.machines_) == len(slow.machines_) == 2
    for a, b in zip(fast.machines_, slow.machines_, strict=True):
        assert a.label == b.label
        assert [str(r) for r in a.machine.rules_] == [str(r) for r in b.machine.rules_]
    np.testing.assert_array_equal(fast.predict(X), slow.predict(X))


def test_refit_on_an_array_forgets_the_frame_column_names():
    X, y = _data()
    frame = pd.DataFrame(X, columns=[f"g{j}" for j in range(X.shape[1])])
    est = SampleCompressionSCM().fit(frame, y)
    assert list(est.feature_names_in_)[:2] == ["g0", "g1"]
    assert str(est.rules_[0]).startswith("g")
    est.fit(X, y)  # the fast path
    assert not hasattr(est, "feature_names_in_")
    assert str(est.rules_[0]).startswith("x")


def _plain():
    return np.arange(12.0).reshape(4, 3), np.array([0, 1, 0, 1])


@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")  # np.asmatrix
@pytest.mark.parametrize(
    "change",
    [
        lambda X, y: (np.where(X == 5.0, np.nan, X), y),  # NaN
        lambda X, y: (np.where(X == 5.0, -np.inf, X), y),  # infinity
        lambda X, y: (np.full((4, 3), 1e308), y),  # finite, but the sum overflows
        lambda X, y: (X[0], y),  # 1-D X
        lambda X, y: (X[:1], y[:1]),  # one row
        lambda X, y: (X[:, :0], y),  # no column
        lambda X, y: (X, y[:3]),  # lengths differ
        lambda X, y: (X, y[:, None]),  # y a column
        lambda X, y: (X, y.astype(float)),  # float labels (may be NaN)
        lambda X, y: (X, y.astype(object)),  # object labels
        lambda X, y: (X.tolist(), y),  # not an array
        lambda X, y: (X, y.tolist()),
        lambda X, y: (X.astype(complex), y),
        lambda X, y: (X.astype(np.int64), y),  # integers: the narrow path
        lambda X, y: (np.asmatrix(X), y),  # an ndarray subclass
    ],
)
def test_anything_else_takes_the_long_way(change):
    assert plain_float_xy(*_plain())
    assert not plain_float_xy(*change(*_plain()))


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_non_finite_values_get_scikit_learns_message(bad):
    X, y = _plain()
    X[1, 2] = bad
    with pytest.raises(ValueError, match=r"Input X contains (NaN|infinity)"):
        SampleCompressionSCM().fit(X, y)


def test_large_finite_values_are_accepted_the_long_way():
    X = np.array([[1e308, 0.0], [1e308, 1.0], [-1e308, 2.0], [1e308, 3.0]])
    y = np.array([0, 0, 1, 1])
    assert not plain_float_xy(X, y)  # the sum overflows: validate_data decides
    est = SampleCompressionSCM().fit(X, y)
    assert [str(r) for r in est.rules_] == ["x1 > 1"]
