"""Columns that are not features: ``--exclude`` and the note on sample annotations.

``--exclude COL[,COL...]`` leaves columns out of the features (rows, for a file with its
features in rows). A text column is dropped by the readers before its cells are checked as
numbers (see :mod:`widefs.cli.io._exclusion`); a numeric one after reading, by
:func:`drop_excluded`. A name that is nowhere is an error.

A clinical table often holds, beside the measurements, numeric columns describing the
samples (age, dose, survival time, batch): analysed as features, an outcome-derived one
would be selected for the wrong reason. :func:`annotation_note` names the numeric columns
that look like that (by name, or by holding few distinct values where the other columns do
not) without leaving them out.
"""

from __future__ import annotations

import re

import numpy as np

from widefs.cli.io._exclusion import dropped_so_far
from widefs.cli.io._tables import RawTable, show_names
from widefs.exceptions import DataError

__all__ = ["annotation_note", "date_names_note", "drop_excluded", "parse_exclude"]

# Names of sample annotations (whole names, or words of them such as "os_time", "Age_years").
_ANNOTATION = re.compile(
    r"(^|[_.\s-])(age|sex|gender|time|batch|dose|os|pfs|dfs|efs|survival|status|event|stage|"
    r"grade|bmi|weight|height|days|months|years|visit|week|day|treatment|group|arm|site|"
    r"plate|lane|run|replicate|subject|patient|donor)([_.\s-]|$)",
    re.IGNORECASE,
)
_MONTH = r"(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)"
# Gene names Excel turned into dates: "2-Sep" (SEPT2), "Mar-01" (MARCH1), and the datetime an
# xlsx header cell of such a date becomes ("2026-09-02 00:00:00").
_EXCEL_DATE = re.compile(
    rf"^(\d{{1,2}}-{_MONTH}|{_MONTH}-\d{{1,2}}|\d{{4}}-\d{{2}}-\d{{2}}( 00:00:00)?)$", re.IGNORECASE
)
_FEW = 5  # distinct values of a column that looks like a code, not a measurement
_EDGE = 50  # columns looked at from each end of the table for few distinct values


def parse_exclude(text: str | None) -> list[str]:
    """``"a, b"`` -> ``["a", "b"]`` (empty names refused)."""
    if text is None:
        return []
    names = [n.strip() for n in text.split(",")]
    if not all(names):
        raise DataError(f"--exclude takes column names separated by commas, got {text!r}")
    return names


def drop_excluded(table: RawTable, names: list[str], target: str, notes: list[str]) -> None:
    """Leave the features ``names`` out of ``table``; refuse a name that is nowhere."""
    if not names:
        return
    if target in names:
        raise DataError(f"--exclude names the target {target!r}: it cannot be left out")
    dropped = dropped_so_far()
    present = {str(n) for n in table.names}
    unknown = [n for n in names if n not in present and n not in dropped]
    axis = "row" if table.in_rows else "column"
    if unknown:
        raise DataError(
            f"--exclude: no {axis} named {show_names(unknown)}; {axis}s are: "
            f"{show_names(table.names)}"
        )
    keep = np.array([str(n) not in set(names) for n in table.names], dtype=bool)
    if not keep.all():
        table.names = [n for n, k in zip(table.names, keep, strict=True) if k]
        table.non_numeric = [n for n in table.non_numeric if n not in set(names)]
        if table.X is not None:
            table.X = table.X[:, keep]
    notes.append(f"left out of the features (--exclude): {show_names(names)}")


def _few_distinct(X: np.ndarray, columns: np.ndarray) -> np.ndarray:
    """Which of ``columns`` hold at most :data:`_FEW` distinct finite values."""
    block = np.sort(X[:, columns], axis=0)
    changes = (np.diff(block, axis=0) != 0) & np.isfinite(block[1:])
    return changes.sum(axis=0) + 1 <= _FEW


def annotation_note(table: RawTable, notes: list[str]) -> None:
    """Note the numeric columns that look like sample annotations, not measurements."""
    if table.X is None or table.in_rows or table.X.shape[0] <= 2 * _FEW:
        return
    names = np.asarray([str(n) for n in table.names], dtype=object)
    p = names.size
    by_name = np.array([bool(_ANNOTATION.search(n)) for n in names], dtype=bool)
    edge = np.unique(np.r_[np.arange(min(_EDGE, p)), np.arange(max(p - _EDGE, 0), p)])
    few = np.zeros(p, dtype=bool)
    few[edge] = _few_distinct(table.X, edge)
    # Where most columns hold few values (genotypes, presence/absence) that is the data.
    if few[edge].mean() > 0.2:
        few[:] = False
    flagged = names[by_name | few]
    if flagged.size == 0 or flagged.size > p // 2:
        return
    notes.append(
        f"numeric columns that look like sample annotations (their names, or few distinct "
        f"values): {show_names(flagged)}; they are analysed as features: leave out any that "
        "describes the design or the outcome with --exclude"
    )


def date_names_note(table: RawTable, notes: list[str]) -> None:
    """Note feature names that look like dates Excel made of gene names (SEPT2 -> 2-Sep)."""
    dates = [str(n) for n in table.names if _EXCEL_DATE.match(str(n))]
    if dates:
        notes.append(
            f"{len(dates)} feature names look like dates, as Excel turns gene names into "
            f"(SEPT2 -> 2-Sep, MARCH1 -> 1-Mar): {show_names(dates)}; correct them at the "
            "source (read the file into Excel as text, or use the current symbols SEPTIN2, "
            "MARCHF1)"
        )
