"""Load and check the data given to the command line (a CSV/TSV path or a bundled name)."""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from widefs.datasets import list_datasets, load_dataset
from widefs.exceptions import DataError

__all__ = ["LoadedData", "load_cli_data"]

_SHOW = 8  # names listed in an error message before "..."

# Feature cells read as missing. In the target column only an empty cell is missing: a label
# such as "NA" (sodium, North America, "not applicable") is a class like any other.
FEATURE_NA_VALUES = ["", "NA", "NaN", "nan", "?"]
# Labels kept as classes but worth a note, since some files use them for "unknown".
MISSING_LIKE_LABELS = frozenset({"NA", "N/A", "n/a", "NaN", "nan", "?", "null", "NULL", "None"})
# Larger magnitudes overflow sums of squares (variances, distances) in double precision.
MAX_ABS_VALUE = 1e150


@dataclass
class LoadedData:
    """Validated data for a report: numeric features, string labels, provenance."""

    name: str
    X: np.ndarray
    y: np.ndarray
    feature_names: np.ndarray
    source: str
    imputed_columns: list[str]
    notes: list[str] = field(default_factory=list)
    target: str = "class"

    @property
    def smallest_class(self) -> int:
        """Number of examples of the least frequent class."""
        return int(np.unique(self.y, return_counts=True)[1].min())


def _names(cols) -> str:
    cols = [repr(str(c)) if not str(c).strip() else str(c) for c in cols]
    more = f", ... ({len(cols)} in all)" if len(cols) > _SHOW else ""
    return ", ".join(cols[:_SHOW]) + more


def _rows(index) -> str:
    rows = [str(i + 1) for i in index]
    more = f", ... ({len(rows)} in all)" if len(rows) > _SHOW else ""
    return ", ".join(rows[:_SHOW]) + more


def _read_table(path: Path, target: str) -> pd.DataFrame:
    if not path.exists():
        raise DataError(f"file not found: {path}")
    if path.is_dir():
        raise DataError(f"{path} is a directory, not a CSV/TSV file")
    name = path.name.lower().removesuffix(".gz")
    sep = "\t" if name.endswith((".tsv", ".tab", ".txt")) else ","
    kind = "TSV" if sep == "\t" else "CSV"
    try:
        columns = pd.read_csv(path, sep=sep, nrows=0).columns
        if target not in columns:
            raise DataError(
                f"target column {target!r} not found in {path}; columns are: {_names(columns)} "
                "(choose one with --target)"
            )
        with warnings.catch_warnings():
            # Mixed types in a column: the numeric check below names the column in one line.
            warnings.simplefilter("ignore", pd.errors.DtypeWarning)
            frame = pd.read_csv(path, sep=sep, keep_default_na=False, na_values=FEATURE_NA_VALUES)
        # The labels again, as written: "NA" is a class there, only an empty cell is missing
        # (a second pass over one column costs a few percent of the first).
        labels = pd.read_csv(
            path, sep=sep, usecols=[target], dtype=str, keep_default_na=False, na_filter=False
        )[target]
        if len(labels) != len(frame):
            raise DataError(f"cannot parse {path} as {kind}: rows of unequal length")
        frame[target] = labels.to_numpy()
        return frame
    except pd.errors.EmptyDataError as exc:
        raise DataError(f"{path} is empty (no header line)") from exc
    except (pd.errors.ParserError, UnicodeDecodeError, ValueError) as exc:
        if isinstance(exc, DataError):
            raise
        detail = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise DataError(f"cannot parse {path} as {kind}: {detail}") from exc


