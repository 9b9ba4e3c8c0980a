"""Load and check the data given to the command line (a table file or a bundled name).

Files: delimited text (the delimiter is sniffed among comma, tab, semicolon and bar; gzip is
detected from the content, not the name), parquet and feather (pyarrow) and xlsx (openpyxl),
the last three through the optional extra ``widefs[formats]``. Features are in columns and
the target is one column, or, with ``transpose=True``, features are in rows (genes x samples:
the first column names the features and one row, named like the target, holds the labels).
Wide delimited files of plain numbers are read line by line with ``numpy.fromstring`` (about
10x faster than pandas' parser on 100 x 200,000, without a second copy of the file in
memory); anything else goes through pandas, which names what it cannot read.

Everything that is read differently from what a reader might expect gets a one-line note:
renamed duplicate names, a row-index column left out, labels such as "NA" kept as classes.
"""

from __future__ import annotations

import csv
import gzip
import io
import re
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from widefs.cli._store import is_store, load_store
from widefs.datasets import list_datasets, load_dataset
from widefs.exceptions import DataError

__all__ = ["LoadedData", "load_cli_data", "sniff_delimiter"]

_SHOW = 8  # names listed in an error message before "..."

# Feature cells read as missing. In the target column only an empty cell is missing: a label
# such as "NA" (sodium, North America, "not applicable") is a class like any other.
FEATURE_NA_VALUES = ["", "NA", "NaN", "nan", "?"]
# Labels kept as classes but worth a note, since some files use them for "unknown".
MISSING_LIKE_LABELS = frozenset({"NA", "N/A", "n/a", "NaN", "nan", "?", "null", "NULL", "None"})
# Larger magnitudes overflow sums of squares (variances, distances) in double precision.
MAX_ABS_VALUE = 1e150
DELIMITERS = (",", "\t", ";", "|")
_NA_SET = frozenset(FEATURE_NA_VALUES)
_DELIMITER_NAMES = {",": "comma", "\t": "tab", ";": "semicolon", "|": "bar"}
FORMATS_HINT = "pip install 'widefs[formats]'"
_SNIFF_BYTES = 1 << 24  # enough for a header and a data row of 200,000 columns
_MAGIC = {
    b"\x1f\x8b": "gzip",
    b"PAR1": "parquet",
    b"ARROW1": "feather",
    b"PK\x03\x04": "xlsx",
    b"\xd0\xcf\x11\xe0": "xls",
}
_INDEX_NAME = re.compile(r"Unnamed: \d+\Z")


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
    def in_memory(self) -> bool:
        """False for a zarr store read where it lies (see :mod:`widefs.cli._store`)."""
        return isinstance(self.X, np.ndarray)

    @property
    def smallest_class(self) -> int:
        """Number of examples of the least frequent class."""
        return int(np.unique(self.y, return_counts=True)[1].min())


@dataclass
class _Table:
    """What a reader hands to the checks: names, numbers (NaN = missing) and raw labels."""

    names: list[str]
    X: np.ndarray | None  # None when some feature column is not numeric
    labels: np.ndarray  # object array, None/NaN for a missing label
    non_numeric: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _names(cols) -> str:
    cols = [repr(str(c)) if not str(c).strip() else str(c) for c in cols]
    more = f", ... ({len(cols)} in all)" if len(cols) > _SHOW else ""
    return ", ".join(cols[:_SHOW]) + more


def _rows(index) -> str:
    rows = [str(i + 1) for i in index]
    more = f", ... ({len(rows)} in all)" if len(rows) > _SHOW else ""
    return ", ".join(rows[:_SHOW]) + more


def _kind(path: Path) -> str:
    """The file's format from its first bytes ("text" unless a known signature is there)."""
    with open(path, "rb") as fh:
        head = fh.read(8)
    for magic, kind in _MAGIC.items():
        if head.startswith(magic):
            return kind
    return "text"


def _head_text(path: Path, compressed: bool) -> str:
    opener = gzip.open if compressed else open
    try:
        with opener(path, "rb") as fh:
            raw = fh.read(_SNIFF_BYTES)
    except (OSError, EOFError) as exc:
        raise DataError(f"cannot read {path}: {exc}") from exc
    return raw.decode("utf-8", errors="replace")


