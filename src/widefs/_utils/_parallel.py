"""Process-parallel calls whose warnings behave as if the calls had run in the caller.

A joblib worker process starts with the default warning filters and prints what it warns to
its own stderr: a caller's ``warnings.catch_warnings()`` neither silences nor records it (a
``widefs run --jobs 2`` printed 69 raw warnings that ``--jobs 1`` summarises in one table).
:func:`parallel_calls` runs each call under the caller's filters, records what passes them
and re-issues it in the caller, in call order, where the caller's filters and recorders see it.
"""

from __future__ import annotations

import functools
import sys
import warnings
from collections.abc import Callable, Iterable, Sequence

__all__ = ["parallel_calls"]


def _filters() -> list:
    # Python >= 3.14 keeps the filters of a catch_warnings block in a context variable.
    get = getattr(warnings, "_get_filters", None)
    return list(get() if get is not None else warnings.filters)


def release_free_memory() -> None:
    """Give the C heap's free pages back to the system (glibc's ``malloc_trim``; elsewhere
    nothing), when the heap holds at least :data:`_TRIM_ABOVE` bytes free; and those of
    pyarrow's pool when pyarrow is loaded with an allocator of its own (mimalloc, jemalloc).

    A worker process that freed a fold's arrays keeps their pages otherwise: glibc raises
    its threshold for mapping large blocks after freeing one, so later arrays of up to 32 MB
    come from the heap, whose free pages stay resident (and counted) until trimmed. The
    pages of a file read by pyarrow stay in its allocator's pool likewise (about 0.1 KB per
    column of a wide CSV).
    """
    arrow = sys.modules.get("pyarrow")
    if arrow is not None:
        pool = arrow.default_memory_pool()
        # The system pool's pages are the C heap's, trimmed below; its release_unused is a
        # glibc malloc_trim(0) at every call, whatever the heap holds free.
        if pool.backend_name != "system":
            pool.release_unused()
    trim, free_bytes = _malloc_trim(), _heap_free_bytes()
    if trim is not None and (free_bytes is None or free_bytes() >= _TRIM_ABOVE):
        trim(0)


# A trim walks the whole heap (~0.5 ms), and the next arrays fault the pages it gave back in
# again (on colon, trimming after every fold tripled the run's system time). With less free
# than glibc's largest mapping threshold (32 MiB; larger blocks are mapped, and unmapped when
# freed) it gives back at most about one array's pages: small data skips it.
_TRIM_ABOVE = 32 * 2**20


@functools.cache
def _glibc(name: str):
    """glibc's function ``name`` (looked up once), or None where there is none."""
    try:
        import ctypes

        return getattr(ctypes.CDLL("libc.so.6"), name)
    except (OSError, AttributeError):
        return None


def _malloc_trim():
    return _glibc("malloc_trim")


@functools.cache
def _heap_free_bytes():
    """A function returning the free bytes of glibc's heaps (``mallinfo2``, glibc >= 2.33,
    ~15 us), or ``None`` where there is none."""
    info = _glibc("mallinfo2")
    if info is None:
        return None
    import ctypes

    class _Info(ctypes.Structure):  # struct mallinfo2 (malloc.h): ten size_t fields
        _fields_ = [(name, ctypes.c_size_t) for name in _MALLINFO2]

    info.restype = _Info
    return lambda: info().fordblks


_MALLINFO2 = (
    "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks",
    "fordblks", "keepcost",
)  # fmt: skip


def _call_recording(filters: list, fn: Callable, args: Sequence):
    with warnings.catch_warnings(record=True) as caught:
        warnings.filters[:] = filters
        result = fn(*args)
    release_free_memory()  # between tasks, a worker holds only what it keeps
    return result, [(str(w.message), w.category, w.filename, w.lineno) for w in caught]


def parallel_calls(
    fn: Callable, arg_tuples: Iterable[Sequence], *, n_jobs: int | None = None, **parallel_kwargs
) -> list:
    """``[fn(*args) for args in arg_tuples]`` on ``n_jobs`` joblib workers.

    Each call runs under the caller's warning filters; the warnings that pass them are
    re-issued in the caller after the calls (in call order), so ``catch_warnings`` blocks and
    filters of the caller apply to them as to a sequential run.

    Parameters
    ----------
    fn : callable
        A picklable function.
    arg_tuples : iterable of sequences
        The positional arguments of each call.
    n_jobs : int or None, default=None
        As in :class:`joblib.Parallel` (None: one, or the active ``parallel_config``).
    **parallel_kwargs
        Passed to :class:`joblib.Parallel` (e.g. ``backend``).

    Returns
    -------
    list
        The results, in the order of ``arg_tuples``.

    See Also
    --------
    joblib.Parallel : What runs the calls.

    Examples
    --------
    >>> import warnings
    >>> def half(x):
    ...     if x % 2:
    ...         warnings.warn(f"{x} is odd")
    ...     return x / 2
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     parallel_calls(half, [(2,), (3,)], n_jobs=1)
    [1.0, 1.5]
    >>> [str(w.message) for w in caught]
    ['3 is odd']
    """
    from joblib import Parallel, delayed

    filters = _filters()
    outputs = Parallel(n_jobs=n_jobs, **parallel_kwargs)(
        delayed(_call_recording)(filters, fn, args) for args in arg_tuples
    )
    results = []
    for result, caught in outputs:
        for message, category, filename, lineno in caught:
            warnings.warn_explicit(message, category, filename, lineno)
        results.append(result)
    return results
