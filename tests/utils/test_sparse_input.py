"""scipy sparse input: the screen, the SCMs and the stump kernel read it a block of columns at
a time and give exactly what the dense matrix gives; every other public estimator and
function either does too or refuses it in one line naming itself."""

import importlib.util
import pathlib
import traceback
import tracemalloc
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from widefs._utils import (
    ComputedColumns,
    column_major,
    column_min_max,
    is_lazy_matrix,
    is_sparse_matrix,
    load_columns,
    refuse_sparse,
)
from widefs.scm import OccamSCM, PACBayesSCM, SampleCompressionSCM
from widefs.stats import looks_like_counts, voom
from widefs.stumps import SortedFeatures, fit_error_stumps, predict_stumps
from widefs.univariate import ClassDifferenceScreen, DiscriminativeSelector

FORMATS = [sp.csr_matrix, sp.csc_matrix, sp.csr_array, sp.csc_array, sp.coo_matrix]
SCREEN_FITTED = (
    "pvalues_",
    "min_pvalues_",
    "kinds_",
    "location_statistics_",
    "spread_statistics_",
    "support_",
    "testable_",
)


def with_explicit_zeros(X):
    """CSR of X that also stores a third of its zeros explicitly."""
    rows, cols = np.nonzero(X != 0)
    zr, zc = np.nonzero(X == 0)
    r = np.r_[rows, zr[::3]]
    c = np.r_[cols, zc[::3]]
    B = sp.coo_matrix((X[r, c], (r, c)), shape=X.shape).tocsr()
    assert B.nnz > np.count_nonzero(X) and np.array_equal(B.toarray(), X)
    return B


def mixed_matrix(n=40, m=240, seed=0):
    """Zero-inflated, Gaussian, two-valued, constant (all-zero) and counts-like columns."""
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1], n // 2)
    X = rng.normal(size=(n, m))
    X[rng.random((n, m)) < 0.6] = 0.0  # ranked: tied at zero
    X[:, :40] = rng.normal(size=(n, 40)) + 0.8 * y[:, None]  # gaussian
    X[:, 40:60] = rng.random((n, 20)) < 0.3  # two-valued
    X[y == 1, 40:45] = 1.0
    X[:, 60:65] = 0.0  # constant: all zero
    X[:, 65:70] = rng.poisson(3.0, size=(n, 5))
    return X, y


def counts_matrix(n=24, m=300, seed=1):
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1, 2], n // 3)
    X = rng.poisson(rng.gamma(0.4, 400, size=m), size=(n, m)).astype(float)
    X[y == 1, :8] *= 4
    X[:, 10:14] = 0.0  # genes never seen
    return X, y


def assert_same_screen(a, b):
    for name in SCREEN_FITTED:
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)
    assert a.counts_ == b.counts_ and a.kind_counts_ == b.kind_counts_


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_screen_identical_on_sparse_formats(dtype):
    X, y = mixed_matrix()
    X = X.astype(dtype)
    dense = ClassDifferenceScreen(random_state=0).fit(X, y)
    kinds = dense.kind_counts_
    assert min(kinds["gaussian"], kinds["ranked"], kinds["two_valued"], kinds["constant"]) > 0
    for fmt in FORMATS:
        assert_same_screen(dense, ClassDifferenceScreen(random_state=0).fit(fmt(X), y))
    assert_same_screen(dense, ClassDifferenceScreen(random_state=0).fit(with_explicit_zeros(X), y))
    kept = dense.transform(X)
    np.testing.assert_array_equal(dense.transform(sp.csr_matrix(X)), kept)


def test_screen_identical_on_sparse_counts():
    X, y = counts_matrix()
    dense = ClassDifferenceScreen(random_state=0).fit(X, y)
    assert dense.counts_ and dense.kind_counts_["constant"] >= 4
    for fmt in [*FORMATS, with_explicit_zeros]:
        assert_same_screen(dense, ClassDifferenceScreen(random_state=0).fit(fmt(X), y))
    forced = ClassDifferenceScreen(counts=False, random_state=0)
    assert_same_screen(forced.fit(X, y), clone_fit(forced, sp.csr_matrix(X), y))


def clone_fit(est, X, y):
    from sklearn.base import clone

    return clone(est).fit(X, y)