def sniff_delimiter(text: str, suffix: str = "") -> str:
    """The delimiter of delimited ``text`` (its first lines), preferring the one ``suffix`` implies.

    A candidate qualifies when it splits the header into at least two fields and every
    complete data row among the first ones into as many; the suffix's delimiter (tab for
    ``.tsv``/``.tab``, comma for ``.csv``) wins when it qualifies, otherwise the qualifying
    candidate with the most fields does. Nothing qualifies (one column): the suffix's one.

    Examples
    --------
    >>> sniff_delimiter("gene;class\\n1,5;a\\n2,5;b\\n", ".csv")
    ';'
    >>> sniff_delimiter("a\\tb\\n1\\t2\\n", ".txt")
    '\\t'
    """
    preferred = "\t" if suffix in (".tsv", ".tab") else ","
    lines = text.splitlines(keepends=True)[:7]
    complete = "".join(lines[:-1] if len(lines) > 1 and not lines[-1].endswith("\n") else lines)
    best, best_width = preferred, 1
    for delim in (preferred, *(d for d in DELIMITERS if d != preferred)):
        try:
            rows = list(csv.reader(io.StringIO(complete[: 1 << 24]), delimiter=delim))[:6]
        except csv.Error:
            continue
        rows = [r for r in rows if r]
        if not rows or len(rows[0]) < 2 or any(len(r) != len(rows[0]) for r in rows[1:]):
            continue
        if delim == preferred:
            return delim
        if len(rows[0]) > best_width:
            best, best_width = delim, len(rows[0])
    return best


def _unique_names(raw: list[str]) -> tuple[list[str], list[str]]:
    """Names made unique like pandas does (``x``, ``x.1``, ...), empty ones ``Unnamed: j``."""
    names, seen, renamed = [], set(raw), []
    counts: dict[str, int] = {}
    for j, name in enumerate(raw):
        if name == "":
            name = f"Unnamed: {j}"
        if name in counts:
            k = counts[name]
            new = f"{name}.{k}"
            while new in seen:
                k += 1
                new = f"{name}.{k}"
            counts[name] = k + 1
            seen.add(new)
            renamed.append(name)
            name = new
        else:
            counts[name] = 1
        names.append(name)
    return names, renamed


def _from_frame(frame: pd.DataFrame, target: str) -> _Table:
    """A table from a DataFrame (bundled data, parquet, feather, xlsx, pandas' CSV reader)."""
    names = [str(c) for c in frame.columns]
    cols = [j for j, n in enumerate(names) if n != target]
    features = frame.iloc[:, cols]
    numeric = np.array([pd.api.types.is_numeric_dtype(t) for t in features.dtypes], dtype=bool)
    labels = frame[target].to_numpy(dtype=object) if target in names else np.array([], object)
    notes = []
    if cols and not numeric[0] and _row_names(features.iloc[:, 0]):
        notes.append(_row_names_note(names[cols[0]]))
        cols, numeric, features = cols[1:], numeric[1:], features.iloc[:, 1:]
    non_numeric = [names[j] for j, ok in zip(cols, numeric, strict=True) if not ok]
    X = None if non_numeric else features.to_numpy(dtype=float)
    return _Table([names[j] for j in cols], X, labels, non_numeric, notes)


def _row_names(column: pd.Series) -> bool:
    """Distinct, non-empty texts in every row: sample names, not a feature."""
    if column.isna().any() or len(column) < 2:
        return False
    text = column.astype(str)
    return bool(text.is_unique and (text.str.strip() != "").all())


def _row_names_note(name: str) -> str:
    return f"the column {name!r} holds a distinct text per row (sample names): used as row names, not as a feature"


def _read_arrow(path: Path, kind: str, target: str) -> pd.DataFrame:
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        raise DataError(f"reading {kind} files needs pyarrow: {FORMATS_HINT}") from None
    try:
        if kind == "parquet":
            return pd.read_parquet(path)
        return pd.read_feather(path)
    except Exception as exc:  # pyarrow raises many types for a damaged file
        raise DataError(f"cannot read {path} as {kind}: {_first_line(exc)}") from exc


