"""The reader of delimited numbers: pyarrow's multithreaded CSV parser, block by block.

The lines are split into the row's id, its label and its numbers' text (:class:`_Splitter`);
blocks of lines (up to :data:`_BLOCK_CELLS` numbers) are then parsed by pyarrow as *one
column*: every delimiter of the block becomes a line end. One column suits both layouts
people have: a samples-in-rows file of 2,000,000 columns is a few lines of millions of
cells, which pyarrow's columnar reader would hold as millions of one-row columns (its cost
per column dominates), while a features-in-rows file is millions of short lines, which any
column count parses alike. The block's numbers are checked line by line (each line must hold
exactly the header's count) and land in a matrix allocated once from the line count.

The matrix is float32 while every number read is exactly a float32 (whole numbers up to
2**24, genotype and count tables: half the memory of float64 and nothing lost); the first
number that is not (``0.1234``, ``1e300``) widens it to float64, the rows read so far
copied once. No copy of the whole file or of the whole matrix in float64 is ever made.

A line that is not a plain row of numbers (a text cell, a row of another length, a quoted
cell spanning lines) stops the reader with a :class:`Misfit` naming the first such line and
cell (found by :func:`_numbers`, line by line, in the block that pyarrow refused); the
caller then reads the file with pandas when that fits in memory, or reports the misfit.
"""

from __future__ import annotations

import csv
import functools
import warnings
from dataclasses import dataclass, field

import numpy as np

from widefs.cli.io._text import TextHead, data_lines

__all__ = ["FEATURE_NA_VALUES", "Layout", "Misfit", "Rows", "read_rows"]

# Feature cells read as missing: the spellings of R, pandas, Excel, SQL and databases.
FEATURE_NA_VALUES = ["", "NA", "N/A", "n/a", "NaN", "nan", "null", "NULL", "None", "#N/A", "?"]


@dataclass
class Layout:
    """Which cells of a line are what: an id first, a label somewhere, numbers otherwise."""

    names: list[str]  # header cells (the width every line must have)
    label: int | None  # index of the label cell; None when labels come from elsewhere
    first_is_id: bool  # cell 0 names the row (a sample or a feature), it is not a number
    label_row: str | None = None  # with features in rows: the first cell of the labels' row
    in_rows: bool = False  # features in rows (samples in columns; implied by label_row)

    @functools.cached_property
    def numeric(self) -> list[int]:
        """Indices of the cells that hold numbers."""
        skip = {self.label} | ({0} if self.first_is_id else set())
        return [j for j in range(len(self.names)) if j not in skip]


@dataclass
class Misfit:
    """Why a line is not a plain row of numbers."""

    line: int
    reason: str


@dataclass
class Rows:
    """The numbers read, the row ids and labels beside them."""

    X: np.ndarray
    ids: list[str] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)
    label_row: list[str] | None = None


class _Splitter:
    """Splits one line into (its id, or "" without one; label; the numbers' text)."""

    def __init__(self, layout: Layout, delim: str, decimal_comma: bool):
        self.layout, self.delim, self.decimal_comma = layout, delim, decimal_comma
        self.width = len(layout.names)
        t = layout.label
        self.tail = t is not None and t == self.width - 1  # the usual layout: label last
        self.head = ({0} if layout.first_is_id else set()) | ({t} if t is not None else set())
        self.head -= {t} if self.tail else set()
        self.last = max(self.head, default=-1)
        # Pieces a line splits into at least: the head cells and the numbers after them
        # (unless the head is every cell before a last label).
        self.least = min(self.last + 2, self.width - self.tail)

    def cells(self, line: str) -> list[str] | None:
        parsed = next(csv.reader([line], delimiter=self.delim), [])
        return parsed if len(parsed) == self.width else None

    def split(self, line: str) -> tuple[str, str, str] | None:
        if '"' in line:
            parsed = self.cells(line)
            if parsed is None:
                return None
            t = self.layout.label
            numeric = self.delim.join(parsed[j] for j in self.layout.numeric)
            first = parsed[0] if self.layout.first_is_id else ""
            return first, parsed[t] if t is not None else "", self._decimal(numeric)
        label, body = "", line
        if self.tail:
            body, sep, label = line.rpartition(self.delim)
            if not sep:
                return None
        pieces = body.split(self.delim, self.last + 1) if self.last >= 0 else [body]
        if len(pieces) < self.least:  # "s1,x" for "id,a,class" is short, not a missing "a"
            return None
        if self.layout.label is not None and not self.tail:
            label = pieces[self.layout.label]
        rest = pieces[self.last + 1 :]
        kept = [p for i, p in enumerate(pieces[: self.last + 1]) if i not in self.head]
        # Without an id the first piece is the whole line: kept per row, it would hold a copy
        # of the file.
        first = pieces[0] if self.layout.first_is_id else ""
        return first, label, self._decimal(self.delim.join(kept + rest))

    def _decimal(self, text: str) -> str:
        return text.replace(",", ".") if self.decimal_comma else text


