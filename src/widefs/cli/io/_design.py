"""The study design from the sample sheet: ``--covariates COL[,COL...]`` and ``--groups COL``.

The columns are read from the sample sheet given with ``--labels`` (joined to the data by
sample id, as the labels are). A covariate whose every cell is a number is a number (a linear
effect); any other column, and one named ``COL:cat``, is a set of categories (batch, sex). The
checks that need the labels (a column constant, confounded with the classes, redundant) are
the analysis's own (:func:`widefs.analysis.check_design`), run here before any analysis, so
that each problem is one line naming the column.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from widefs.cli.io._tables import show_names, show_rows
from widefs.exceptions import DataError

__all__ = ["StudyDesignColumns", "read_design"]

_CATEGORICAL = ":cat"


@dataclass
class StudyDesignColumns:
    """The design read for an analysis: covariates by name, groups, and how each was read."""

    covariates: dict | None = None
    groups: np.ndarray | None = None
    groups_column: str | None = None
    read_as: dict = field(default_factory=dict)  # covariate -> "numbers" or "categories"


def _names(text: str | None) -> list[str]:
    return [] if text is None else [c.strip() for c in text.split(",") if c.strip()]


def _column(sheet: dict, name: str, option: str, source: str) -> np.ndarray:
    if name not in sheet:
        raise DataError(
            f"{option}: no column {name!r} in the sample sheet {source}; its columns: "
            f"{show_names(sheet)}"
        )
    cells = np.array([str(c).strip() for c in sheet[name]], dtype=object)
    empty = np.flatnonzero(cells == "")
    if empty.size:
        raise DataError(
            f"{option}: column {name!r} of {source} has {empty.size} empty cells (samples "
            f"{show_rows(empty)}); fill them in or remove those samples"
        )
    return cells


def _as_numbers(cells: np.ndarray) -> np.ndarray | None:
    try:
        values = np.array([float(c) for c in cells])
    except ValueError:
        return None
    return values if np.isfinite(values).all() else None


def read_design(
    sheet: dict | None, covariates: str | None, groups: str | None, target: str, source: str, y
) -> StudyDesignColumns:
    """The covariates and groups named by the options, checked against the classes ``y``."""
    wanted, group = _names(covariates), (groups.strip() if groups else None)
    if not wanted and not group:
        return StudyDesignColumns()
    if sheet is None:
        raise DataError(
            "--covariates and --groups name columns of the sample sheet; give it with "
            "--labels FILE (sample ids, the --target column, and the design's columns)"
        )
    out = StudyDesignColumns()
    for option, name in [("--covariates", n) for n in wanted] + [("--groups", group)]:
        if name is not None and name.removesuffix(_CATEGORICAL) == target:
            raise DataError(
                f"{option} {name!r} is the target column: the design cannot be the classes"
            )
    if wanted:
        out.covariates = {}
        for spec in wanted:
            name = spec if spec in sheet else spec.removesuffix(_CATEGORICAL)
            cells = _column(sheet, name, "--covariates", source)
            numbers = (
                None if spec.endswith(_CATEGORICAL) and spec not in sheet else _as_numbers(cells)
            )
            out.covariates[name] = cells.astype(str) if numbers is None else numbers
            out.read_as[name] = "categories" if numbers is None else "numbers (a linear effect)"
    if group:
        out.groups, out.groups_column = _column(sheet, group, "--groups", source).astype(str), group
    _check(out, y)
    return out


def _check(design: StudyDesignColumns, y) -> None:
    """The analysis's checks of the design, as one line naming the option and the column."""
    from widefs.analysis import check_design

    try:
        check_design(y, design.covariates, design.groups)
    except ValueError as exc:
        message = str(exc).strip().splitlines()[0]
        column = design.groups_column
        if column is not None:
            message = message.replace("design column 'groups'", f"column {column!r}").replace(
                "groups are redundant", f"groups ({column!r}) are redundant"
            )
        by_groups = column is not None and (
            f"{column!r}" in message or message.startswith("groups")
        )
        raise DataError(f"{'--groups' if by_groups else '--covariates'}: {message}") from None
