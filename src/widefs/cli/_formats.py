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

from widefs.cli._memory import Budget, check_fits, numbers_need
from widefs.cli._numeric import FEATURE_NA_VALUES
from widefs.cli._tables import (
    RawTable,
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
_BLOCK = 1024  # columns converted at a time
# An xlsx cell expands to about this many bytes as pandas objects (the XML is ~30 bytes a cell).
_XLSX_FACTOR = 20
_INDEX_PREFIX = "__index_level_"  # the row index pandas stores in a parquet file


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def _open_arrow(path: Path, kind: str):
    """(schema, number of rows, read(columns) -> pyarrow.Table) of a parquet or feather file."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise DataError(f"reading {kind} files needs pyarrow: {FORMATS_HINT}") from None
    if kind == "parquet":
        source = pq.ParquetFile(path)
        return source.schema_arrow, source.metadata.num_rows, lambda cols: source.read(cols)
    import pyarrow.feather as feather

    schema = pa.ipc.open_file(pa.memory_map(str(path))).schema

    def read(cols):  # only these columns' buffers are mapped and decompressed
        return feather.read_table(str(path), columns=cols, memory_map=True)

    return schema, read(schema.names[:1]).num_rows, read


def _is_number(arrow_type) -> bool:
    import pyarrow as pa

    return (
        pa.types.is_integer(arrow_type)
        or pa.types.is_floating(arrow_type)
        or pa.types.is_boolean(arrow_type)
        or pa.types.is_decimal(arrow_type)
    )


def _texts(column) -> np.ndarray:
    """An arrow column as an object array of strings, None where missing."""
    return np.array([None if v is None else str(v) for v in column.to_pylist()], dtype=object)


def _fill(X: np.ndarray, read, names: list[str]) -> None:
    """X's columns from the file's ``names``, a block at a time."""
    import pyarrow as pa
    import pyarrow.compute as pc

    for start in range(0, len(names), _BLOCK):
        block = read(names[start : start + _BLOCK])
        for j, column in enumerate(block.columns):
            values = pc.fill_null(pc.cast(column, pa.float64()), float("nan"))
            X[:, start + j] = values.to_numpy()
        del block


def read_arrow(path: Path, kind: str, target: str, budget: Budget) -> RawTable:
    """A parquet or feather file, read into one float matrix without a pandas copy."""
    try:
        schema, n_rows, read = _open_arrow(path, kind)
    except DataError:
        raise
    except Exception as exc:  # pyarrow raises many types for a damaged file
        raise DataError(f"cannot read {path} as {kind}: {_first_line(exc)}") from exc
    names = [str(n) for n in schema.names]
    if target not in names:
        raise DataError(
            f"target column {target!r} not found in {path}; columns are: {show_names(names)} "
            "(choose one with --target)"
        )
    check_fits(numbers_need(n_rows, len(names)), budget, f"{path} ({n_rows} x {len(names)})")
    try:
        return _arrow_table(schema, names, n_rows, read, target)
    except DataError:
        raise
    except Exception as exc:
        raise DataError(f"cannot read {path} as {kind}: {_first_line(exc)}") from exc


def _arrow_table(schema, names, n_rows, read, target) -> RawTable:
    unique, renamed = unique_names(names)
    notes = [renamed_note(renamed)] if renamed else []
    labels = _texts(read([target]).column(0))
    features = [j for j, n in enumerate(names) if n != target and not n.startswith(_INDEX_PREFIX)]
    ids = None
    index = [n for n in names if n.startswith(_INDEX_PREFIX)]
    if index:
        ids = _texts(read(index[:1]).column(0))
    elif features and not _is_number(schema.field(features[0]).type):
        first = _texts(read([names[features[0]]]).column(0))
        if is_row_names(pd.Series(first)):
            notes.append(row_names_note(unique[features[0]]))
            ids, features = first, features[1:]
    non_numeric = [unique[j] for j in features if not _is_number(schema.field(j).type)]
    if non_numeric:
        return RawTable([unique[j] for j in features], None, labels, non_numeric, notes, ids)
    X = np.empty((n_rows, len(features)))
    _fill(X, read, [names[j] for j in features])
    return RawTable([unique[j] for j in features], X, labels, [], notes, ids)


def _check_xlsx_size(path: Path, budget: Budget) -> None:
    try:
        with zipfile.ZipFile(path) as archive:
            expanded = sum(info.file_size for info in archive.infolist())
    except (zipfile.BadZipFile, OSError) as exc:
        raise DataError(f"cannot read {path} as xlsx: {_first_line(exc)}") from exc
    check_fits(expanded * _XLSX_FACTOR, budget, f"{path} ({expanded:,} bytes unpacked)")


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
            frame.columns = [str(c) for c in frame.columns]
            if target in frame.columns:
                labels = pd.read_excel(
                    path, engine="openpyxl", usecols=[target], dtype=str, na_filter=False
                )[target]
                frame[target] = labels.replace("", np.nan).to_numpy()
    except Exception as exc:  # openpyxl raises many types for a damaged file
        raise DataError(f"cannot read {path} as xlsx: {_first_line(exc)}") from exc
    if target not in frame.columns:
        raise DataError(
            f"target column {target!r} not found in {path}; columns are: "
            f"{show_names(frame.columns)} (choose one with --target)"
        )
    names, renamed = unique_names(list(frame.columns))
    frame.columns = names
    table = from_frame(frame, target)
    table.notes += [renamed_note(renamed)] if renamed else []
    return table
