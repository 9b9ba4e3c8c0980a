"""The checks a table passes before any analysis, and the notes on what was read differently.

Labels: surrounding whitespace is stripped (with a note), an empty label is an error, a label
such as "NA" stays a class (with a note), a numeric target with many distinct values is
refused (widefs classifies) and one with few values runs as classes (with a note); at least
two classes of at least two examples each. Values: every feature column numeric, missing
cells counted (an error naming the fix, or imputed with ``--impute``), no magnitude that
overflows, not every column constant; row-index columns set aside with a note.
"""

from __future__ import annotations

import warnings

import numpy as np

from widefs.cli.io._numeric import FEATURE_NA_VALUES
from widefs.cli.io._tables import RawTable, show_names, show_rows
from widefs.exceptions import DataError

__all__ = ["MAX_ABS_VALUE", "MAX_CLASSES", "MISSING_LIKE_LABELS", "check_labels", "check_values"]

# Labels kept as classes but worth a note, since some files use them for "unknown".
MISSING_LIKE_LABELS = frozenset({"NA", "N/A", "n/a", "NaN", "nan", "?", "null", "NULL", "None"})
MAX_CLASSES = 1000  # more classes than a report can show or an analysis can use on wide data
# Larger magnitudes overflow sums of squares (variances, distances) in double precision.
MAX_ABS_VALUE = 1e150
# A numeric target with more distinct values than this, and either fractions or more than
# a third of the samples distinct, is a measurement, not a set of classes.
MAX_NUMERIC_CLASSES = 10
_MISSING_SPELLINGS = ", ".join(v for v in FEATURE_NA_VALUES if v)


