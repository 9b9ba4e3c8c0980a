"""Session-wide test settings."""


def pytest_sessionfinish(session, exitstatus):
    """Shut joblib's reusable process pool down when the session ends.

    A process forked after the session (mutmut forks one per mutant from the process that
    ran the tests, benchmarks/mutation.py) would otherwise inherit a pool whose managing
    threads did not survive the fork, and its first parallel call would hang.
    """
    from joblib.externals.loky import get_reusable_executor

    get_reusable_executor().shutdown(wait=True)
