"""widefs on a real Dask cluster (LocalCluster on loopback) through joblib's dask backend."""

import numpy as np
import pytest
from joblib import parallel_config
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline

distributed = pytest.importorskip(
    "distributed", reason="the [dask] extra (dask, distributed) is not installed"
)

from widefs.model_selection import nested_evaluate  # noqa: E402
from widefs.univariate import DiscriminativeSelector  # noqa: E402


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, host="127.0.0.1", dashboard_address=None, processes=True
    )
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(7)
    y = np.repeat([0, 1], 25)
    X = rng.normal(size=(50, 4000))
    X[:, :10] += 1.2 * y[:, None]
    return X, y


def test_selector_on_dask_matches_serial(client, data):
    X, y = data
    serial = DiscriminativeSelector(random_state=3).fit(X, y)
    with parallel_config(backend="dask"):
        remote = DiscriminativeSelector(random_state=3, n_jobs=4).fit(X, y)
    np.testing.assert_array_equal(serial.n_errors_, remote.n_errors_)
    np.testing.assert_array_equal(serial.get_support(), remote.get_support())
    assert len(client.scheduler_info()["workers"]) == 2


def test_nested_evaluate_on_dask_matches_serial(client, data):
    X, y = data
    model = make_pipeline(DiscriminativeSelector(random_state=0), GaussianNB())
    serial = nested_evaluate(model, X, y, cv=5, random_state=1)
    with parallel_config(backend="dask"):
        remote = nested_evaluate(model, X, y, cv=5, random_state=1, n_jobs=5)
    np.testing.assert_array_equal(serial["test_score"], remote["test_score"])
    np.testing.assert_array_equal(serial["selection_frequency"], remote["selection_frequency"])
