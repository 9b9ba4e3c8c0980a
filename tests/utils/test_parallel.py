"""parallel_calls: worker warnings obey the caller's filters and reach the caller's recorders."""

import sys
import warnings

import pytest

from widefs._utils import parallel_calls
from widefs.exceptions import HeuristicBoundWarning, NothingSelectedWarning

try:
    import cloudpickle
except ImportError:  # (joblib before 1.5 ships its own)
    from joblib.externals import cloudpickle

# Process workers receive this file's functions by value: by reference they would import it
# as "tests.utils.test_parallel", and another installed "tests" package (baycomp, of the
# bench extra, has one) shadows this tree's.
cloudpickle.register_pickle_by_value(sys.modules[__name__])


def _warn_twice(i):
    warnings.warn(f"heuristic {i}", HeuristicBoundWarning, stacklevel=2)
    warnings.warn(f"nothing {i}", NothingSelectedWarning, stacklevel=2)
    return i * i


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_worker_warnings_are_filtered_and_recorded_in_the_caller(n_jobs, capfd):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.simplefilter("ignore", HeuristicBoundWarning)
        out = parallel_calls(_warn_twice, [(i,) for i in range(4)], n_jobs=n_jobs)
    assert out == [0, 1, 4, 9]
    # The ignored category never comes back; the other comes back once per call, in order.
    assert [(w.category, str(w.message)) for w in caught] == [
        (NothingSelectedWarning, f"nothing {i}") for i in range(4)
    ]
    # Nothing was printed by the workers themselves.
    assert "Warning" not in capfd.readouterr().err


def test_errors_propagate():
    with pytest.raises(ZeroDivisionError):
        parallel_calls(lambda x: 1 / x, [(1,), (0,)], n_jobs=1)


def _rss_mb() -> float:
    from pathlib import Path

    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


def test_freed_heap_pages_are_given_back():
    """After a large array is freed glibc serves arrays up to 32 MB from its heap; freed,
    their pages stay resident until trimmed: release_free_memory gives them back."""
    import sys

    import numpy as np
    import pytest

    from widefs._utils import release_free_memory
    from widefs._utils._parallel import _malloc_trim

    if not sys.platform.startswith("linux") or _malloc_trim() is None:
        pytest.skip("glibc's malloc_trim only")
    big = np.ones(24 * 2**20 // 8)  # mapped; freeing it raises glibc's mapping threshold
    del big
    arrays = [np.ones(2**20) for _ in range(40)]  # 8 MB each, now from the heap
    before = _rss_mb()
    del arrays[::2]  # holes between kept arrays: free() alone gives nothing back
    held = _rss_mb()
    release_free_memory()
    after = _rss_mb()
    assert held > before - 40  # 160 MB freed, yet still resident
    assert after < held - 120  # given back


def test_free_memory_is_trimmed_only_from_the_threshold_or_when_unknown(monkeypatch):
    from widefs._utils import _parallel

    trims = []
    monkeypatch.setattr(_parallel, "_malloc_trim", lambda: trims.append)
    for free, trimmed in [
        (lambda: _parallel._TRIM_ABOVE - 1, False),
        (lambda: _parallel._TRIM_ABOVE, True),
        (None, True),  # no mallinfo2 (glibc < 2.33): always trim
    ]:
        trims.clear()
        monkeypatch.setattr(_parallel, "_heap_free_bytes", lambda free=free: free)
        _parallel.release_free_memory()
        assert trims == ([0] if trimmed else [])


def test_heap_free_bytes_counts_freed_heap_memory():
    import sys

    import numpy as np
    import pytest

    from widefs._utils._parallel import _heap_free_bytes

    free = _heap_free_bytes()
    if not sys.platform.startswith("linux") or free is None:
        pytest.skip("glibc's mallinfo2 only")
    big = np.ones(24 * 2**20 // 8)  # raises glibc's mapping threshold once freed
    del big
    arrays = [np.ones(2**20) for _ in range(20)]  # 8 MB each, from the heap
    before = free()
    del arrays[::2]
    assert free() >= before + 70 * 2**20  # 80 MB freed inside the heap


def test_pyarrow_pool_is_released_only_once_loaded(monkeypatch):
    """The pool of a loaded pyarrow gives its unused pages back; without pyarrow loaded
    nothing imports it."""
    import sys
    import types

    from widefs._utils import release_free_memory

    calls = []
    pool = types.SimpleNamespace(
        backend_name="mimalloc", release_unused=lambda: calls.append("released")
    )
    fake = types.SimpleNamespace(default_memory_pool=lambda: pool)
    monkeypatch.setitem(sys.modules, "pyarrow", fake)
    release_free_memory()
    assert calls == ["released"]
    monkeypatch.delitem(sys.modules, "pyarrow")
    release_free_memory()
    assert calls == ["released"] and "pyarrow" not in sys.modules


def test_pyarrow_system_pool_is_left_to_the_heap_trim(monkeypatch):
    """The system pool's release_unused is an unconditional malloc_trim(0) (on colon,
    2.5x the page faults of a run): its pages are the C heap's, trimmed from the threshold
    on like any other."""
    import sys
    import types

    from widefs._utils import _parallel

    calls, trims = [], []
    pool = types.SimpleNamespace(
        backend_name="system", release_unused=lambda: calls.append("released")
    )
    monkeypatch.setitem(
        sys.modules, "pyarrow", types.SimpleNamespace(default_memory_pool=lambda: pool)
    )
    monkeypatch.setattr(_parallel, "_malloc_trim", lambda: trims.append)
    for free, trimmed in [(_parallel._TRIM_ABOVE - 1, []), (_parallel._TRIM_ABOVE, [0])]:
        trims.clear()
        monkeypatch.setattr(_parallel, "_heap_free_bytes", lambda free=free: lambda: free)
        _parallel.release_free_memory()
        assert calls == [] and trims == trimmed