@pytest.mark.parametrize(
    "X",
    [
        np.array([[0, 3, 1500], [2, 0, 0]]),  # counts
        np.array([[0, 3, 99], [2, 0, 0]]),  # below the range
        np.array([[0, 3.5, 1500], [2, 0, 0]]),  # not whole
        np.array([[0, -3, 1500], [2, 0, 0]]),  # negative
        np.array([[1, 3, 1500], [2, 4, 5]]),  # no zero: every value stored, none 0
        np.array([[0, 3, 1500], [2, 4, 5]]),  # one stored zero, no implicit one
        np.array([[0.0, 0.0], [0.0, 0.0]]),  # nothing stored
        np.array([[0, np.inf, 1500], [2, 0, 0]]),  # infinite
    ],
)
def test_looks_like_counts_reads_the_stored_values_as_dense(X):
    for fmt in FORMATS:
        assert looks_like_counts(fmt(X)) == looks_like_counts(X)


def test_looks_like_counts_sees_stored_and_implicit_zeros():
    X = np.array([[0.0, 3.0, 1500.0], [2.0, 4.0, 5.0]])
    every = sp.csr_matrix((X.ravel(), np.tile([0, 1, 2], 2), [0, 3, 6]), shape=X.shape)
    assert every.nnz == X.size and looks_like_counts(every) and looks_like_counts(X)
    assert looks_like_counts(sp.csr_matrix(X)) and not looks_like_counts(sp.csr_matrix(X + 1))
    # Repeated entries are summed, as densifying does: 0.5 + 0.5 is a whole count.
    halves = sp.coo_matrix(([0.5, 0.5, 1500.0], ([0, 0, 1], [0, 0, 1])), shape=(2, 2))
    assert looks_like_counts(halves) == looks_like_counts(halves.toarray()) is True


def test_voom_on_sparse_is_the_dense_voom_block_by_block():
    X, y = counts_matrix()
    design = np.column_stack([np.ones(y.size), y == 1, y == 2]).astype(float)
    log_cpm, weights = voom(X, design)
    slog, sweights = voom(sp.csr_matrix(X), design)
    assert is_lazy_matrix(slog) and is_lazy_matrix(sweights)  # never dense whole
    cols = slice(3, 200)
    np.testing.assert_array_equal(load_columns(slog, cols), log_cpm[:, cols])
    np.testing.assert_array_equal(load_columns(sweights, cols), weights[:, cols])
    with pytest.raises(ValueError, match="non-negative"):
        voom(sp.csr_matrix(-X), design)


@pytest.mark.parametrize("learner", [OccamSCM, PACBayesSCM, SampleCompressionSCM])
@pytest.mark.parametrize("binary", [False, True])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_scm_identical_on_sparse(learner, binary, n_classes):
    rng = np.random.default_rng(2)
    y = np.arange(60) % n_classes
    X = rng.poisson(0.5, size=(60, 150)).astype(float)
    X[y == 1, 3] += 3
    X[y == n_classes - 1, 9] += 4
    X = (X > 0).astype(float) if binary else X
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dense = learner(max_rules=4).fit(X, y)
        for fmt in (sp.csr_matrix, sp.csc_array, with_explicit_zeros):
            model = learner(max_rules=4).fit(fmt(X), y)
            assert model.to_json() == dense.to_json()
            np.testing.assert_array_equal(model.predict(fmt(X)), dense.predict(X))


def test_stump_kernel_on_sparse():
    rng = np.random.default_rng(3)
    X = rng.poisson(0.4, size=(30, 50)).astype(float)
    y = rng.integers(0, 3, 30)
    a, b = fit_error_stumps(X, y, 3), fit_error_stumps(sp.csr_matrix(X), y, 3)
    for field in ("threshold", "left_class", "right_class", "train_errors"):
        np.testing.assert_array_equal(getattr(a, field), getattr(b, field))
    np.testing.assert_array_equal(predict_stumps(sp.csr_array(X), a), predict_stumps(X, a))
    s, t = SortedFeatures.from_matrix(X), SortedFeatures.from_matrix(sp.csr_matrix(X))
    np.testing.assert_array_equal(s.order, t.order)
    np.testing.assert_array_equal(s.values, t.values)


