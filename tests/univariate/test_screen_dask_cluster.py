"""ClassDifferenceScreen on a dask array read by a multi-process Dask cluster: the same fit.

The cluster's workers read and decode the zarr store's chunks; the screen's arithmetic runs
in the client on the blocks they return, so every fitted attribute equals the one-process
fit on the zarr array and the in-memory fit, bit for bit.
"""

import numpy as np
import pytest

pytest.importorskip("distributed")
zarr = pytest.importorskip("zarr")
da = pytest.importorskip("dask.array")

from widefs.univariate import ClassDifferenceScreen  # noqa: E402

from .screen_attrs import FITTED  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore")


def _data():
    rng = np.random.default_rng(11)
    y = np.repeat([0, 1], [16, 18])
    n = y.size
    X = np.column_stack(
        [
            rng.normal(size=(n, 1500)),
            rng.lognormal(size=(n, 150)),
            (rng.random((n, 200)) < 0.25).astype(float),
            np.zeros((n, 2)),
        ]
    ).astype(np.float32)
    X[:, :12] += np.float32(1.5) * y[:, None]
    X[:, 1500:1505] *= np.where(y == 1, 3.0, 1.0).astype(np.float32)[:, None]
    return X, y


@pytest.fixture(scope="module")
def client():
    from distributed import Client, LocalCluster

    cluster = LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=None,
    )
    with Client(cluster) as c:
        yield c
    cluster.close()


def test_cluster_fit_equals_the_one_process_fit(tmp_path, client, monkeypatch):
    # Blocks of 96 columns (34 rows x 8 bytes): many tasks, a ragged last one.
    monkeypatch.setattr("widefs.univariate._kinds._BLOCK_BYTES", 34 * 8 * 96)
    X, y = _data()
    z = zarr.create_array(
        store=str(tmp_path / "X.zarr"), shape=X.shape, chunks=(X.shape[0], 128), dtype="f4"
    )
    z[:] = X
    ref = ClassDifferenceScreen(random_state=2).fit(X, y)
    one = ClassDifferenceScreen(random_state=2).fit(z, y)
    assert len(client.scheduler_info()["workers"]) == 2
    lazy = da.from_zarr(z)
    cluster = ClassDifferenceScreen(random_state=2).fit(lazy, y)
    assert ref.kind_counts_["ranked"] > 0 and ref.kind_counts_["two_valued"] > 0
    assert ref.support_[:12].sum() >= 8
    for other in (one, cluster):
        for name in FITTED:
            np.testing.assert_array_equal(getattr(other, name), getattr(ref, name), err_msg=name)
        assert other.prior_ == ref.prior_ and other.threshold_ == ref.threshold_
    # The cluster did the reading: the scheduler ran the dask array's chunk tasks.
    prefixes = client.run_on_scheduler(lambda dask_scheduler: list(dask_scheduler.task_prefixes))
    assert any("zarr" in str(k) for k in prefixes), prefixes
