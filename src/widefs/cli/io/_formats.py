"""Parquet, feather and xlsx files (the optional extra ``widefs[formats]``).

Parquet and feather are read a block of columns at a time straight into one float matrix,
with the shape checked against the memory budget from the file's metadata first: no pandas
frame beside the matrix, so the numbers are held once. An xlsx workbook is a zip archive
whose declared sizes are checked before openpyxl expands it.
"""

from __future__ import annotations

import warnings
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd

from widefs.cli.io._exclusion import take_excluded
from widefs.cli.io._memory import Budget, check_fits, numbers_need
from widefs.cli.io._numeric import FEATURE_NA_VALUES
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
from widefs.exceptions import DataError

__all__ = ["FORMATS_HINT", "read_arrow", "read_xlsx"]

FORMATS_HINT = "pip install 'widefs[formats]'"
_BLOCK = 1024  # parquet columns converted at a time
# An xlsx cell expands to about this many bytes as pandas objects (the XML is ~30 bytes a cell).
_XLSX_FACTOR = 20
_INDEX_PREFIX = "__index_level_"  # the row index pandas stores in a parquet file


class _Arrow:
    """A parquet or feather file: its schema, row count, and the numbers of chosen columns."""

    def __init__(self, path: Path, kind: str):
        import pyarrow as pa
        import pyarrow.parquet as pq

        self.kind = kind
        if kind == "parquet":
            self.source = pq.ParquetFile(path)
            self.schema, self.n_rows = self.source.schema_arrow, self.source.metadata.num_rows
            return
        self.mapped = pa.memory_map(str(path))
        self.source = pa.ipc.open_file(self.mapped)
        self.schema = self.source.schema
        first = pa.ipc.open_file(self.mapped, options=pa.ipc.IpcReadOptions(included_fields=[0]))
        self.n_rows = first.read_all().num_rows  # one column decoded to count the rows

    def column(self, j: int) -> np.ndarray:
        """Column ``j`` as an object array of strings, None where missing."""
        import pyarrow as pa

        if self.kind == "parquet":
            values = self.source.read([self.schema.field(j).name]).column(0)
        else:
            options = pa.ipc.IpcReadOptions(included_fields=[j])
            values = pa.ipc.open_file(self.mapped, options=options).read_all().column(0)
        return np.array([None if v is None else str(v) for v in values.to_pylist()], dtype=object)

    def matrix(self, columns: list[int]) -> np.ndarray:
        """The ``columns`` as one float matrix: each record batch becomes a matrix in arrow
        (``to_tensor``); a feather file of one batch is that matrix, with no copy."""
        if not columns:  # arrow makes no tensor of no column; the checks name the problem
            return np.empty((self.n_rows, 0))
        if self.kind == "parquet":
            X = np.empty((self.n_rows, len(columns)))
            every = self.schema.names  # a new list at each access: taken once
            names = [every[j] for j in columns]
            for start in range(0, len(names), _BLOCK):
                table = self.source.read(names[start : start + _BLOCK])
                _rows_into(X[:, start : start + table.num_columns], table.to_batches())
            return X
        n = self.source.num_record_batches
        if n == 1:
            return np.asarray(_tensor(self.source.get_record_batch(0).select(columns)), dtype=float)
        X = np.empty((self.n_rows, len(columns)))
        _rows_into(X, (self.source.get_record_batch(i).select(columns) for i in range(n)))
        return X


def _tensor(batch):
    """A record batch of numbers as one row-major float matrix (missing values NaN)."""
    import pyarrow as pa

    if not all(_is_int_or_float(f.type) for f in batch.schema):
        batch = batch.cast(pa.schema([(f.name, pa.float64()) for f in batch.schema]))
    return batch.to_tensor(null_to_nan=True, row_major=True)


def _rows_into(X: np.ndarray, batches) -> None:
    row = 0
    for batch in batches:
        X[row : row + batch.num_rows] = np.asarray(_tensor(batch))
        row += batch.num_rows


def _is_int_or_float(arrow_type) -> bool:
    import pyarrow as pa

    return pa.types.is_integer(arrow_type) or pa.types.is_floating(arrow_type)


def _is_number(arrow_type) -> bool:
    import pyarrow as pa

    return (
        _is_int_or_float(arrow_type)
        or pa.types.is_boolean(arrow_type)
        or pa.types.is_decimal(arrow_type)
    )


