"""The fast reader of delimited numbers: one ``numpy.fromstring`` pass per line.

About 10x faster than pandas' C parser on 100 x 200,000 and with no copy of the file in
memory: the rows go straight into a matrix allocated once from the line count. A line that
is not a plain row of numbers (a text cell, a row of another length, a quoted cell spanning
lines) stops it with a :class:`Misfit` saying where; the caller then reads the file with
pandas when that fits in memory, or reports the misfit.
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
    """Splits one line into (first cell, label, the numbers' text)."""

    def __init__(self, layout: Layout, delim: str, decimal_comma: bool):
        self.layout, self.delim, self.decimal_comma = layout, delim, decimal_comma
        self.width = len(layout.names)
        t = layout.label
        self.tail = t is not None and t == self.width - 1  # the usual layout: label last
        self.head = ({0} if layout.first_is_id else set()) | ({t} if t is not None else set())
        self.head -= {t} if self.tail else set()
        self.last = max(self.head, default=-1)

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
            return parsed[0], parsed[t] if t is not None else "", self._decimal(numeric)
        label, body = "", line
        if self.tail:
            body, sep, label = line.rpartition(self.delim)
            if not sep:
                return None
        pieces = body.split(self.delim, self.last + 1) if self.last >= 0 else [body]
        if len(pieces) < self.last + 1:
            return None
        if self.layout.label is not None and not self.tail:
            label = pieces[self.layout.label]
        rest = pieces[self.last + 1 :]
        kept = [p for i, p in enumerate(pieces[: self.last + 1]) if i not in self.head]
        return pieces[0], label, self._decimal(self.delim.join(kept + rest))

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
    if layout.label_row is not None:  # features in rows: the row is a feature, cells samples
        where = f"row {first!r}, column {layout.names[layout.numeric[got]]!r}"
    else:
        where = f"column {layout.names[layout.numeric[got]]!r}"
    return Misfit(number, f"line {number}: {cell!r} in {where} is not a number")


def read_rows(head: TextHead, layout: Layout, n_rows: int, cap: int) -> Rows | Misfit:
    """Read every data line of ``head``'s file into an ``n_rows`` x numbers matrix.

    ``n_rows`` is an upper bound (a line count); the matrix returned is cut to the rows read.
    """
    splitter = _Splitter(layout, head.delim, head.decimal_comma)
    n = len(layout.numeric)
    X = np.empty((n_rows, n))
    rows = Rows(X)
    i = 0
    for number, line in data_lines(head, cap):
        parts = splitter.split(line)
        if parts is None:
            return Misfit(
                number, f"line {number} does not have the header's {splitter.width} cells"
            )
        first, label, text = parts
        if layout.label_row is not None and first == layout.label_row:
            if rows.label_row is not None:
                return Misfit(number, f"the row {first!r} appears twice")
            cells = splitter.cells(line) if '"' in line else line.split(head.delim)
            rows.label_row = cells[1:] if cells else []
            continue
        values = _numbers(text, head.delim, n)
        if not isinstance(values, np.ndarray):
            return _misfit(number, values, splitter, text, first)
        if i == X.shape[0]:
            return Misfit(number, "more lines than counted (the file changed while read?)")
        X[i] = values
        rows.ids.append(first)
        rows.labels.append(label)
        i += 1
    rows.X = X[:i]
    return rows
