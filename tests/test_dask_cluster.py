"""widefs on a real Dask cluster (LocalCluster on loopback) through joblib's dask backend."""

import numpy as np
import pytest
from joblib import parallel_config
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline

distributed = pytest.importorskip(
    "distributed", reason="the [dask] extra (dask, distributed) is not installed"
)

from widefs.ensemble import ClassSpecificEnsemble  # noqa: E402
from widefs.model_selection import nested_evaluate  # noqa: E402
from widefs.search import GeneticSelector, KNNEvaluator  # noqa: E402
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


def test_class_specific_ensemble_and_ga_on_dask_match_serial(client):
    rng = np.random.default_rng(11)
    y = np.repeat([0, 1, 2], 12)
    X = rng.normal(size=(36, 40))
    X[:, 0] += 2 * (y == 1)
    X[:, 1] += 2 * (y == 2)
    kw = {"selector": GeneticSelector(population_size=6, n_generations=3), "random_state": 5}
    serial = ClassSpecificEnsemble(n_jobs=1, **kw).fit(X, y)
    with parallel_config(backend="dask"):
        remote = ClassSpecificEnsemble(n_jobs=3, **kw).fit(X, y)
        ga = GeneticSelector(
            population_size=6, n_generations=3, random_state=2, evaluator=KNNEvaluator(n_jobs=2)
        ).fit(X, y)
    for c in serial.class_supports_:
        np.testing.assert_array_equal(serial.class_supports_[c], remote.class_supports_[c])
    np.testing.assert_array_equal(serial.overall_support_, remote.overall_support_)
    np.testing.assert_array_equal(serial.predict(X), remote.predict(X))
    ga_serial = GeneticSelector(population_size=6, n_generations=3, random_state=2).fit(X, y)
    np.testing.assert_array_equal(ga.support_, ga_serial.support_)
