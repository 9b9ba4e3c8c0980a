"""Labels from a file of their own: ``widefs run expr.tsv --labels samples.tsv``.

The labels file is delimited text (any delimiter, gzip, any encoding the data may have) with
a header line: the labels are in the column named by ``--target`` (default ``class``) or, in
a file of exactly two columns, in the second column whatever its name; the sample ids are in
whichever other column names the data's samples (the first, usually), matched exactly or up to
case and R's ``make.names`` (see :mod:`widefs.cli.io._ids`), with a note. This is the layout
of a GEO series matrix's companion table (sample accession -> group) and of most sample
sheets.

The data file may have its samples in rows (ids in the first column) or in columns (ids in
the header, features in rows, as GEO series matrices do); the orientation is the one whose
ids the labels file names. Every data sample needs exactly one label and every labelled id
must be a sample of the data: either mismatch is one line listing the ids.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from widefs.cli.io._ids import match_ids, renamed_ids_note
from widefs.cli.io._memory import Budget
from widefs.cli.io._tables import RawTable, show_names
from widefs.cli.io._text import count_lines, data_lines, read_head
from widefs.exceptions import DataError

__all__ = ["LabelFile", "join_labels", "read_labels"]

_BYTES_PER_LABEL = 400  # an id and a label as Python strings, in lists and an index


@dataclass
class LabelFile:
    """Sample ids and their labels, in the file's order."""

    path: Path
    ids: list[str]
    labels: list[str]
    header: list[str]
    column: int  # the labels' column
    notes: list[str] = field(default_factory=list)
    columns: list[list[str]] = field(default_factory=list)  # every column's cells

    @property
    def candidates(self) -> list[str]:
        """The cells of every column that could hold the sample ids (distinct, non-empty)."""
        out = []
        for j, cells in enumerate(self.columns or [self.ids]):
            if j != self.column and all(cells) and len(set(cells)) == len(cells):
                out += cells
        return out


def _label_column(header: list[str], target: str, path: Path) -> int:
    if target in header:
        return header.index(target)
    if len(header) == 2:
        return 1
    raise DataError(
        f"--labels {path}: no column named {target!r} among {show_names(header)}; the first "
        "column holds the sample ids and --target names the labels' column (a file of two "
        "columns needs no --target)"
    )


def read_labels(path: Path, target: str, budget: Budget) -> LabelFile:
    """Read a labels file (see the module's docstring); raise :class:`DataError` on a problem."""
    if not path.is_file():
        problem = "file not found" if not path.exists() else "not a file"
        raise DataError(f"--labels {path}: {problem}")
    with open(path, "rb") as fh:
        compressed = fh.read(2) == b"\x1f\x8b"
    head = read_head(path, compressed, budget)
    header = [h.strip() for h in head.header]
    if len(header) < 2:
        raise DataError(
            f"--labels {path}: one column only; give two: the sample id, then its label"
        )
    t = _label_column(header, target, path)
    count_lines(head, _BYTES_PER_LABEL * len(header), budget)
    rows, labels = [], []
    for number, line in data_lines(head, 1 << 20):
        try:
            cells = next(csv.reader([line], delimiter=head.delim), [])
        except csv.Error as exc:  # a cell over csv's field limit (128 KiB)
            raise DataError(f"--labels {path}: line {number}: {exc}") from None
        if len(cells) != len(header):
            raise DataError(
                f"--labels {path}: line {number} does not have the header's {len(header)} cells"
            )
        rows.append([c.strip() for c in cells])
        labels.append(cells[t])
    columns = [list(col) for col in zip(*rows, strict=True)] or [[] for _ in header]
    return LabelFile(path, columns[0], labels, header, t, head.notes, columns)


def _duplicates(ids) -> list[str]:
    index = pd.Index(ids)
    return sorted({str(v) for v in index[index.duplicated()]})


def _id_column(labels: LabelFile, ids: np.ndarray, data: Path, names) -> tuple[int, np.ndarray]:
    """The labels file's column naming the data's samples, and each sample's row in it."""
    best = (-1, 0, None)
    for j, cells in enumerate(labels.columns or [labels.ids]):
        if j == labels.column and len(labels.header) > 1:
            continue
        position = match_ids(ids, cells)
        found = int((position >= 0).sum())
        if found > best[1]:
            best = (j, found, position)
    if best[2] is None:
        columns = labels.columns or [labels.ids]
        k = next((k for k, c in enumerate(columns) if len(set(c)) == len(c)), 0)
        raise DataError(
            f"--labels: no sample id of {data} is in {labels.path}: the data's sample ids: "
            f"{show_names(ids)}; its column names: {show_names(names)}; the ids of "
            f"{labels.path.name} (column {labels.header[k]!r}): {show_names(columns[k])}"
        )
    return best[0], best[2]


def _headerless(labels: LabelFile, ids: np.ndarray) -> bool:
    """A two-column labels file whose first line is a sample: read it as one."""
    if not (len(labels.header) == 2 and labels.header[0] in set(ids)):
        return False
    columns = labels.columns or [labels.ids, labels.labels]
    labels.columns = [[h, *col] for h, col in zip(labels.header, columns, strict=True)]
    labels.ids, labels.labels = labels.columns[0], [labels.header[1], *labels.labels]
    labels.notes.append(
        f"{labels.path.name} has no header line: its first line is read as a sample"
    )
    return True


def join_labels(table: RawTable, labels: LabelFile, data: Path) -> None:
    """Give ``table`` (whose ``ids`` are its samples) the labels of ``labels``, by sample id.

    The ids are looked for in every column of the labels file; ids that differ only in case
    or by R's ``make.names`` (an ``X`` before a leading digit, ``.`` for other characters)
    match, with a note."""
    if table.ids is None:
        raise DataError(
            f"--labels: {data} names no samples (no first column of sample names, no header of "
            "sample ids) to match to the labels"
        )
    ids = np.array([str(i).strip() for i in table.ids], dtype=object)
    headerless = _headerless(labels, ids)
    j, position = _id_column(labels, ids, data, table.names)
    label_ids = (labels.columns or [labels.ids])[j]
    for what, dup in ((str(data), _duplicates(ids)), (str(labels.path), _duplicates(label_ids))):
        if dup:
            raise DataError(
                f"--labels: sample ids appear more than once in {what}: {show_names(dup)}; "
                "each sample needs one id"
            )
    unlabelled = ids[position < 0]
    if unlabelled.size:
        raise DataError(
            f"--labels: {unlabelled.size} of the {ids.size} samples of {data} have no label in "
            f"{labels.path}: {show_names(unlabelled)}; add them (or remove those samples)"
        )
    extra = sorted(set(label_ids) - {label_ids[k] for k in position})
    if extra:
        raise DataError(
            f"--labels: {len(extra)} ids of {labels.path} are not samples of {data}: "
            f"{show_names(extra)}; check that both files describe the same samples"
        )
    values = np.array(labels.labels, dtype=object)[position]
    values[values == ""] = None
    table.labels = values
    columns = labels.columns or [labels.ids, labels.labels]
    table.sheet = {h: np.array(c, dtype=object)[position] for h, c in zip(labels.header, columns)}
    table.notes += labels.notes
    table.notes += [n for n in [renamed_ids_note(ids, label_ids, position)] if n]
    column = "its second column" if headerless else f"column {labels.header[labels.column]!r}"
    by = "" if j == 0 else f" in its column {labels.header[j]!r}"
    table.notes.append(
        f"labels from {labels.path.name}: {column}, joined to the {ids.size} samples by their "
        f"ids{by}"
    )
    return table
