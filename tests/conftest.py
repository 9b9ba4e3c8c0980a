"""Session-wide test settings."""

import sys

import numpy as np
import pytest


@pytest.fixture(autouse=True)
def _seed_numpy_global_state():
    """Seed numpy's global RandomState before every test.

    An estimator left at ``random_state=None`` draws from that state, so without this a
    test's outcome would depend on which tests ran before it in the same worker (pytest-xdist
    hands out tests in a different order on every run).
    """
    np.random.seed(0)  # noqa: NPY002 (the legacy global state is what random_state=None uses)


def pytest_sessionfinish(session, exitstatus):
    """Shut joblib's reusable process pool and dask's thread pools down when the session ends.

    A process forked after the session (mutmut forks one per mutant from the process that
    ran the tests, benchmarks/mutation.py) would otherwise inherit pools whose threads did
    not survive the fork, and its first parallel call (a joblib map, a dask ``compute``)
    would wait for them forever.
    """
    from joblib.externals.loky import get_reusable_executor

    get_reusable_executor().shutdown(wait=True)
    threaded = sys.modules.get("dask.threaded")
    if threaded is not None:
        with threaded.pools_lock:
            if threaded.default_pool is not None:
                threaded.default_pool.shutdown(wait=True)
                threaded.default_pool = None
            for by_size in threaded.pools.values():
                for pool in by_size.values():
                    pool.shutdown(wait=True)
            threaded.pools.clear()
