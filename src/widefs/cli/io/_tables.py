"""What every reader hands to the checks: names, numbers, labels, row ids and notes.

Also the helpers that name columns and rows in messages, make duplicated names unique the
way pandas does, and turn a DataFrame (bundled data, xlsx, pandas' CSV reader) into a table.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from widefs.cli.io._exclusion import take_excluded

__all__ = [
    "RawTable",
    "first_line",
    "from_frame",
    "is_row_names",
    "renamed_note",
    "row_names_note",
    "show_names",
    "show_rows",
    "unique_names",
]

_SHOW = 8  # names listed in a message before "..."


@dataclass
class RawTable:
    """Names, numbers (NaN = missing) and raw labels, as read, before any check."""

    names: list[str]
    X: np.ndarray | None  # None when some feature column is not numeric
    labels: np.ndarray  # object array, None/NaN for a missing label
    non_numeric: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    ids: np.ndarray | None = None  # row ids (sample names) when the file names its rows
    example: str = ""  # where the first non-numeric cell is, for the message
    in_rows: bool = False  # features in the file's rows (samples in its columns), for messages
    sheet: dict | None = None  # every column of a sample sheet (--labels), in sample order


def show_names(cols) -> str:
    """The first names of ``cols`` for a message, and how many there are in all."""
    cols = list(cols)
    shown = [repr(str(c)) if not str(c).strip() else str(c) for c in cols[:_SHOW]]
    more = f", ... ({len(cols)} in all)" if len(cols) > _SHOW else ""
    return ", ".join(shown) + more


def first_line(exc: BaseException) -> str:
    """An exception's message for a one-line error: its first line, or its type's name."""
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def show_rows(index) -> str:
    """1-based data-row numbers for a message."""
    rows = [str(i + 1) for i in index[:_SHOW]]
    more = f", ... ({len(index)} in all)" if len(index) > _SHOW else ""
    return ", ".join(rows) + more


def unique_names(raw: list[str]) -> tuple[list[str], list[str]]:
    """Names made unique like pandas does (``x``, ``x.1``, ...), empty ones ``Unnamed: j``.

    Returns the names and the originals that were renamed.

    Examples
    --------
    >>> unique_names(["a", "", "a", "a.1", "a"])
    (['a', 'Unnamed: 1', 'a.2', 'a.1', 'a.3'], ['a', 'a'])
    """
    names = [f"Unnamed: {j}" if name == "" else name for j, name in enumerate(raw)]
    seen = set(names)
    if len(seen) == len(names):
        return names, []
    duplicated = pd.Index(names, dtype=object).duplicated()
    renamed, counts = [], {}
    for j in np.flatnonzero(duplicated):
        name = names[j]
        k = counts.get(name, 1)
        while f"{name}.{k}" in seen:
            k += 1
        counts[name] = k + 1
        seen.add(f"{name}.{k}")
        renamed.append(name)
        names[j] = f"{name}.{k}"
    return names, renamed


def renamed_note(renamed: list[str], what: str = "column") -> str:
    return (
        f"{len(renamed)} duplicated {what} names were renamed to tell them apart "
        f"(e.g. {renamed[0]!r} -> {renamed[0] + '.1'!r}); check that the file is right"
    )


def is_row_names(column: pd.Series) -> bool:
    """Distinct, non-empty texts in every row: sample names, not a feature."""
    if column.isna().any() or len(column) < 2:
        return False
    text = column.astype(str)
    return bool(text.is_unique and (text.str.strip() != "").all())


def row_names_note(name: str) -> str:
    return (
        f"the column {name!r} holds a distinct text per row (sample names): used as row names, "
        "not as a feature"
    )


def _first_text(column: pd.Series, decimal_comma: bool) -> str:
    """Where a column's first cell that is not a number is, for a message."""
    present = column.notna()
    text = column.where(present)
    if decimal_comma:
        text = text.astype(str).str.replace(",", ".", regex=False)
    bad = present & pd.to_numeric(text, errors="coerce").isna()
    if not bad.any():
        return ""
    i = int(np.flatnonzero(bad.to_numpy())[0])
    return f"{str(column.iloc[i])!r} in column {str(column.name)!r}, data row {i + 1}"


def from_frame(frame: pd.DataFrame, target: str, decimal_comma: bool = False) -> RawTable:
    """A table from a DataFrame whose column ``target`` holds the labels (``decimal_comma``:
    text cells were written with decimal commas, for the message on a non-numeric one)."""
    names = [str(c) for c in frame.columns]
    left_out = take_excluded(n for n in names if n != target)
    cols = [j for j, n in enumerate(names) if n != target and n not in left_out]
    features = frame.iloc[:, cols]
    numeric = np.array([pd.api.types.is_numeric_dtype(t) for t in features.dtypes], dtype=bool)
    labels = frame[target].to_numpy(dtype=object) if target in names else np.array([], object)
    notes, ids = [], None
    if cols and not numeric[0] and is_row_names(features.iloc[:, 0]):
        notes.append(row_names_note(names[cols[0]]))
        ids = features.iloc[:, 0].astype(str).to_numpy(dtype=object)
        cols, numeric, features = cols[1:], numeric[1:], features.iloc[:, 1:]
    non_numeric = [names[j] for j, ok in zip(cols, numeric, strict=True) if not ok]
    example = ""
    if non_numeric:
        example = _first_text(features.iloc[:, int(np.flatnonzero(~numeric)[0])], decimal_comma)
    X = None if non_numeric else features.to_numpy(dtype=float)
    return RawTable([names[j] for j in cols], X, labels, non_numeric, notes, ids, example)
