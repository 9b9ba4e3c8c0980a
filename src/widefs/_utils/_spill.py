"""Per-feature arrays kept in a temporary file instead of memory, a block at a time.

A fit on an out-of-core matrix of 10^8 features must not keep tens of bytes per feature
until every feature is read (the moderated tests' prior needs every variance before any
p-value), nor after it (its fitted arrays). :class:`SpillFile` holds such arrays in one
unnamed temporary file of the system's temporary directory (:func:`tempfile.TemporaryFile`:
removed from the directory when created on POSIX, on close elsewhere; its space is freed
when closed or when the process ends). Blocks are written and read with plain ``write`` and
``readinto`` calls: the file's pages sit in the operating system's cache, which it can write
out and reclaim, and are not the process's resident memory, as the dirty pages of a mapped
file would be. Once written, :meth:`SpillFile.map` maps the file read-only: its clean pages
are resident only while read, and the mapping keeps the file's data until it is released.

The values read back are the bytes written: the spill changes no result.
"""

from __future__ import annotations

import tempfile
from contextlib import contextmanager
from itertools import pairwise

import numpy as np

__all__ = ["SPILL_MIN_BYTES", "SpillFile", "SpilledArray", "closed_on_error", "spill_file"]

#: Per-feature values spill only when they would take more than this: one block of an
#: out-of-core matrix read by the screen's first pass (64 MB). Below it they are smaller
#: than the block the fit holds anyway, so keeping them barely moves the peak, and the
#: file's writes and reads would only cost time.
SPILL_MIN_BYTES = 64 * 2**20
_COPY_BYTES = 4 * 2**20  # a block of rows copied at once (SpilledArray.astype)


@contextmanager
def closed_on_error(spill: SpillFile | None):
    """Close ``spill`` (when there is one) if the body raises, an interrupt included."""
    try:
        yield spill
    except BaseException:
        if spill is not None:
            spill.close()
        raise


def spill_file(lazy: bool, nbytes: int) -> SpillFile | None:
    """A new :class:`SpillFile` when ``nbytes`` of per-feature values of an out-of-core
    (``lazy``) matrix exceed ``SPILL_MIN_BYTES``, else None (keep them in memory)."""
    return SpillFile() if lazy and nbytes > SPILL_MIN_BYTES else None


