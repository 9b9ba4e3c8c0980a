"""Delimited text files in the three layouts people have.

- samples in rows, features in columns, the labels in the column named by ``--target``;
- features in rows (``--transpose``): the first column names the features, the row named by
  ``--target`` holds the labels;
- either orientation with the labels in a file of their own (``--labels``): no label column
  or row; the sample ids are the first column or the header.

The shape is checked against the memory budget before the numbers are read (see
:mod:`widefs.cli.io._memory`); the numbers are parsed by pyarrow's CSV reader in blocks
(:mod:`widefs.cli.io._numeric`), and pandas reads a file with text cells, when that fits in
memory, to name every non-numeric column.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from widefs.cli.io._ids import id_key
from widefs.cli.io._memory import Budget, check_fits, numbers_need, row_need
from widefs.cli.io._numeric import FEATURE_NA_VALUES, Layout, Misfit, Rows, read_rows
from widefs.cli.io._tables import (
    RawTable,
    first_line,
    from_frame,
    is_row_names,
    renamed_note,
    row_names_note,
    show_names,
    unique_names,
)
from widefs.cli.io._text import TextHead, compression, count_lines, data_lines, read_head
from widefs.exceptions import DataError

__all__ = ["read_delimited"]

# pandas holds a table of text cells as Python objects: about this many times the numbers.
_PANDAS_FACTOR = 8
# A data line may be this many characters per header cell before it is refused unread.
_LINE_CHARS_PER_CELL = 256


def _line_cap(head: TextHead) -> int:
    return max(len(head.header) * _LINE_CHARS_PER_CELL, 1 << 20)


def _is_text(cell: str) -> bool:
    """Whether a cell is a text (not a number, not a missing value)."""
    if cell.strip() in FEATURE_NA_VALUES:
        return False
    try:
        float(cell.replace(",", "."))
    except ValueError:
        return True
    return False


def _first_is_text(head: TextHead) -> bool:
    first = head.first_cell()
    return first is not None and _is_text(first)


def _read(head: TextHead, layout: Layout, budget: Budget) -> Rows | Misfit:
    """The rows of ``layout``, after checking that they fit in memory."""
    n = len(layout.numeric)
    names_need = numbers_need(0, len(layout.names))
    check_fits(names_need, budget, f"{head.path} ({len(layout.names):,} columns)")
    n_lines = count_lines(head, row_need(n), budget, names_need)
    return read_rows(head, layout, n_lines, _line_cap(head))


def _samples_in_rows(head: TextHead, target: str, names: list[str], budget: Budget) -> RawTable:
    t = names.index(target)
    layout = Layout(head.header, t, first_is_id=t != 0 and _first_is_text(head))
    rows = _read(head, layout, budget)
    if isinstance(rows, Misfit):
        return _pandas_or_misfit(head, target, names, rows, budget)
    features = [names[j] for j in layout.numeric]
    labels = np.array(rows.labels, dtype=object)
    labels[labels == ""] = None
    table = RawTable(features, rows.X, labels)
    if layout.first_is_id:
        ids = pd.Series(rows.ids, dtype=object)
        if not is_row_names(ids):  # texts, but not one per row: a text feature
            return _pandas_or_misfit(head, target, names, None, budget)
        table.ids = ids.to_numpy(dtype=object)
        table.notes.append(row_names_note(names[0]))
    return table


def _features_in_rows(
    head: TextHead, label_row: str | None, budget: Budget, how: str = "read transposed"
) -> RawTable:
    """Features in rows, samples in columns (the first column names the features)."""
    layout = Layout(head.header, None, first_is_id=True, label_row=label_row, in_rows=True)
    rows = _read(head, layout, budget)
    if isinstance(rows, Misfit):
        _check_pandas_fits(head, rows, budget)
        return _transposed_pandas(head, label_row, rows)
    ids = list(head.header[1:])
    if label_row is not None and rows.label_row is None:
        raise DataError(
            f"--transpose: no row named {label_row!r} in the first column of {head.path}; rows "
            f"are: {show_names(rows.ids)} (choose the label row with --target)"
        )
    labels = np.array(rows.label_row if label_row else [""] * len(ids), dtype=object)
    if labels.size != len(ids):
        raise DataError(f"the row {label_row!r} does not have the header's {len(ids) + 1} cells")
    labels[labels == ""] = None
    names, renamed = unique_names(rows.ids)
    notes = [renamed_note(renamed, "row")] if renamed else []
    notes.append(f"{how}: {len(names)} features in rows, {len(ids)} samples in columns")
    return RawTable(names, rows.X.T, labels, [], notes, np.array(ids, dtype=object), in_rows=True)


def _check_pandas_fits(head: TextHead, misfit: Misfit | None, budget: Budget) -> None:
    """Refuse before pandas reads a file too large for it: with the fast reader's reason, if
    it had one (that is the clearer message), else with the memory it would need."""
    per_line = row_need(len(head.header)) * _PANDAS_FACTOR
    try:
        count_lines(head, per_line, budget)
    except DataError:
        if misfit is None:
            raise
        raise DataError(f"cannot read {head.path} as {head.kind}: {misfit.reason}") from None


def _pandas_or_misfit(head, target, names, misfit: Misfit | None, budget) -> RawTable:
    """pandas' reader when it fits in memory; else the fast reader's reason, in one line."""
    _check_pandas_fits(head, misfit, budget)
    return _read_pandas(head, target, names)


def _csv_options(head: TextHead) -> dict:
    return {
        "sep": head.delim,
        "encoding": head.encoding,
        "compression": compression(head.compressed),
        "skiprows": head.preamble,
        "comment": None,
    }


def _read_pandas(head: TextHead, target: str, names: list[str]) -> RawTable:
    """pandas' reader: any cell content, with the labels re-read exactly as written."""
    options = _csv_options(head)
    try:
        with warnings.catch_warnings():
            # Mixed types in a column: the numeric check names the column in one line.
            warnings.simplefilter("ignore", pd.errors.DtypeWarning)
            frame = pd.read_csv(
                head.path,
                keep_default_na=False,
                na_values=FEATURE_NA_VALUES,
                decimal="," if head.decimal_comma else ".",
                header=0,
                **options,
            )
        # The labels again, as written: "NA" is a class there, only an empty cell is missing.
        labels = pd.read_csv(
            head.path,
            usecols=[target],
            dtype=str,
            keep_default_na=False,
            na_filter=False,
            **options,
        )[target]
    except pd.errors.EmptyDataError as exc:
        raise DataError(f"{head.path} is empty (no header line)") from exc
    except (pd.errors.ParserError, UnicodeDecodeError, ValueError, EOFError, OSError) as exc:
        raise DataError(f"cannot parse {head.path} as {head.kind}: {first_line(exc)}") from exc
    if len(labels) != len(frame) or frame.shape[1] != len(names):
        raise DataError(f"cannot parse {head.path} as {head.kind}: rows of unequal length")
    frame.columns = names
    keep = ~frame.iloc[:, 0].astype(str).str.startswith("!").to_numpy() if head.preamble else None
    frame[target] = labels.replace("", np.nan).to_numpy()
    return from_frame(frame if keep is None else frame[keep], target, head.decimal_comma)