def _read_xlsx(path: Path, target: str) -> pd.DataFrame:
    try:
        import openpyxl  # noqa: F401
    except ImportError:
        raise DataError(f"reading xlsx files needs openpyxl: {FORMATS_HINT}") from None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # openpyxl's notes on styles and data validation
            frame = pd.read_excel(
                path, engine="openpyxl", keep_default_na=False, na_values=FEATURE_NA_VALUES
            )
            if str(target) in map(str, frame.columns):
                labels = pd.read_excel(
                    path, engine="openpyxl", usecols=[target], dtype=str, na_filter=False
                )[target]
                frame[target] = labels.replace("", np.nan).to_numpy()
    except Exception as exc:  # openpyxl raises many types for a damaged file
        raise DataError(f"cannot read {path} as xlsx: {_first_line(exc)}") from exc
    frame.columns = [str(c) for c in frame.columns]
    return frame


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def _read_fast(path: Path, names, target, delim, compressed, text_first) -> _Table | None:
    """A numeric reader for wide delimited files: one ``numpy.fromstring`` pass per line.

    About 10x faster than pandas' C parser on 100 x 200,000 and with no copy of the file in
    memory. Returns None as soon as a line is not a plain row of numbers (a text cell, a
    multi-line quoted cell, a row of another length); the general reader then reads the
    file and names the problem. ``text_first``: the first column holds texts, perhaps
    sample names, kept apart.
    """
    t = names.index(target)
    tail_target = t == len(names) - 1  # the usual layout: split the label off the end
    head = ({0} if text_first else set()) | (set() if tail_target else {t})
    last = max(head, default=-1)
    n_features = len(names) - 1 - int(text_first)
    rows, labels, firsts = [], [], []
    opener = gzip.open if compressed else open
    try:
        with opener(path, "rt", encoding="utf-8", newline="") as fh:
            fh.readline()  # the header, parsed already
            for line in fh:
                line = line.rstrip("\r\n")
                if not line:
                    continue
                if '"' in line:
                    parsed = next(csv.reader([line], delimiter=delim), [])
                    if len(parsed) != len(names):
                        return None
                    label = parsed[t]
                    first = parsed[0]
                    numeric = delim.join(
                        c for i, c in enumerate(parsed) if i != t and not (text_first and i == 0)
                    )
                else:
                    body = line
                    if tail_target:
                        body, sep, label = line.rpartition(delim)
                        if not sep:
                            return None
                    pieces = body.split(delim, last + 1) if last >= 0 else [body]
                    if len(pieces) < last + 1:
                        return None
                    if not tail_target:
                        label = pieces[t]
                    first = pieces[0]
                    rest = pieces[last + 1] if len(pieces) > last + 1 else None
                    kept = [p for i, p in enumerate(pieces[: last + 1]) if i not in head]
                    numeric = delim.join([*kept, rest] if rest is not None else kept)
                labels.append(label)
                if text_first:
                    firsts.append(first)
                values = _numbers(numeric, delim, n_features)
                if values is None:
                    return None
                rows.append(values)
    except (UnicodeDecodeError, OSError, EOFError):
        return None
    notes = []
    feature_names = [n for i, n in enumerate(names) if i != t and not (text_first and i == 0)]
    if text_first:
        if not _row_names(pd.Series(firsts, dtype=object)):
            return None
        notes.append(_row_names_note(names[0]))
    labels_arr = np.array(labels, dtype=object)
    labels_arr[labels_arr == ""] = None
    X = np.vstack(rows) if rows else np.empty((0, n_features))
    return _Table(feature_names, X, labels_arr, notes=notes)


def _numbers(text: str, delim: str, n: int) -> np.ndarray | None:
    """The ``n`` numbers of one line's feature cells (missing-value codes as NaN), or None."""
    if n == 0:
        return np.empty(0) if text == "" else None
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # numpy warns, then stops, at a cell it cannot read
        try:
            values = np.fromstring(text, sep=delim)
            if values.size == n:
                return values
        except (ValueError, DeprecationWarning):
            pass
    cells = np.array(text.split(delim), dtype=object)
    if cells.size != n:
        return None
    missing = np.array([c in _NA_SET for c in cells], dtype=bool)
    cells[missing] = "nan"
    try:
        return cells.astype(np.float64)
    except ValueError:
        return None