def _numbers(text: str, delim: str, n: int) -> np.ndarray | int:
    """The ``n`` numbers of one line's cells (missing-value codes as NaN), or where it fails.

    Returns the index of the first cell that is not a number, or -1 for a wrong count.
    """
    if n == 0:
        return np.empty(0) if text == "" else -1
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # numpy warns, then stops, at a cell it cannot read
        try:
            values = np.fromstring(text, sep=delim)
            if values.size == n:
                return values
        except (ValueError, DeprecationWarning):
            pass
    cells = np.char.strip(np.array(text.split(delim), dtype=str))
    if cells.size != n:
        return -1
    cells = np.where(np.isin(cells, FEATURE_NA_VALUES), "nan", cells)
    try:
        return cells.astype(np.float64)
    except ValueError:
        pass
    for j, cell in enumerate(cells):  # the one failing line: say which cell
        try:
            float(cell)
        except ValueError:
            return j
    return -1


def _misfit(number: int, got, splitter: _Splitter, text: str, first: str) -> Misfit:
    layout = splitter.layout
    if got == -1:
        return Misfit(number, f"line {number} does not have the header's {splitter.width} cells")
    cell = text.split(splitter.delim)[got]
    if layout.in_rows or layout.label_row is not None:  # a row is a feature, cells samples
        where = f"row {first!r}, column {layout.names[layout.numeric[got]]!r}"
    else:
        where = f"column {layout.names[layout.numeric[got]]!r}"
    return Misfit(number, f"line {number}: {cell!r} in {where} is not a number")


# Numbers parsed at once: the block's float64 values take 8 bytes each (8 MB), its text
# about as much; pyarrow splits a block into chunks of _CHUNK_BYTES parsed on its threads.
_BLOCK_CELLS = 1 << 20
_CHUNK_BYTES = 1 << 20


def _parse_block(texts: list[str], delim: str, n: int) -> np.ndarray | None:
    """The ``len(texts)`` x ``n`` numbers of lines of ``n`` cells each, or None when a cell is
    not a number: :func:`_numbers` then finds which."""
    if n == 0:
        return None
    import pyarrow as pa
    import pyarrow.csv as pacsv

    data = ("\n".join(texts).replace(delim, "\n") + "\n").encode()
    try:
        table = pacsv.read_csv(
            pa.py_buffer(data),
            read_options=pacsv.ReadOptions(column_names=["x"], block_size=_CHUNK_BYTES),
            # No quoting (quoted cells were split by csv already); an empty line is an
            # empty cell, a missing number.
            parse_options=pacsv.ParseOptions(
                delimiter=delim, quote_char=False, ignore_empty_lines=False
            ),
            convert_options=pacsv.ConvertOptions(
                column_types={"x": pa.float64()}, null_values=FEATURE_NA_VALUES
            ),
        )
    except pa.ArrowInvalid:
        return None
    if table.num_rows != len(texts) * n:
        return None
    return table.column(0).to_numpy().reshape(len(texts), n)