def test_block_helpers():
    X = np.array([[0.0, -1.0, 0.0], [0.0, 2.0, 5.0], [1.0, 0.0, 0.0]])
    A = sp.coo_matrix((np.r_[1.0, -1.0, 2.0, 2.0, 3.0], ([2, 0, 1, 1, 1], [0, 1, 1, 2, 2])))
    assert np.array_equal(A.toarray(), X)  # duplicates (2 + 3 at (1, 2)) sum, as densifying
    C = column_major(A)
    assert C.format == "csc" and column_major(C) is C and column_major(X) is X
    assert is_sparse_matrix(A) and not is_sparse_matrix(X) and is_lazy_matrix(A)
    np.testing.assert_array_equal(load_columns(C, slice(1, 3)), X[:, 1:])
    np.testing.assert_array_equal(
        load_columns(A.tocsr(), np.array([2, 0]), np.float32), X[:, [2, 0]]
    )
    for M in (X, A, sp.csr_array(X)):  # the implicit zeros count
        low, high = column_min_max(M)
        np.testing.assert_array_equal(low, [0.0, -1.0, 0.0])
        np.testing.assert_array_equal(high, [1.0, 2.0, 5.0])


def test_computed_columns_are_read_in_blocks():
    class Twice(ComputedColumns):
        def columns(self, cols):
            return 2 * np.arange(12.0).reshape(3, 4)[:, cols]

    M = Twice((3, 4))
    assert is_lazy_matrix(M)
    np.testing.assert_array_equal(load_columns(M, [3, 1]), [[6, 2], [14, 10], [22, 18]])


def test_sparse_values_checked():
    X = sp.csr_matrix(np.array([[0.0, 1.0], [np.nan, 0.0], [1.0, 1.0]]))
    with pytest.raises(ValueError, match="NaN or infinity"):
        ClassDifferenceScreen().fit(X, [0, 1, 1])
    with pytest.raises(ValueError, match="numeric"):
        OccamSCM().fit(
            sp.csr_matrix(np.array([[True, False], [False, True]])).astype(complex), [0, 1]
        )


def test_screen_never_densifies_the_whole_matrix():
    # Counts 1,000 x 20,000 at 1% non-zero: dense float64 is 160 MB, the CSR about 2.4 MB.
    rng = np.random.default_rng(4)
    n, m = 1_000, 20_000
    X = sp.random(n, m, density=0.01, format="csr", random_state=rng, dtype=np.float64)
    X.data = np.ceil(X.data * 2000)
    y = np.arange(n) % 2
    dense_bytes = n * m * 8
    tracemalloc.start()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            screen = ClassDifferenceScreen(random_state=0).fit(X, y)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert screen.counts_
    assert peak < dense_bytes / 2, f"peak {peak / 2**20:.0f} MiB"


# -- every public estimator and function: works on sparse or refuses in one line -----------

_COMMON = pathlib.Path(__file__).parents[1] / "test_common.py"


def _estimators():
    spec = importlib.util.spec_from_file_location("widefs_test_common", _COMMON)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.ESTIMATORS


def _walk_data():
    rng = np.random.default_rng(5)
    y = np.repeat([0, 1, 2], 10)
    X = rng.poisson(0.6, size=(30, 25)).astype(float)
    X[y == 1, :3] += 2
    return X, y


def _check_refusal(err, name):
    message = str(err.value)
    assert err.type is TypeError and "\n" not in message
    assert message.startswith(f"{name} does not take a scipy sparse X: densify it with X.toarray()")
    last = traceback.extract_tb(err.tb)[-1]
    assert last.name == "refuse_sparse"  # refused up front, not from deep inside a kernel


@pytest.mark.parametrize("estimator", _estimators(), ids=lambda e: type(e).__name__)
def test_every_estimator_takes_or_refuses_sparse(estimator):
    from sklearn.base import clone
    from sklearn.utils import get_tags

    X, y = _walk_data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if not get_tags(estimator).input_tags.sparse:
            with pytest.raises(TypeError) as err:
                clone(estimator).fit(sp.csr_matrix(X), y)
            _check_refusal(err, type(estimator).__name__)
            return
        dense = clone(estimator).fit(X, y)
        for fmt in (sp.csr_matrix, sp.csc_array):
            fitted = clone(estimator).fit(fmt(X), y)
            np.testing.assert_array_equal(fitted.get_support(), dense.get_support())
            for method in ("predict", "transform"):
                if hasattr(dense, method):
                    np.testing.assert_array_equal(
                        getattr(fitted, method)(fmt(X)), getattr(dense, method)(X)
                    )