def _transposed_pandas(head: TextHead, label_row: str | None, misfit: Misfit) -> RawTable:
    """Features in rows through pandas: every cell as text, then each row's numbers."""
    try:
        cells = pd.read_csv(
            head.path, dtype=str, na_filter=False, index_col=0, **_csv_options(head)
        )
    except (pd.errors.ParserError, UnicodeDecodeError, ValueError, EOFError, OSError) as exc:
        raise DataError(f"cannot parse {head.path} as {head.kind}: {misfit.reason}") from exc
    row_names = [str(r) for r in cells.index]
    keep = np.array([not r.startswith("!") and r != label_row for r in row_names])
    hits = [i for i, r in enumerate(row_names) if r == label_row]
    if label_row is not None and len(hits) != 1:
        raise DataError(f"--transpose: the row {label_row!r} appears {len(hits)} times")
    labels = cells.iloc[hits[0]].to_numpy(dtype=object) if hits else np.full(cells.shape[1], "")
    labels = np.where(labels == "", None, labels)
    names, renamed = unique_names([r for r, k in zip(row_names, keep, strict=True) if k])
    values = cells.to_numpy(dtype=object)[keep]  # features x samples
    missing = np.isin(values, FEATURE_NA_VALUES)
    if head.decimal_comma:
        values = np.char.replace(values.astype(str), ",", ".")
    numbers = pd.to_numeric(
        pd.Series(np.where(missing, "nan", values).ravel()), errors="coerce"
    ).to_numpy()
    bad = np.isnan(numbers).reshape(values.shape) & ~missing
    notes = [renamed_note(renamed, "row")] if renamed else []
    notes.append(
        f"read transposed: {len(names)} features in rows, {values.shape[1]} samples in columns"
    )
    non_numeric = [names[i] for i in np.flatnonzero(bad.any(axis=1))]
    X = None if non_numeric else numbers.reshape(values.shape).T.copy()
    ids = np.array([str(c) for c in cells.columns], dtype=object)
    example = misfit.reason if non_numeric else ""
    return RawTable(names, X, labels, non_numeric, notes, ids, example, in_rows=True)


