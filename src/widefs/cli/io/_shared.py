"""The data matrix moved into one mapped file for a run with worker processes.

joblib hands a worker process any array of more than a megabyte as a memory map: unless the
array already lies in a mapped file, each parallel call writes it to a new temporary file
(on a tmpfs: one more copy of the matrix in memory per call, and the time to write it). With
``--jobs`` other than 1, :func:`shared_matrix` moves a matrix of at least
:data:`SHARE_BYTES` into one such file for the run: the main process keeps a plain array
over the mapped pages (so the analysis takes the in-memory paths, as before), joblib hands
the workers that file by name, and every process reads the same pages, counted once. The
file is removed when the run ends; the mapping stays valid until the process exits.
"""

from __future__ import annotations

import os
import tempfile
from contextlib import contextmanager

import numpy as np

__all__ = ["SHARE_BYTES", "shared_matrix"]

#: Smallest matrix (bytes) moved into a mapped file: below it, copies cost little.
SHARE_BYTES = 64 * 2**20
_TMPFS = "/dev/shm"


def _folder(nbytes: int) -> str:
    """Where joblib would write it: ``JOBLIB_TEMP_FOLDER``, else a tmpfs with room."""
    folder = os.environ.get("JOBLIB_TEMP_FOLDER")
    if folder:
        return folder
    try:
        stat = os.statvfs(_TMPFS)
        if os.access(_TMPFS, os.W_OK) and stat.f_bavail * stat.f_frsize > 2 * nbytes:
            return _TMPFS
    except OSError:
        pass
    return tempfile.gettempdir()


@contextmanager
def shared_matrix(data, jobs):
    """Within the block, ``data.X`` is an array over a mapped file that workers open by name.

    Parameters
    ----------
    data : LoadedData
        Its ``X`` is replaced by an array of the same values over the mapped file (when it
        is a C-ordered numpy array of at least :data:`SHARE_BYTES`).
    jobs : int
        The run's ``--jobs``: with 1 nothing changes (no worker process).

    Yields
    ------
    data : LoadedData
        The same object.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> data = SimpleNamespace(X=np.ones((2, 3)))
    >>> with shared_matrix(data, jobs=2):  # small: left as it is
    ...     data.X.base is None
    True
    """
    X = data.X
    if (
        jobs == 1
        or os.name != "posix"
        or type(X) is not np.ndarray
        or X.nbytes < SHARE_BYTES
        or not X.flags.c_contiguous
    ):
        yield data
        return
    fd, path = tempfile.mkstemp(prefix="widefs-data-", suffix=".bin", dir=_folder(X.nbytes))
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(memoryview(X).cast("B"))  # no copy of the matrix
        # Copy-on-write: writable like the array it replaces, never written back.
        mapped = np.memmap(path, dtype=X.dtype, mode="c", shape=X.shape)
        data.X = np.asarray(mapped)  # a plain array: joblib finds the file behind it
        del X, mapped
        yield data
    finally:
        os.unlink(path)