def _read_delimited(path: Path, target: str, *, compressed: bool, transpose: bool) -> _Table:
    suffix = path.name.lower().removesuffix(".gz")
    suffix = suffix[suffix.rfind(".") :] if "." in suffix else ""
    head = _head_text(path, compressed)
    if not head.strip():
        raise DataError(f"{path} is empty (no header line)")
    delim = sniff_delimiter(head, suffix)
    kind = f"{_DELIMITER_NAMES[delim]}-separated text"
    try:
        header = next(csv.reader(io.StringIO(head), delimiter=delim))
    except (csv.Error, StopIteration) as exc:
        raise DataError(f"cannot parse the header of {path} as {kind}: {exc}") from exc
    notes = []
    implied = {".csv": ",", ".tsv": "\t", ".tab": "\t"}.get(suffix)
    if delim != implied and (implied is not None or delim not in (",", "\t")):
        notes.append(f"read as {kind} (the delimiter was detected from the first lines)")
    if transpose:
        return _read_transposed(path, target, delim, kind, compressed, notes)
    names, renamed = _unique_names(header)
    if target not in names:
        raise DataError(_target_missing(path, target, names, delim, compressed))
    if renamed:
        notes.append(
            f"{len(renamed)} duplicated column names were renamed to tell them apart "
            f"(e.g. {renamed[0]!r} -> {renamed[0] + '.1'!r}); check that the file is right"
        )
    if header.count(target) > 1:
        raise DataError(f"the target column {target!r} appears {header.count(target)} times")
    text_first = names[0] != target and _is_text(head, delim)
    compression = "gzip" if compressed else None
    table = _read_fast(path, names, target, delim, compressed, text_first)
    if table is None:
        table = _read_pandas(path, target, delim, kind, compression, names)
    table.notes = notes + table.notes
    return table


def _is_text(head: str, delim: str) -> bool:
    """Whether the first data row's first cell is a text (not a number, not a missing value)."""
    try:
        rows = csv.reader(io.StringIO(head), delimiter=delim)
        next(rows)
        cell = next(rows)[0]
    except (csv.Error, StopIteration, IndexError):
        return False
    if cell in FEATURE_NA_VALUES:
        return False
    try:
        float(cell)
    except ValueError:
        return True
    return False


def _read_pandas(path, target, delim, kind, compression, names) -> _Table:
    """pandas' reader: any cell content, with the labels re-read exactly as written."""
    try:
        with warnings.catch_warnings():
            # Mixed types in a column: the numeric check names the column in one line.
            warnings.simplefilter("ignore", pd.errors.DtypeWarning)
            frame = pd.read_csv(
                path,
                sep=delim,
                keep_default_na=False,
                na_values=FEATURE_NA_VALUES,
                compression=compression,
                header=0,
            )
        # The labels again, as written: "NA" is a class there, only an empty cell is missing.
        labels = pd.read_csv(
            path,
            sep=delim,
            usecols=[target],
            dtype=str,
            keep_default_na=False,
            na_filter=False,
            compression=compression,
        )[target]
    except pd.errors.EmptyDataError as exc:
        raise DataError(f"{path} is empty (no header line)") from exc
    except (pd.errors.ParserError, UnicodeDecodeError, ValueError, EOFError, OSError) as exc:
        raise DataError(f"cannot parse {path} as {kind}: {_first_line(exc)}") from exc
    if len(labels) != len(frame) or frame.shape[1] != len(names):
        raise DataError(f"cannot parse {path} as {kind}: rows of unequal length")
    frame.columns = names
    frame[target] = labels.replace("", np.nan).to_numpy()
    return _from_frame(frame, target)


def _target_missing(path, target, names, delim, compressed) -> str:
    message = (
        f"target column {target!r} not found in {path}; columns are: {_names(names)} "
        "(choose one with --target)"
    )
    try:  # genes in rows? The first column would then hold the target's name.
        first = pd.read_csv(
            path,
            sep=delim,
            usecols=[0],
            dtype=str,
            na_filter=False,
            compression="gzip" if compressed else None,
        ).iloc[:, 0]
    except Exception:
        return message
    if (first == target).any():
        return (
            f"{target!r} is a row of {path}, not a column: the file has features in rows "
            "(e.g. genes x samples); rerun with --transpose"
        )
    return message


