"""ClassDifferenceScreen on a memmap or a zarr array: bit-identical to the in-memory fit."""

import numpy as np
import pytest

from widefs.univariate import ClassDifferenceScreen

from .screen_attrs import FITTED


def _mixed_float32(seed=5):
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1, 2], [14, 15, 13])
    n = y.size
    X = np.column_stack(
        [
            rng.normal(size=(n, 900)),  # gaussian
            rng.lognormal(size=(n, 120)),  # skewed: ranked
            rng.poisson(0.7, size=(n, 90)).astype(float),  # tied: ranked, in strata
            (rng.random((n, 70)) < 0.2).astype(float),  # two-valued
            np.full((n, 4), -1.5),  # constant
        ]
    ).astype(np.float32)
    X[:, :20] += np.float32(1.3) * (y[:, None] == 1)
    X[:, 900:905] *= np.where(y == 2, 4.0, 1.0).astype(np.float32)[:, None]
    return X, y


def _assert_identical(a, b):
    for name in FITTED:
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)
    assert a.prior_ == b.prior_
    assert a.threshold_ == b.threshold_


@pytest.fixture(scope="module")
def data():
    X, y = _mixed_float32()
    return X, y, ClassDifferenceScreen(random_state=3).fit(X, y)


@pytest.fixture
def small_blocks(monkeypatch):
    # Several blocks of the first pass (42 rows x 8 bytes x 300 columns), ragged at the end.
    monkeypatch.setattr("widefs.univariate._kinds._BLOCK_BYTES", 42 * 8 * 300)


def test_memmap_fit_is_bit_identical(tmp_path, data, small_blocks):
    X, y, ref = data
    path = tmp_path / "x.npy"
    mm = np.lib.format.open_memmap(path, mode="w+", dtype=np.float32, shape=X.shape)
    mm[:] = X
    mm.flush()
    lazy = ClassDifferenceScreen(random_state=3).fit(np.load(path, mmap_mode="r"), y)
    assert lazy.kind_counts_["ranked"] > 0 and lazy.kind_counts_["two_valued"] > 0
    assert lazy.spread_weight_ > 0  # the spread test is on: every branch is compared
    _assert_identical(lazy, ref)


def test_zarr_fit_is_bit_identical(tmp_path, data, small_blocks):
    zarr = pytest.importorskip("zarr")
    X, y, ref = data
    z = zarr.create_array(
        store=str(tmp_path / "X.zarr"), shape=X.shape, chunks=(X.shape[0], 256), dtype="f4"
    )
    z[:] = X
    _assert_identical(ClassDifferenceScreen(random_state=3).fit(z, y), ref)
