"""Kernels loaded from numba's cache without numba's compiler tables, while ``widefs run`` runs.

Before it loads a cached kernel, numba refreshes its target context: it imports and registers
every typing and lowering table its compiler has (``numba.np.linalg``, ``numba.cpython.*``,
cffi's C parser, ...): ~0.37 s CPU in a fresh process; ~0.2 s of a warm colon run (importing
the kernel modules and loading its kernels: 0.47 -> 0.25 s with scikit-learn, scipy and
pandas loaded). Running compiled code needs none of it, only numba's runtime (NRT, which
allocates arrays) initialized. Inside :func:`light_kernel_loads`, a cached kernel loads with
the runtime initialized only; a kernel that has to be compiled (a first run, a new
signature) still gets every table, since numba's compiler refreshes the context itself
before typing. The original is put back at the block's end. A ``numba`` loaded before the
block is patched too: a kernel loads at its first call (or at import, given signatures).
"""

from __future__ import annotations

import contextlib

from widefs.cli._as_loaded import replaced_as_loaded

__all__ = ["light_kernel_loads"]


def _load_overload(self, sig, target_context):
    """numba's ``Cache.load_overload`` without ``target_context.refresh()`` (see the module's
    docstring); numba's own body otherwise."""
    from numba.core.runtime import rtsys

    rtsys.initialize(target_context)
    with self._guard_against_spurious_io_errors():
        return self._load_overload(sig, target_context)


_REPLACED = {"numba.core.caching": [("Cache.load_overload", _load_overload)]}


@contextlib.contextmanager
def light_kernel_loads():
    """Within the block, kernels found in numba's cache load without the compiler's tables."""
    with replaced_as_loaded(_REPLACED, loaded_too=True):
        yield