class SpillFile:
    """One temporary file holding several :class:`SpilledArray`, each in its own region.

    Use it as a context manager, or call :meth:`close` in a ``finally``: closing removes
    the file's data (an error or a ``KeyboardInterrupt`` included).
    """

    def __init__(self):
        # Not a context manager: the file lives as long as the fit needs it (close()).
        # Buffered: a write of a block passes the buffer by and writes every byte, a read
        # fills the block unless the file ends.
        self._file = tempfile.TemporaryFile(prefix="widefs-spill-")  # noqa: SIM115
        self._end = 0

    @property
    def closed(self) -> bool:
        return self._file.closed

    def array(self, shape, dtype=np.float64) -> SpilledArray:
        """A new array of ``shape`` (rows first) and ``dtype`` in the file; reading rows
        never written is an error until the file is extended past them."""
        shape = tuple(int(v) for v in np.atleast_1d(shape))
        out = SpilledArray(self, self._end, shape, dtype)
        # The next region starts at a multiple of 8 bytes: aligned for every dtype's view.
        self._end += -(-out.nbytes // 8) * 8
        return out

    def zeros(self, shape, dtype=np.float64) -> SpilledArray:
        """:meth:`array` with every value 0: the file is extended past it (a hole in the
        file, which takes no space until written)."""
        out = self.array(shape, dtype)
        self._file.truncate(self._end)  # never shorter: the regions end at self._end
        return out

    def store(self, values) -> SpilledArray:
        """A new array of the file holding ``values`` (one plain write, no copy of a
        contiguous array)."""
        values = np.asarray(values)
        out = self.array(values.shape, values.dtype)
        out[:] = values
        return out

    def write(self, offset: int, values: np.ndarray, dtype=np.float64) -> None:
        """Write ``values`` as ``dtype`` at byte ``offset``."""
        self._file.seek(offset)
        self._file.write(np.ascontiguousarray(values, dtype=dtype).data)

    def read(self, offset: int, out: np.ndarray) -> np.ndarray:
        """Fill the array ``out`` from byte ``offset``."""
        self._file.seek(offset)
        if self._file.readinto(out.data) != out.nbytes:  # beyond the end: never written
            raise ValueError("read past the written values of a spill file.")
        return out

    def map(self) -> np.memmap | None:
        """The whole file as a read-only ``uint8`` memory map (None when it holds nothing),
        after which the file object is closed: the map keeps the data (its own descriptor of
        the unlinked file) as long as it or a view of it lives. No write after this."""
        if self._end == 0:
            self.close()
            return None
        self._file.truncate(self._end)  # flushed; unwritten regions read 0
        whole = np.memmap(self._file, mode="r")  # every byte of the file, as uint8
        self.close()
        return whole

    def close(self) -> None:
        self._file.close()

    def __enter__(self) -> SpillFile:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class SpilledArray:
    """An array of a :class:`SpillFile`, read and written by ranges of rows.

    ``a[i:j] = values`` writes rows i..j-1; ``a[i:j]`` reads them into a new ndarray (a
    slice with a step, or any other key, is not supported); :meth:`put` writes scattered
    1-D elements; :meth:`astype` copies it to another type in the file; :meth:`head` is the
    first rows without a read; :meth:`mapped` is the array in the file's read-only map.
    """

    def __init__(self, spill: SpillFile, offset: int, shape: tuple[int, ...], dtype=np.float64):
        self.spill, self.offset, self.shape = spill, offset, shape
        self.dtype = np.dtype(dtype)
        self._row = self.dtype.itemsize * int(np.prod(shape[1:]))

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return int(np.prod(self.shape))

    @property
    def nbytes(self) -> int:
        return self.size * self.dtype.itemsize

    def __len__(self) -> int:
        return self.shape[0]

    def _rows(self, key) -> range:
        if not isinstance(key, slice) or key.step not in (None, 1):
            raise TypeError("a spilled array is read and written by ranges of rows only.")
        return range(*key.indices(self.shape[0]))

    def __getitem__(self, key) -> np.ndarray:
        rows = self._rows(key)
        out = np.empty((len(rows), *self.shape[1:]), self.dtype)
        if len(rows):
            self.spill.read(self.offset + rows.start * self._row, out)
        return out

    def __setitem__(self, key, values) -> None:
        rows = self._rows(key)
        shape = (len(rows), *self.shape[1:])
        values = np.asarray(values)  # written as self.dtype (SpillFile.write)
        if values.shape != shape:  # a scalar or a row for every row (rare: not the fits)
            values = np.broadcast_to(values, shape)
        if len(rows):
            self.spill.write(self.offset + rows.start * self._row, values, self.dtype)

    def put(self, index, values, span: int = 2**16) -> None:
        """``a[index] = values`` of a 1-D array, ``index`` ascending (as ``ndarray.put``
        with one value per index): the indices are cut into runs of at most ``span`` rows,
        each run's rows read, changed and written back."""
        index = np.asarray(index).ravel()
        values = np.broadcast_to(np.asarray(values), index.shape)
        if not index.size:
            return
        # The runs: the indices in each cell of a grid of span rows from the first index.
        grid = np.arange(int(index[0]) + span, int(index[-1]) + 1, span)
        bounds = np.unique(np.r_[0, np.searchsorted(index, grid), index.size])
        for lo, hi in pairwise(bounds.tolist()):
            start, stop = int(index[lo]), int(index[hi - 1]) + 1
            part = self[start:stop]
            part[index[lo:hi] - start] = values[lo:hi]
            self[start:stop] = part

    def astype(self, dtype) -> SpilledArray:
        """The values as ``dtype`` in a new array of the same file, copied a block of rows
        at a time."""
        out = self.spill.array(self.shape, dtype)
        width = max(1, _COPY_BYTES // max(1, self._row))
        for start in range(0, self.shape[0], width):
            out[start : start + width] = self[start : start + width]
        return out

    def head(self, rows: int) -> SpilledArray:
        """The first ``rows`` rows, still in the file."""
        return SpilledArray(
            self.spill, self.offset, (min(int(rows), self.shape[0]), *self.shape[1:]), self.dtype
        )

    def mapped(self, whole: np.memmap) -> np.memmap:
        """This array in ``whole``, the file's map (:meth:`SpillFile.map`): read-only."""
        view = whole[self.offset : self.offset + self.nbytes].view(self.dtype)
        return view.reshape(self.shape)

    def blocks(self, width: int):
        """The values as consecutive 1-D ndarrays of ``width`` rows (a 1-D array's values)."""
        for start in range(0, self.shape[0], max(1, int(width))):
            yield self[start : start + width].ravel()
