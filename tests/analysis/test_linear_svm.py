"""The comparison's linear SVM on its Gram matrix against scikit-learn's linear-kernel SVC."""

import numpy as np
import pytest
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC
from sklearn.utils.estimator_checks import check_estimator

from widefs.analysis import _linear_svm
from widefs.analysis._linear_svm import GramLinearSVC

NUMPY1 = np.lib.NumpyVersion(np.__version__) < "2.0.0"


def _same(got, want, dtype):
    """Bit for bit; on numpy 1, scikit-learn's float32 standardization rounds at float32
    precision, the blocks' in float64: equal to float32 rounding."""
    if dtype is np.float32 and NUMPY1:
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-7)
    else:
        np.testing.assert_array_equal(got, want)


def _data(n_classes, dtype, seed=0, n=40, p=300):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % n_classes
    X = rng.normal(size=(n, p))
    X[:, :5] += y[:, None]
    X[:, 7] = 3.0  # a constant feature: StandardScaler's scale of 1
    return X.astype(dtype), y


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("C", [0.01, 1.0])
def test_same_svm_as_the_linear_kernel(n_classes, dtype, C, monkeypatch):
    # Blocks smaller than the features: the Gram product is summed over several blocks.
    # numpy 1 rounds float32 reductions at float32 precision, the blocks' sums in float64.
    rtol = 1e-5 if dtype is np.float32 and NUMPY1 else 1e-9
    monkeypatch.setattr(_linear_svm, "_BLOCK", 64)
    X, y = _data(n_classes, dtype)
    train, test = np.arange(30), np.arange(30, 40)
    ours = GramLinearSVC(C=C).fit(X[train], y[train])
    ref = make_pipeline(StandardScaler(), SVC(kernel="linear", C=C)).fit(X[train], y[train])
    np.testing.assert_array_equal(ours.svc_.support_, ref[-1].support_)
    atol = 1e-7 if rtol > 1e-9 else 1e-12
    np.testing.assert_allclose(ours.svc_.dual_coef_, ref[-1].dual_coef_, rtol=rtol, atol=atol)
    np.testing.assert_allclose(
        ours.decision_function(X[test]), ref.decision_function(X[test]), rtol=rtol, atol=atol
    )
    np.testing.assert_array_equal(ours.predict(X[test]), ref.predict(X[test]))
    np.testing.assert_array_equal(ours.classes_, ref.classes_)


def test_gram_blocks_sum_to_the_product():
    rng = np.random.default_rng(1)
    A, B = rng.normal(size=(5, 20_000)).astype(np.float32), rng.normal(size=(3, 20_000))
    np.testing.assert_allclose(
        _linear_svm._gram(A, B), A.astype(np.float64) @ B.T, rtol=1e-12, atol=1e-9
    )


def test_string_labels_and_refusals():
    X, y = _data(2, np.float64)
    labels = np.array(["tumour", "normal"])[y]
    fitted = GramLinearSVC(C=1.0).fit(X, labels)
    assert set(fitted.predict(X)) <= {"tumour", "normal"}
    with pytest.raises(ValueError, match="features"):
        fitted.predict(X[:, :10])
    with pytest.raises(ValueError, match="continuous"):
        GramLinearSVC().fit(X, np.linspace(0, 1, len(X)))


def test_scikit_learn_estimator_checks():
    check_estimator(GramLinearSVC())


def _whole_matrix_svm(Xtr, ytr, Xte, C):
    """The SVM as fitted on the whole standardized matrix (before the blocks): its dual
    coefficients and test decision values."""
    scaler = StandardScaler().fit(Xtr)
    A = scaler.transform(Xtr)
    svc = SVC(kernel="precomputed", C=C).fit(_linear_svm._gram(A, A), ytr)
    K = np.zeros((Xte.shape[0], svc.shape_fit_[0]))
    K[:, svc.support_] = _linear_svm._gram(scaler.transform(Xte), A[svc.support_])
    return svc.dual_coef_, svc.decision_function(K)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("block", [64, 8192])
def test_blocks_and_rows_in_place_give_the_whole_matrix_floats(dtype, block, monkeypatch):
    """Standardized a block at a time, from the rows of the whole matrix or from a copy of
    them: the same dual coefficients and decision values, bit for bit, as the SVM fitted on
    the whole standardized matrix; the support vectors are its standardized rows."""
    monkeypatch.setattr(_linear_svm, "_BLOCK", block)
    X, y = _data(2, dtype, seed=4)
    rng = np.random.default_rng(4)
    train = np.sort(rng.choice(40, 30, replace=False))
    test = np.setdiff1d(np.arange(40), train)
    dual, decision = _whole_matrix_svm(X[train], y[train], X[test], 0.01)
    copied = GramLinearSVC(C=0.01).fit(X[train], y[train])
    in_place = GramLinearSVC(C=0.01)._fit_rows(X, y[train], train)
    for fitted in (copied, in_place):
        _same(fitted.svc_.dual_coef_, dual, dtype)
        _same(fitted.svc_.decision_function(fitted._kernel(X, test)), decision, dtype)
        _same(
            fitted.support_vectors_,
            StandardScaler().fit(X[train]).transform(X[train])[fitted.svc_.support_],
            dtype,
        )
    _same(copied.decision_function(X[test]), decision, dtype)
    np.testing.assert_array_equal(in_place._predict_rows(X, test), copied.predict(X[test]))
    X[train] += 1.0  # the caller's matrix changes: the copying fit keeps its support vectors
    _same(copied.decision_function(X[test]), decision, dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_nested_folds_in_place_give_the_copies_results(dtype, monkeypatch):
    """The comparison's folds read their rows of the whole matrix: the same fold scores and
    predictions as folds that copy their training rows."""
    from widefs.model_selection import _nested, nested_evaluate

    monkeypatch.setattr(_linear_svm, "_BLOCK", 64)
    X, y = _data(3, dtype, seed=6, n=45)
    in_place = nested_evaluate(GramLinearSVC(C=0.01), X, y, cv=3, n_repeats=2, random_state=0)
    assert _nested._rows_fit(GramLinearSVC(), X)
    monkeypatch.setattr(_nested, "_rows_fit", lambda estimator, X: False)
    copied = nested_evaluate(GramLinearSVC(C=0.01), X, y, cv=3, n_repeats=2, random_state=0)
    np.testing.assert_array_equal(in_place["test_score"], copied["test_score"])
    np.testing.assert_array_equal(in_place["predictions"], copied["predictions"])
