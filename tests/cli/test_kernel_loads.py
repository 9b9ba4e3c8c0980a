"""``widefs run`` loads numba's cached kernels without numba's compiler tables."""

import json
import os
import subprocess
import sys

import numba.core.caching
import pytest

# A cached kernel that allocates (numba's runtime must be up to run it).
KERNEL = """
import numba
import numpy as np


@numba.njit(cache=True)
def doubled(n):
    return np.arange(n) * 2.0
"""

# Loads the kernel from the cache filled by a first process; counts numba's context refreshes
# for the cached kernel, then for a kernel compiled inside the block. {before}: numba loaded
# before the block (patched where it lies) or inside it (patched as it loads).
PROBE = """
import json, sys
{before}
from widefs.cli._kernel_loads import light_kernel_loads
with light_kernel_loads():
    import numba, numpy as np, numba.core.base as base, numba.core.caching as caching
    import kernel
    calls = []
    refresh = base.BaseContext.refresh
    base.BaseContext.refresh = lambda self: (calls.append(1), refresh(self))[1]
    loaded = kernel.doubled(4).tolist()
    after_load = len(calls)

    @numba.njit
    def tripled(n):
        return np.arange(n) * 3.0

    compiled = tripled(3).tolist()
    after_compile = len(calls)
    patched = caching.Cache.load_overload.__module__
print(json.dumps({{
    "loaded": loaded, "hits": sum(kernel.doubled.stats.cache_hits.values()),
    "after_load": after_load, "compiled": compiled, "after_compile": after_compile,
    "patched": patched, "restored": caching.Cache.load_overload.__module__,
    "again": kernel.doubled(2).tolist(),
}}))
"""


@pytest.fixture(scope="module")
def filled(tmp_path_factory):
    """A module with a cached kernel and a numba cache holding it (one first process)."""
    where = tmp_path_factory.mktemp("kernel")
    (where / "kernel.py").write_text(KERNEL)
    env = {
        **os.environ,
        "NUMBA_CACHE_DIR": str(where / "cache"),
        "PYTHONPATH": os.pathsep.join([str(where), os.environ.get("PYTHONPATH", "")]),
    }
    fill = "import kernel; kernel.doubled(1)"
    subprocess.run([sys.executable, "-c", fill], env=env, check=True, timeout=300)
    return env


@pytest.mark.parametrize("before", ["", "import numba"])
def test_a_cached_kernel_loads_without_the_compiler_tables(filled, before):
    out = subprocess.run(
        [sys.executable, "-c", PROBE.format(before=before)],
        env=filled,
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    seen = json.loads(out.stdout.strip().splitlines()[-1])
    assert seen["loaded"] == [0.0, 2.0, 4.0, 6.0] and seen["hits"] == 1  # from the cache
    assert seen["after_load"] == 0  # no refresh to load it
    assert seen["compiled"] == [0.0, 3.0, 6.0] and seen["after_compile"] >= 1  # compiling: all
    assert seen["patched"] == "widefs.cli._kernel_loads"
    assert seen["restored"] == "numba.core.caching" and seen["again"] == [0.0, 2.0]


def test_a_run_loads_kernels_inside_the_block(monkeypatch):
    from widefs.cli import _main

    during = []

    def report(args, console, keep):
        during.append(numba.core.caching.Cache.load_overload.__module__)
        return 0

    monkeypatch.setattr(_main, "_report", report)
    assert _main._run(None, None) == 0
    assert during == ["widefs.cli._kernel_loads"]
    assert numba.core.caching.Cache.load_overload.__module__ == "numba.core.caching"
