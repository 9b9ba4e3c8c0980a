"""Out-of-core and parallel scoring give exactly the in-memory, serial result."""

import numpy as np
import pytest
from joblib import parallel_config

from widefs._utils import block_width
from widefs.univariate import DiscriminativeSelector

# The deprecated continuous statistics of DiscriminativeSelector are still tested here.
pytestmark = pytest.mark.filterwarnings("ignore:DiscriminativeSelector.*deprecated:FutureWarning")


@pytest.fixture(scope="module")
def wide():
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1], 20)
    X = rng.normal(size=(40, 3000)).astype(np.float32)
    X[:, :20] += 1.5 * y[:, None]
    X[:, 5] = 2.0  # constant
    return X, y


def fitted(X, y, **kw):
    return DiscriminativeSelector(random_state=0, **kw).fit(X, y)


@pytest.fixture(scope="module")
def reference(wide):
    return fitted(*wide)


def assert_same(a, b):
    np.testing.assert_array_equal(a.n_errors_, b.n_errors_)
    np.testing.assert_array_equal(a.get_support(), b.get_support())
    np.testing.assert_array_equal(a.constant_features_, b.constant_features_)
    assert a.threshold_ == b.threshold_


@pytest.mark.parametrize("n_jobs", [1, 2, 3])
def test_n_jobs_invariance(wide, reference, n_jobs):
    assert_same(fitted(*wide, n_jobs=n_jobs), reference)


@pytest.mark.parametrize("backend", ["loky", "threading"])
def test_backend_invariance(wide, reference, backend):
    with parallel_config(backend=backend, n_jobs=2):
        assert_same(fitted(*wide, n_jobs=2), reference)


def test_memmap_in_small_blocks(tmp_path, wide, reference, monkeypatch):
    X, y = wide
    path = tmp_path / "X.f32"
    mm = np.memmap(path, dtype=np.float32, mode="w+", shape=X.shape)
    mm[:] = X
    mm.flush()
    ro = np.memmap(path, dtype=np.float32, mode="r", shape=X.shape)
    # Force many blocks: 40 rows x 8 bytes x 128 columns per block.
    monkeypatch.setattr("widefs.univariate._error_counts.block_width", lambda n: 128)
    sel = fitted(ro, y)
    assert_same(sel, reference)
    np.testing.assert_array_equal(sel.transform(ro), X[:, reference.get_support()].astype(float))


def test_dask_array(wide, reference):
    da = pytest.importorskip("dask.array")
    X, y = wide
    dX = da.from_array(X, chunks=(40, 500))
    sel = fitted(dX, y)
    assert_same(sel, reference)
    assert sel.transform(dX).shape == (40, int(reference.get_support().sum()))


def test_zarr_array(tmp_path, wide, reference):
    zarr = pytest.importorskip("zarr")
    X, y = wide
    z = zarr.create_array(
        store=str(tmp_path / "X.zarr"), shape=X.shape, chunks=(40, 256), dtype="f4"
    )
    z[:] = X
    assert_same(fitted(z, y), reference)


def test_lazy_input_rejects_nan_and_bad_shapes(tmp_path, wide):
    X, y = wide
    bad = X.copy()
    bad[3, 100] = np.nan
    path = tmp_path / "bad.f32"
    mm = np.memmap(path, dtype=np.float32, mode="w+", shape=X.shape)
    mm[:] = bad
    with pytest.raises(ValueError, match="NaN or infinity"):
        fitted(mm, y)
    with pytest.raises(ValueError, match="40 rows and y 39 labels"):
        fitted(mm, y[:-1])


def test_block_width_bounds_memory():
    assert block_width(100, 8) * 100 * 8 <= 4 * 2**20


# The permutation null: permutations drawn in the parent, reduced block by block.


def fitted_null(X, y, **kw):
    return DiscriminativeSelector(
        "mgm", null="permutation", n_permutations=60, random_state=0, **kw
    ).fit(X, y)


@pytest.fixture(scope="module")
def null_reference(wide):
    return fitted_null(*wide)


def assert_same_null(a, b):
    assert_same(a, b)
    np.testing.assert_array_equal(a.permutations_, b.permutations_)
    np.testing.assert_array_equal(a.null_min_errors_, b.null_min_errors_)
    np.testing.assert_array_equal(a.pvalues_, b.pvalues_)
    assert a.expected_errors_ == b.expected_errors_
    assert a.expected_min_errors_ == b.expected_min_errors_


@pytest.mark.parametrize("n_jobs", [2, 3])
def test_permutation_null_n_jobs_invariance(wide, null_reference, n_jobs):
    assert_same_null(fitted_null(*wide, n_jobs=n_jobs), null_reference)


def test_permutation_null_memmap_dask_zarr(tmp_path, wide, null_reference, monkeypatch):
    X, y = wide
    path = tmp_path / "X.f32"
    mm = np.memmap(path, dtype=np.float32, mode="w+", shape=X.shape)
    mm[:] = X
    mm.flush()
    monkeypatch.setattr("widefs.univariate._error_counts.block_width", lambda n: 128)
    assert_same_null(
        fitted_null(np.memmap(path, np.float32, "r", shape=X.shape), y), null_reference
    )
    # Sub-blocks of the null reduction smaller than a block: the same answer again.
    monkeypatch.setattr("widefs.univariate._error_counts.DEFAULT_BLOCK_BYTES", 8 * 60 * 7)
    da = pytest.importorskip("dask.array")
    assert_same_null(fitted_null(da.from_array(X, chunks=(40, 500)), y), null_reference)
    zarr = pytest.importorskip("zarr")
    z = zarr.create_array(
        store=str(tmp_path / "X.zarr"), shape=X.shape, chunks=(40, 256), dtype="f4"
    )
    z[:] = X
    assert_same_null(fitted_null(z, y), null_reference)