def _target_missing(head: TextHead, target: str, names: list[str]) -> str:
    message = (
        f"target column {target!r} not found in {head.path}; columns are: {show_names(names)} "
        "(choose one with --target, or give the labels in a file of their own with --labels)"
    )
    try:  # genes in rows? The first column would then hold the target's name.
        for _, line in data_lines(head, _line_cap(head)):
            first = line.split(head.delim, 1)[0].strip('"')
            if first == target:
                return (
                    f"{target!r} is a row of {head.path}, not a column: the file has features "
                    "in rows (e.g. genes x samples); rerun with --transpose"
                )
    except (DataError, OSError, EOFError, UnicodeDecodeError):
        return message
    if _first_is_text(head):
        message += (
            "; if the samples are the columns (features in rows, as in a GEO series matrix), "
            "give their labels with --labels FILE (a sample id and its class per line), or add "
            f"a row named {target!r} and rerun with --transpose"
        )
    return message


def read_delimited(
    path: Path, target: str, *, compressed: bool | str, transpose: bool, budget: Budget
) -> RawTable:
    """A delimited file with its labels in a column (or, ``transpose``, in a row)."""
    head = read_head(path, compressed, budget)
    if transpose:
        table = _features_in_rows(head, target, budget)
    else:
        names, renamed = unique_names(head.header)
        if target not in names:
            raise DataError(_target_missing(head, target, names))
        if head.header.count(target) > 1:
            raise DataError(
                f"the target column {target!r} appears {head.header.count(target)} times"
            )
        table = _samples_in_rows(head, target, names, budget)
        table.notes[:0] = [renamed_note(renamed)] if renamed else []
    table.notes[:0] = head.notes
    return table


def read_unlabelled(path: Path, *, compressed: bool | str, sample_ids, budget: Budget) -> RawTable:
    """A delimited file without labels; samples in the header's columns if their names are
    among ``sample_ids``, else in rows (named by the first column)."""
    head = read_head(path, compressed, budget)
    wanted = {id_key(i) for i in sample_ids}  # ids up to case and R's make.names
    if sum(id_key(name) in wanted for name in head.header[1:]) > 0:
        table = _features_in_rows(head, None, budget, how="samples in columns")
    else:
        names, renamed = unique_names(head.header)
        layout = Layout(head.header, None, first_is_id=True)
        rows = _read(head, layout, budget)
        if isinstance(rows, Misfit):
            raise DataError(f"cannot read {head.path} as {head.kind}: {rows.reason}")
        ids = np.array(rows.ids, dtype=object)
        table = RawTable([names[j] for j in layout.numeric], rows.X, np.array([], object))
        table.ids = ids
        table.notes += [renamed_note(renamed)] if renamed else []
    table.notes[:0] = head.notes
    return table