def load_cli_data(data: str, *, target: str = "class", impute: bool = False) -> LoadedData:
    """Read ``data`` and check it is usable; raise :class:`DataError` naming the problem.

    Checks, in order, all before any analysis: the file exists, is not empty and parses; the
    target column exists; there is at least one data row; no label is empty (a label "NA"
    is kept as a class, with a note); there is a feature column; at least two classes, each
    with at least two examples; every feature column is numeric; no NaN or infinite values
    unless ``impute`` (then each column's median replaces them; the median ignores labels,
    so this leaks no class information); no magnitude above ``MAX_ABS_VALUE``; at least one
    feature that is not constant.
    """
    path = Path(data)
    if data in list_datasets().index and not path.exists():
        frame = load_dataset(data, as_frame=True).frame
        source = f"bundled dataset {data!r}"
        target = "class"
    else:
        frame = _read_table(path, target)
        source = str(path)
    if target not in frame.columns:
        raise DataError(
            f"target column {target!r} not found in {source}; columns are: {_names(frame.columns)} "
            "(choose one with --target)"
        )
    if len(frame) == 0:
        raise DataError(f"{source} has a header but no data rows")
    y_raw = frame[target]
    y = y_raw.astype(str).to_numpy(dtype=object)
    empty = np.flatnonzero(y_raw.isna().to_numpy() | (np.char.strip(y.astype(str)) == ""))
    if empty.size:
        raise DataError(
            f"target column {target!r} has {empty.size} empty labels (data rows {_rows(empty)}); "
            "fill them in or remove those rows"
        )
    notes = []
    for label in sorted(set(y) & MISSING_LIKE_LABELS):
        notes.append(
            f"the label {label!r} ({int((y == label).sum())} examples) is kept as a class; "
            "if it marks unknown labels, remove those rows"
        )
    features = frame.drop(columns=target)
    if features.shape[1] == 0:
        raise DataError(f"{source} has no feature columns besides {target!r}")
    classes, counts = np.unique(y, return_counts=True)
    if classes.size < 2:
        raise DataError(
            f"target column {target!r} has a single class ({classes[0]!r}); need at least 2"
        )
    small = [f"{c!r} ({k})" for c, k in zip(classes, counts, strict=True) if k < 2]
    if small:
        raise DataError(f"every class needs at least 2 examples; too few in: {', '.join(small)}")
    non_numeric = [c for c in features.columns if not pd.api.types.is_numeric_dtype(features[c])]
    if non_numeric:
        raise DataError(f"non-numeric feature columns: {_names(non_numeric)}")
    X = features.to_numpy(dtype=float)
    bad = ~np.isfinite(X)
    imputed: list[str] = []
    if bad.any():
        bad_cols = features.columns[bad.any(axis=0)]
        if not impute:
            raise DataError(
                f"NaN or infinite values in columns: {_names(bad_cols)} (use --impute to replace "
                "them by each column's median)"
            )
        X = np.where(np.isinf(X), np.nan, X)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN columns, reported next
            medians = np.nanmedian(X, axis=0)
        if np.isnan(medians).any():
            empty_cols = features.columns[np.isnan(medians)]
            raise DataError(f"columns with no finite value cannot be imputed: {_names(empty_cols)}")
        X = np.where(np.isnan(X), medians, X)
        imputed = [str(c) for c in bad_cols]
    big = np.abs(X) > MAX_ABS_VALUE
    if big.any():
        raise DataError(
            f"values up to {np.abs(X).max():.3g} in columns: {_names(features.columns[big.any(axis=0)])}; "
            f"magnitudes above {MAX_ABS_VALUE:.0e} overflow variances and distances: rescale "
            "those columns (e.g. divide by a power of ten, or take logarithms)"
        )
    if not (X[:1] != X).any():
        raise DataError(
            f"all {X.shape[1]} feature columns are constant (every row has the same values): "
            "no feature can tell the classes apart"
        )
    name = data if source.startswith("bundled") else path.name
    return LoadedData(
        name=name,
        X=X,
        y=y,
        feature_names=np.asarray(features.columns.astype(str), dtype=object),
        source=source,
        imputed_columns=imputed,
        notes=notes,
        target=str(target),
    )