def _label_texts(raw: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Labels as stripped strings, and which were missing (None/NaN) or blank."""
    missing = np.array([v is None or (isinstance(v, float) and v != v) for v in raw], bool)
    text = np.array(["" if m else str(v) for v, m in zip(raw, missing, strict=True)], object)
    stripped = np.array([t.strip() for t in text], dtype=object)
    return text, stripped


def _numeric_target(y: np.ndarray, target: str, notes: list[str]) -> None:
    """Refuse a measurement as target; note numbers used as class names."""
    try:
        values = np.array([float(v) for v in y])
    except ValueError:
        return
    if not np.isfinite(values).all():
        return
    distinct = np.unique(values)
    fractions = bool((distinct != np.round(distinct)).any())
    if distinct.size > MAX_NUMERIC_CLASSES and (fractions or distinct.size > y.size / 3):
        raise DataError(
            f"the target column {target!r} holds {distinct.size} distinct numbers (from "
            f"{distinct[0]:g} to {distinct[-1]:g}), a measurement rather than classes: widefs "
            "classifies; choose a column of class labels with --target, or group the values "
            "into classes first"
        )
    classes = np.unique(y)
    notes.append(
        f"the target column {target!r} holds numbers ({show_names(classes)}): each distinct "
        f"value is a class ({classes.size} classes), and their order is not used"
    )


def check_labels(table: RawTable, target: str, source: str, notes: list[str]) -> np.ndarray:
    """The labels as stripped strings, after every label check; notes appended to ``notes``."""
    if len(table.labels) == 0:
        raise DataError(f"{source} has a header but no data rows")
    text, y = _label_texts(table.labels)
    empty = np.flatnonzero(y == "")
    if empty.size:
        raise DataError(
            f"target column {target!r} has {empty.size} empty labels (data rows "
            f"{show_rows(empty)}); fill them in or remove those rows"
        )
    changed = np.flatnonzero(text != y)
    if changed.size:
        notes.append(
            f"{changed.size} labels had spaces or line breaks around them, removed (e.g. "
            f"{text[changed[0]]!r} is read as {y[changed[0]]!r}), so that they match the others"
        )
    for label in sorted(set(y) & MISSING_LIKE_LABELS):
        notes.append(
            f"the label {label!r} ({int((y == label).sum())} examples) is kept as a class; "
            "if it marks unknown labels, remove those rows"
        )
    if not table.names:
        raise DataError(f"{source} has no feature columns besides {target!r}")
    _numeric_target(y, target, notes)
    check_classes(y, target)
    return y.astype(object)


def check_classes(y: np.ndarray, target: str) -> None:
    """At least two classes, each with at least two examples, at most :data:`MAX_CLASSES`
    classes and (beyond 20 classes) 3 samples per class on average, else one
    :class:`DataError`: with fewer, every evaluation fold holds about one example of a class."""
    classes, counts = np.unique(y, return_counts=True)
    if classes.size < 2:
        raise DataError(
            f"target column {target!r} has a single class ({classes[0]!r}); need at least 2"
        )
    n, k = y.size, classes.size
    if k > MAX_CLASSES or (k > 20 and 3 * k > n):
        raise DataError(
            f"target column {target!r} has {k} classes for {n} samples ({n / k:.1f} per class): "
            f"too many classes for a meaningful analysis (at most {MAX_CLASSES}, and on average "
            "at least 3 samples per class beyond 20 classes); check that it is the class column, "
            "or group the classes"
        )
    small = [f"{c!r} ({k})" for c, k in zip(classes, counts, strict=True) if k < 2]
    if small:
        raise DataError(f"every class needs at least 2 examples; too few in: {show_names(small)}")


# Headers that say a column numbers the rows (compared case-folded); an empty header reads as
# "Unnamed: j". A column of any other name is a feature whatever its values.
_INDEX_NAMES = frozenset(
    {
        "",
        "index",
        "idx",
        "id",
        "#",
        "no",
        "no.",
        "row",
        "rows",
        "row_id",
        "rowid",
        "row.names",
        "rownames",
        "row_names",
        "row_number",
        "rownum",
        "level_0",
    }
)


def looks_like_index(name: str) -> bool:
    """Whether a column's header names it as a row index (``Unnamed: j``, ``index``, ``id``...)."""
    name = str(name).strip()
    return name.startswith("Unnamed: ") or name.casefold() in _INDEX_NAMES


def _index_columns(X: np.ndarray, names) -> list[int]:
    """Columns named like an index that number the rows (0..n-1 or 1..n in file order)."""
    if X.shape[0] < 3:
        return []
    start = np.flatnonzero(((X[0] == 0) | (X[0] == 1)) & (X[1] - X[0] == 1))
    start = start[[looks_like_index(names[j]) for j in start]]  # names read for these only
    steps = np.diff(X[:, start], axis=0)  # only the columns that start like an index
    return [int(j) for j in start[(steps == 1).all(axis=0)]]


def _set_aside_index(table: RawTable, notes: list[str]) -> None:
    """Leave out row-numbering columns named like an index (never a named feature, whatever
    its values); an unnamed first column of distinct integers (the row index pandas writes, in
    any order after sorting) becomes the row ids."""
    X, names = table.X, table.names
    first = X[:, 0] if X.shape[1] > 1 else None
    if (
        first is not None
        and names[0].startswith("Unnamed: ")
        and np.isfinite(first).all()
        and (first == np.round(first)).all()
        and np.unique(first).size == first.size
        and not _index_columns(X[:, :1], names[:1])
    ):
        notes.append(
            f"the unnamed first column holds a distinct whole number per row ({first[0]:g}, "
            f"{first[1]:g}, ...): a row index, as pandas writes it, used as row names and not "
            "as a feature"
        )
        table.ids = np.array([f"{v:g}" for v in first], dtype=object)
        table.X, table.names, X, names = X[:, 1:], names[1:], X[:, 1:], names[1:]
    index = _index_columns(X, names)
    if index and len(index) < X.shape[1]:
        dropped = [names[j] for j in index]
        what = (
            f"the column {dropped[0]!r} numbers"
            if len(index) == 1
            else f"the {len(index)} columns {', '.join(map(repr, dropped))} number"
        )
        notes.append(
            f"{what} the rows ({X[0, index[0]]:g}, {X[1, index[0]]:g}, ...) under a row index's "
            "name: a row index, not a measurement, left out of the analysis"
        )
        keep = np.ones(X.shape[1], bool)
        keep[index] = False
        table.X, table.names = X[:, keep], [n for n, k in zip(names, keep, strict=True) if k]


def _count(n: int, what: str) -> str:
    return f"{n} {what}" + ("s" if n != 1 else "")


def _missing(
    X: np.ndarray, names: np.ndarray, impute: bool, notes: list[str], ids=None
) -> list[str]:
    """Impute or refuse NaN and infinite cells; return the imputed columns' names.

    ``ids``: the sample ids of a file with its features in rows, to locate a cell as the
    file has it (feature row, sample column)."""
    bad = np.isfinite(X)
    np.logical_not(bad, out=bad)  # one boolean matrix at a time: X may be gigabytes
    if not bad.any():
        return []
    nan = np.isnan(X)
    inf = bad & ~nan
    columns = names[bad.any(axis=0)]
    row, col = (int(a[0]) for a in np.nonzero(bad))
    kinds = [_count(int(nan.sum()), "missing value")] if nan.any() else []
    kinds += [_count(int(inf.sum()), "infinite value")] if inf.any() else []
    what = f"{' and '.join(kinds)} in {_count(columns.size, 'column' if ids is None else 'row')}"
    where = f"data row {row + 1}, column {str(names[col])!r}"
    if ids is not None:
        where = f"row {str(names[col])!r}, column {str(ids[row])!r}"
    if not impute:
        raise DataError(
            f"{what}: {show_names(columns)} (the first in {where}); rerun with --impute to "
            "replace them by each column's median, or fill them in"
        )
    X[inf] = np.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN columns, reported next
        medians = np.nanmedian(X, axis=0)
    if np.isnan(medians).any():
        empty = names[np.isnan(medians)]
        raise DataError(f"columns with no finite value cannot be imputed: {show_names(empty)}")
    X[bad] = np.take(medians, np.nonzero(bad)[1])
    notes.append(
        f"{what} replaced by the column's median (--impute); empty cells and {_MISSING_SPELLINGS}"
        " are read as missing"
    )
    return [str(c) for c in columns]


def _constants(X: np.ndarray, notes: list[str]) -> None:
    constant = X.max(axis=0) == X.min(axis=0)  # no temporary the size of X
    if constant.all():
        raise DataError(
            f"all {X.shape[1]} feature columns are constant (every row has the same values): "
            "no feature can tell the classes apart"
        )
    if constant.any():
        notes.append(
            f"{int(constant.sum())} of the {X.shape[1]} feature columns are constant (the same "
            "value in every row): they cannot tell the classes apart, and the chance analysis "
            "does not count them among the features scored"
        )


def check_values(table: RawTable, impute: bool, transpose: bool, notes: list[str]):
    """(X, feature names, imputed columns) after every check on the numbers."""
    if table.non_numeric:
        example = f"; e.g. {table.example}" if table.example else ""
        axis = "row" if table.in_rows else "column"
        raise DataError(
            f"non-numeric feature {axis}s: {show_names(table.non_numeric)}{example}. widefs "
            f"reads numbers: convert or remove those {axis}s (a missing value may be an empty "
            f"cell or one of {_MISSING_SPELLINGS})"
        )
    _set_aside_index(table, notes)
    # The reader's float32 matrix (every number it read was exactly a float32) stays float32:
    # a float64 copy would double the data's memory and change no value. Imputed medians
    # (the mean of two middle values) may need float64: a matrix with cells to impute widens.
    single = table.X.dtype == np.float32 and not (impute and not np.isfinite(table.X).all())
    X = np.asarray(table.X, dtype=np.float32 if single else float, order="C")
    names = np.asarray(table.names, dtype=object)
    imputed = _missing(X, names, impute, notes, table.ids if table.in_rows else None)
    largest = np.maximum(X.max(axis=0), -X.min(axis=0))  # per column, no copy of X
    big = largest > MAX_ABS_VALUE
    if big.any():
        raise DataError(
            f"values up to {largest.max():.3g} in columns: {show_names(names[big])}; "
            f"magnitudes above {MAX_ABS_VALUE:.0e} overflow variances and distances: rescale "
            "those columns (e.g. divide by a power of ten, or take logarithms)"
        )
    _constants(X, notes)
    if X.shape[0] > 5 * X.shape[1] and X.shape[0] > 200 and not transpose:
        notes.append(
            f"{X.shape[0]} samples of {X.shape[1]} features: if the rows are features (genes x "
            "samples), rerun with --transpose"
        )
    return X, names, imputed