def read_arrow(path: Path, kind: str, target: str, budget: Budget) -> RawTable:
    """A parquet or feather file, read into one float matrix without a pandas copy."""
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        raise DataError(f"reading {kind} files needs pyarrow: {FORMATS_HINT}") from None
    try:
        source = _Arrow(path, kind)
        names = [str(n) for n in source.schema.names]
        if target not in names:
            raise DataError(
                f"target column {target!r} not found in {path}; columns are: "
                f"{show_names(names)} (choose one with --target)"
            )
        shape = f"{path} ({source.n_rows} x {len(names)})"
        check_fits(numbers_need(source.n_rows, len(names)), budget, shape)
        return _arrow_table(source, names, target)
    except DataError:
        raise
    except Exception as exc:  # pyarrow raises many types for a damaged file
        raise DataError(f"cannot read {path} as {kind}: {first_line(exc)}") from exc


def _arrow_table(source: _Arrow, names: list[str], target: str) -> RawTable:
    unique, renamed = unique_names(names)
    notes = [renamed_note(renamed)] if renamed else []
    labels = source.column(names.index(target))
    left_out = take_excluded(n for n in names if n != target)
    features = [
        j
        for j, n in enumerate(names)
        if n != target and not n.startswith(_INDEX_PREFIX) and n not in left_out
    ]
    ids = None
    index = [j for j, n in enumerate(names) if n.startswith(_INDEX_PREFIX)]
    if index:
        ids = source.column(index[0])
    elif features and not _is_number(source.schema.field(features[0]).type):
        first = source.column(features[0])
        if is_row_names(pd.Series(first)):
            notes.append(row_names_note(unique[features[0]]))
            ids, features = first, features[1:]
    kept = [unique[j] for j in features]
    non_numeric = [unique[j] for j in features if not _is_number(source.schema.field(j).type)]
    if non_numeric:
        return RawTable(kept, None, labels, non_numeric, notes, ids)
    return RawTable(kept, source.matrix(features), labels, [], notes, ids)


def _check_xlsx_size(path: Path, budget: Budget) -> None:
    try:
        with zipfile.ZipFile(path) as archive:
            expanded = sum(info.file_size for info in archive.infolist())
    except (zipfile.BadZipFile, OSError) as exc:
        raise DataError(f"cannot read {path} as xlsx: {first_line(exc)}") from exc
    check_fits(expanded * _XLSX_FACTOR, budget, f"{path} ({expanded:,} bytes unpacked)")


def _header_name(cell) -> str:
    """A header cell as text (an empty cell: "", for ``Unnamed: j``)."""
    return "" if cell is None or (isinstance(cell, float) and cell != cell) else str(cell)


def read_xlsx(path: Path, target: str, budget: Budget) -> RawTable:
    """The first sheet of an xlsx workbook; labels read as written ("NA" stays a label)."""
    try:
        import openpyxl  # noqa: F401
    except ImportError:
        raise DataError(f"reading xlsx files needs openpyxl: {FORMATS_HINT}") from None
    _check_xlsx_size(path, budget)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # openpyxl's notes on styles and data validation
            frame = pd.read_excel(
                path, engine="openpyxl", keep_default_na=False, na_values=FEATURE_NA_VALUES
            )
            # pandas makes repeated names unique silently: the header as written, for the note
            header = pd.read_excel(path, engine="openpyxl", header=None, nrows=1)
            written = [] if header.empty else [_header_name(c) for c in header.iloc[0]]
            names, renamed = unique_names(written)
            frame.columns = names if len(names) == frame.shape[1] else frame.columns.astype(str)
            if target in frame.columns:
                labels = pd.read_excel(
                    path, engine="openpyxl", usecols=[target], dtype=str, na_filter=False
                )[target]
                frame[target] = labels.replace("", np.nan).to_numpy()
    except Exception as exc:  # openpyxl raises many types for a damaged file
        raise DataError(f"cannot read {path} as xlsx: {first_line(exc)}") from exc
    if target not in frame.columns:
        raise DataError(
            f"target column {target!r} not found in {path}; columns are: "
            f"{show_names(frame.columns) or 'none'} (choose one with --target)"
        )
    table = from_frame(frame, target)
    table.notes += [renamed_note(renamed)] if renamed else []
    return table
