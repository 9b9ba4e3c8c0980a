"""Compile options shared by the numba kernels of every widefs package.

Every fresh install compiles the kernels a run uses once (later runs load them from numba's
cache), so what numba builds beside a kernel's own code costs every new user time. By default
numba also builds, for every compiled function, a C-callable wrapper (for first-class
function use, which widefs never makes) and a CPython wrapper (for calls from Python). Each
costs about as much to compile as a small kernel.
"""

__all__ = ["HELPER_JIT_OPTIONS", "KERNEL_JIT_OPTIONS"]

#: Options of a kernel called from Python: cached on disk, releases the GIL (threads run
#: kernels in parallel), no C-callable wrapper.
KERNEL_JIT_OPTIONS = {"cache": True, "nogil": True, "no_cfunc_wrapper": True}

#: Options of a helper only compiled code calls: also no CPython wrapper. Python must never
#: call such a helper (there is no entry point for it: the call would crash the
#: interpreter); tests reach one through a compiled caller.
HELPER_JIT_OPTIONS = {**KERNEL_JIT_OPTIONS, "no_cpython_wrapper": True}