def _function_calls():
    from widefs import model_selection, rules, stats, univariate

    _, y = _walk_data()
    n = y.size
    train = np.ones((2, n), bool)
    train[0, :5] = train[1, 5:10] = False
    design = np.column_stack([np.ones(n), y == 1, y == 2]).astype(float)
    age = np.random.default_rng(0).normal(size=(n, 1))
    return {
        "nested_evaluate": lambda A: model_selection.nested_evaluate(
            OccamSCM(max_rules=2), A, y, cv=3, random_state=0
        )["predictions"],
        "search_certificate": lambda A: (
            model_selection.search_certificate(
                ClassDifferenceScreen(random_state=0), A, y, n_permutations=3, random_state=0
            ).pvalue
        ),
        "f_scores_blockwise": lambda A: model_selection.f_scores_blockwise(A, y),
        "linear_model_fit": lambda A: stats.linear_model_fit(A, design).variances,
        "design_moderated_f": lambda A: stats.design_moderated_f(A, y).test.pvalues,
        "rules_summary": lambda A: rules.rules_summary(A, y),
        "class_difference_scores": lambda A: univariate.class_difference_scores(A, y),
        "leave_one_out_threshold_curve": lambda A: univariate.leave_one_out_threshold_curve(A, y),
        "freedman_lane_test": lambda A: stats.freedman_lane_test(A, y, covariates=age),
        "gaussian_nb_split_errors": lambda A: univariate.gaussian_nb_split_errors(
            A, y, 3, train, ~train
        ),
        "gaussian_nb_log_likelihoods": lambda A: univariate.gaussian_nb_log_likelihoods(
            A, y, 3, train, np.array([0, 5])
        ),
        "stump_split_errors": lambda A: univariate.stump_split_errors(A, y, 3, train, ~train),
    }


REFUSING = {
    "rules_summary": "CN2Classifier",
    "class_difference_scores": "class_difference_scores",
    "leave_one_out_threshold_curve": "leave_one_out_threshold_curve",
    "freedman_lane_test": "freedman_lane_test",
    "gaussian_nb_split_errors": "gaussian_nb_split_errors",
    "gaussian_nb_log_likelihoods": "gaussian_nb_log_likelihoods",
    "stump_split_errors": "stump_split_errors",
}


@pytest.mark.parametrize("name", list(_function_calls()))
def test_every_function_takes_or_refuses_sparse(name):
    call = _function_calls()[name]
    X, _ = _walk_data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if name in REFUSING:
            with pytest.raises(TypeError) as err:
                call(sp.csr_matrix(X))
            _check_refusal(err, REFUSING[name])
            return
        expected = call(X)
        got = call(sp.csr_matrix(X))
    for a, b in zip(np.atleast_1d(expected), np.atleast_1d(got), strict=True):
        np.testing.assert_array_equal(a, b)


def test_refuse_sparse_is_silent_on_dense_and_on_sparse_takers():
    refuse_sparse("anything", np.eye(2))
    refuse_sparse(ClassDifferenceScreen(), sp.csr_matrix(np.eye(2)))
    refuse_sparse(DiscriminativeSelector(), sp.csr_matrix(np.eye(2)))
    with pytest.raises(TypeError, match=r"^CN2 does not take"):
        refuse_sparse("CN2", sp.csr_array(np.eye(2)))


@pytest.mark.parametrize("counts", [False, True])
def test_screen_with_a_design_identical_on_sparse(counts):
    rng = np.random.default_rng(6)
    n, m = 40, 120
    y = np.repeat([0, 1], n // 2)
    if counts:
        X = rng.poisson(rng.gamma(0.4, 400, size=m), size=(n, m)).astype(float)
    else:
        X = rng.normal(size=(n, m))
        X[rng.random((n, m)) < 0.5] = 0.0
    X[y == 1, :5] *= 3
    designs = [
        {"groups": np.repeat(np.arange(n // 2), 2)},  # repeated samples: group means
        {"covariates": rng.normal(size=(n, 1))},
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for design in designs:
            dense = ClassDifferenceScreen(random_state=0).fit(X, y, **design)
            assert dense.counts_ == counts
            for fmt in (sp.csr_matrix, sp.csc_array):
                got = ClassDifferenceScreen(random_state=0).fit(fmt(X), y, **design)
                np.testing.assert_array_equal(got.pvalues_, dense.pvalues_)
                np.testing.assert_array_equal(got.kinds_, dense.kinds_)