def _read_transposed(path, target, delim, kind, compressed, notes) -> _Table:
    """Features in rows: first column = feature names, one row named ``target`` = labels."""
    try:
        cells = pd.read_csv(
            path,
            sep=delim,
            dtype=str,
            na_filter=False,
            index_col=0,
            compression="gzip" if compressed else None,
        )
    except pd.errors.EmptyDataError as exc:
        raise DataError(f"{path} is empty (no header line)") from exc
    except (pd.errors.ParserError, UnicodeDecodeError, ValueError, EOFError, OSError) as exc:
        raise DataError(f"cannot parse {path} as {kind}: {_first_line(exc)}") from exc
    row_names = [str(r) for r in cells.index]
    hits = [i for i, r in enumerate(row_names) if r == target]
    if not hits:
        raise DataError(
            f"--transpose: no row named {target!r} in the first column of {path}; rows are: "
            f"{_names(row_names)} (choose the label row with --target)"
        )
    if len(hits) > 1:
        raise DataError(f"--transpose: the row {target!r} appears {len(hits)} times")
    labels = cells.iloc[hits[0]].to_numpy(dtype=object)
    labels[labels == ""] = None
    keep = np.ones(len(row_names), bool)
    keep[hits[0]] = False
    names, renamed = _unique_names([r for r, k in zip(row_names, keep, strict=True) if k])
    if renamed:
        notes.append(
            f"{len(renamed)} duplicated row names were renamed to tell them apart "
            f"(e.g. {renamed[0]!r} -> {renamed[0] + '.1'!r}); check that the file is right"
        )
    values = cells.to_numpy(dtype=object)[keep]  # features x samples
    missing = np.isin(values, FEATURE_NA_VALUES)
    numbers = pd.to_numeric(
        pd.Series(np.where(missing, "nan", values).ravel()), errors="coerce"
    ).to_numpy()
    bad = np.isnan(numbers).reshape(values.shape) & ~missing
    notes.append(
        f"read transposed: {len(names)} features in rows, {values.shape[1]} samples in columns"
    )
    non_numeric = [names[i] for i in np.flatnonzero(bad.any(axis=1))]
    X = None if non_numeric else numbers.reshape(values.shape).T.copy()
    return _Table(names, X, labels, non_numeric, notes)


def _read_file(path: Path, target: str, transpose: bool) -> _Table:
    if not path.exists():
        raise DataError(f"file not found: {path}")
    if path.is_dir():
        raise DataError(f"{path} is a directory, not a data file")
    kind = _kind(path)
    if kind == "xls":
        raise DataError(f"{path} is an old Excel .xls file; save it as .xlsx or CSV")
    if kind in ("parquet", "feather", "xlsx"):
        if transpose:
            raise DataError(f"--transpose applies to delimited text files, not {kind}")
        frame = _read_arrow(path, kind, target) if kind != "xlsx" else _read_xlsx(path, target)
        frame.columns = [str(c) for c in frame.columns]
        if target not in frame.columns:
            raise DataError(
                f"target column {target!r} not found in {path}; columns are: "
                f"{_names(frame.columns)} (choose one with --target)"
            )
        names, renamed = _unique_names(list(frame.columns))
        frame.columns = names
        table = _from_frame(frame, target)
        if renamed:
            table.notes.append(
                f"{len(renamed)} duplicated column names were renamed to tell them apart "
                f"(e.g. {renamed[0]!r} -> {renamed[0] + '.1'!r}); check that the file is right"
            )
        return table
    return _read_delimited(path, target, compressed=kind == "gzip", transpose=transpose)


def _index_like(table: _Table, n: int) -> list[int]:
    """Columns that number the rows (0..n-1 or 1..n in file order): never a measurement."""
    if table.X is None or n < 3:
        return []
    X = table.X
    steps = np.diff(X, axis=0)
    candidates = np.flatnonzero((steps == 1).all(axis=0))
    return [int(j) for j in candidates if X[0, j] in (0.0, 1.0)]


def check_classes_of(y: np.ndarray, target: str) -> None:
    """At least two classes, each with at least two examples (else one :class:`DataError`)."""
    classes, counts = np.unique(y, return_counts=True)
    if classes.size < 2:
        raise DataError(
            f"target column {target!r} has a single class ({classes[0]!r}); need at least 2"
        )
    small = [f"{c!r} ({k})" for c, k in zip(classes, counts, strict=True) if k < 2]
    if small:
        raise DataError(f"every class needs at least 2 examples; too few in: {', '.join(small)}")