class _Filler:
    """Fills the matrix block by block: float32 while every number is one exactly."""

    def __init__(self, rows: Rows, splitter: _Splitter, delim: str):
        self.rows, self.splitter, self.delim = rows, splitter, delim
        self.n = len(splitter.layout.numeric)
        self.done = 0  # rows of the matrix filled
        self.numbers: list[int] = []  # line numbers of the block's lines
        self.texts: list[str] = []  # their numbers' text
        self.cells = 0

    @property
    def pending(self) -> int:
        return self.done + len(self.texts)

    def add(self, number: int, text: str) -> Misfit | None:
        self.numbers.append(number)
        self.texts.append(text)
        self.cells += max(self.n, 1)
        return self.flush() if self.cells >= _BLOCK_CELLS else None

    def flush(self) -> Misfit | None:
        """Parse and store the block; the first line that is not plain numbers, if any."""
        if not self.texts:
            return None
        values = _parse_block(self.texts, self.delim, self.n)
        if values is None:
            values = np.empty((len(self.texts), self.n))
            for r, (number, text) in enumerate(zip(self.numbers, self.texts, strict=True)):
                got = _numbers(text, self.delim, self.n)
                if not isinstance(got, np.ndarray):
                    first = self.rows.ids[self.done + r]
                    return _misfit(number, got, self.splitter, text, first)
                values[r] = got
        self._store(values)
        self.numbers, self.texts, self.cells = [], [], 0
        return None

    def _store(self, values: np.ndarray) -> None:
        X, stop = self.rows.X, self.done + values.shape[0]
        if X.dtype == np.float32:
            with np.errstate(over="ignore"):  # beyond float32's range: widened just below
                narrow = values.astype(np.float32)
            if np.array_equal(narrow, values, equal_nan=True):
                X[self.done : stop] = narrow
                self.done = stop
                return
            wide = np.empty(X.shape)  # the first number a float32 does not hold exactly
            wide[: self.done] = X[: self.done]
            self.rows.X = X = wide
        X[self.done : stop] = values
        self.done = stop


def _count(text: str, delim: str, n: int) -> int:
    """The cells of a line's numbers' text (an empty text is one empty cell when one is due)."""
    return text.count(delim) + 1 if text or n == 1 else 0


def read_rows(head: TextHead, layout: Layout, n_rows: int, cap: int) -> Rows | Misfit:
    """Read every data line of ``head``'s file into an ``n_rows`` x numbers matrix.

    ``n_rows`` is an upper bound (a line count); the matrix returned is cut to the rows read.
    A misfit is the first in the file: a line of the wrong shape waits for the lines before
    it to be parsed.
    """
    splitter = _Splitter(layout, head.delim, head.decimal_comma)
    rows = Rows(np.empty((n_rows, len(layout.numeric)), dtype=np.float32))
    filler = _Filler(rows, splitter, head.delim)
    for number, line in data_lines(head, cap):
        parts = splitter.split(line)
        if parts is None:
            reason = f"line {number} does not have the header's {splitter.width} cells"
            return filler.flush() or Misfit(number, reason)
        first, label, text = parts
        if layout.label_row is not None and first == layout.label_row:
            if rows.label_row is not None:
                return filler.flush() or Misfit(number, f"the row {first!r} appears twice")
            cells = splitter.cells(line) if '"' in line else line.split(head.delim)
            rows.label_row = cells[1:] if cells else []
            continue
        if _count(text, head.delim, filler.n) != filler.n:
            reason = f"line {number} does not have the header's {splitter.width} cells"
            return filler.flush() or Misfit(number, reason)
        if filler.pending == n_rows:
            reason = "more lines than counted (the file changed while read?)"
            return filler.flush() or Misfit(number, reason)
        rows.ids.append(first)
        rows.labels.append(label)
        if misfit := filler.add(number, text):
            return misfit
    if misfit := filler.flush():
        return misfit
    rows.X = rows.X[: filler.done]
    return rows