def load_cli_data(
    data: str, *, target: str | None = None, impute: bool = False, transpose: bool = False
) -> LoadedData:
    """Read ``data`` and check it is usable; raise :class:`DataError` naming the problem.

    Checks, in order, all before any analysis: the file exists, is not empty and parses; the
    target column exists; there is at least one data row; no label is empty (a label "NA"
    is kept as a class, with a note); there is a feature column; at least two classes, each
    with at least two examples; every feature column is numeric; no NaN or infinite values
    unless ``impute`` (then each column's median replaces them; the median ignores labels,
    so this leaks no class information); no magnitude above ``MAX_ABS_VALUE``; at least one
    feature that is not constant. A column numbering the rows (0..n-1 or 1..n) and a first
    column of distinct texts (sample names) are left out with a note.

    ``target=None`` means the default ``"class"``; giving another one for a bundled dataset
    is noted (a bundled dataset's target is always its ``class`` column).
    """
    path = Path(data)
    notes: list[str] = []
    if is_store(path):
        fields = load_store(path, target)
        check_classes_of(fields["y"], fields["target"])
        return LoadedData(**fields)
    if data in list_datasets().index and not path.exists():
        if target not in (None, "class"):
            notes.append(f"--target {target!r} is ignored: a bundled dataset's target is 'class'")
        if transpose:
            notes.append("--transpose is ignored for a bundled dataset")
        frame = load_dataset(data, as_frame=True).frame
        source = f"bundled dataset {data!r}"
        target = "class"
        table = _from_frame(frame, target)
    else:
        target = "class" if target is None else target
        table = _read_file(path, target, transpose)
        source = str(path)
    notes = notes + table.notes
    if len(table.labels) == 0:
        raise DataError(f"{source} has a header but no data rows")
    y_raw = pd.Series(table.labels)
    y = y_raw.astype(str).to_numpy(dtype=object)
    empty = np.flatnonzero(y_raw.isna().to_numpy() | (np.char.strip(y.astype(str)) == ""))
    if empty.size:
        raise DataError(
            f"target column {target!r} has {empty.size} empty labels (data rows {_rows(empty)}); "
            "fill them in or remove those rows"
        )
    for label in sorted(set(y) & MISSING_LIKE_LABELS):
        notes.append(
            f"the label {label!r} ({int((y == label).sum())} examples) is kept as a class; "
            "if it marks unknown labels, remove those rows"
        )
    names = table.names
    if not names:
        raise DataError(f"{source} has no feature columns besides {target!r}")
    check_classes_of(y, target)
    if table.non_numeric:
        raise DataError(f"non-numeric feature columns: {_names(table.non_numeric)}")
    X = table.X
    index_cols = _index_like(table, X.shape[0])
    if index_cols and len(index_cols) < X.shape[1]:
        notes.append(
            f"the column {names[index_cols[0]]!r} numbers the rows "
            f"({int(X[0, index_cols[0]])}, {int(X[1, index_cols[0]])}, ...), so it is a row "
            "index, not a measurement: left out of the analysis"
            + (f" ({len(index_cols)} such columns)" if len(index_cols) > 1 else "")
        )
        keep = np.ones(X.shape[1], bool)
        keep[index_cols] = False
        X = X[:, keep]
        names = [n for n, k in zip(names, keep, strict=True) if k]
    names_arr = np.asarray(names, dtype=object)
    bad = ~np.isfinite(X)
    imputed: list[str] = []
    if bad.any():
        bad_cols = names_arr[bad.any(axis=0)]
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
            empty_cols = names_arr[np.isnan(medians)]
            raise DataError(f"columns with no finite value cannot be imputed: {_names(empty_cols)}")
        X = np.where(np.isnan(X), medians, X)
        imputed = [str(c) for c in bad_cols]
    big = np.abs(X) > MAX_ABS_VALUE
    if big.any():
        raise DataError(
            f"values up to {np.abs(X).max():.3g} in columns: {_names(names_arr[big.any(axis=0)])}; "
            f"magnitudes above {MAX_ABS_VALUE:.0e} overflow variances and distances: rescale "
            "those columns (e.g. divide by a power of ten, or take logarithms)"
        )
    if not (X[:1] != X).any():
        raise DataError(
            f"all {X.shape[1]} feature columns are constant (every row has the same values): "
            "no feature can tell the classes apart"
        )
    if X.shape[0] > 5 * X.shape[1] and X.shape[0] > 200 and not transpose:
        notes.append(
            f"{X.shape[0]} samples of {X.shape[1]} features: if the rows are features (genes x "
            "samples), rerun with --transpose"
        )
    name = data if source.startswith("bundled") else path.name
    return LoadedData(
        name=name,
        X=np.ascontiguousarray(X, dtype=float),
        y=y,
        feature_names=names_arr,
        source=source,
        imputed_columns=imputed,
        notes=notes,
        target=str(target),
    )
