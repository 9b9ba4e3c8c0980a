"""Load and check the data given to the command line (a table file or a bundled name).

Files: delimited text, plain or gzip/bzip2/xz-compressed (see :mod:`widefs.cli.io._text` for
what is detected and :mod:`widefs.cli.io._delimited` for the layouts), parquet and feather
(pyarrow) and xlsx (openpyxl) through the optional extra ``widefs[formats]``, AnnData
``.h5ad`` through ``widefs[anndata]`` (:mod:`widefs.cli.io._anndata`). Labels are a column of
the table, a row of it (``transpose=True``), a file of their own (``labels=``, see
:mod:`widefs.cli.io._labels`), a GEO series matrix's sample characteristic
(:mod:`widefs.cli.io._geo`) or an ``obs`` column. Every file's shape is checked against the
memory the machine has (or ``max_memory``) before its numbers are read.

Everything that is read differently from what a reader might expect gets a one-line note:
renamed duplicate names, a row-index column left out, labels such as "NA" kept as classes,
missing values imputed, constant columns, decimal commas, another encoding, columns left out
(``exclude``), columns that look like sample annotations, gene names Excel made into dates.
Whether the numbers are counts is the analysis's decision (``--counts`` overrides it).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from widefs.cli.io._anndata import read_h5ad
from widefs.cli.io._archives import TEXT_COMPRESSIONS, zip_kind
from widefs.cli.io._checks import check_classes, check_labels, check_values
from widefs.cli.io._columns import (
    annotation_note,
    date_names_note,
    drop_excluded,
    parse_exclude,
)
from widefs.cli.io._counts import counts_option
from widefs.cli.io._delimited import read_delimited, read_unlabelled
from widefs.cli.io._design import StudyDesignColumns, read_design
from widefs.cli.io._exclusion import excluding
from widefs.cli.io._formats import read_arrow, read_xlsx
from widefs.cli.io._geo import read_geo
from widefs.cli.io._labels import join_labels, read_labels
from widefs.cli.io._memory import Budget, memory_budget
from widefs.cli.io._store import is_store, load_store
from widefs.cli.io._tables import RawTable, from_frame
from widefs.datasets import list_datasets, load_dataset
from widefs.exceptions import DataError

__all__ = ["LoadedData", "load_cli_data"]

_MAGIC = {
    b"\x1f\x8b": "gzip",
    b"PAR1": "parquet",
    b"ARROW1": "feather",
    b"PK\x03\x04": "xlsx",
    b"\xd0\xcf\x11\xe0": "xls",
    b"\x89HDF\r\n\x1a\n": "h5ad",
    b"BZh": "bz2",
    b"\xfd7zXZ\x00": "xz",
}


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
    counts: bool | str = "auto"  # analyse()'s counts: "auto", or --counts / --no-counts
    design: StudyDesignColumns = field(default_factory=StudyDesignColumns)

    @property
    def in_memory(self) -> bool:
        """False for a zarr store read where it lies (see :mod:`widefs.cli.io._store`)."""
        return isinstance(self.X, np.ndarray)

    @property
    def smallest_class(self) -> int:
        """Number of examples of the least frequent class."""
        return int(self.class_counts[1].min())

    @property
    def class_counts(self) -> tuple[np.ndarray, np.ndarray]:
        """The classes read (sorted) and how many examples each has."""
        return np.unique(self.y, return_counts=True)


def _kind(path: Path) -> str:
    """The file's format from its first bytes ("text" unless a known signature is there)."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(8)
    except OSError as exc:
        raise DataError(f"cannot read {path}: {exc.strerror or exc}") from exc
    for magic, kind in _MAGIC.items():
        if head.startswith(magic):
            return kind
    return "text"


def _read_file(
    path: Path, target: str, transpose: bool, labels, budget: Budget, layer: str | None = None
) -> RawTable:
    if not path.exists():
        raise DataError(f"file not found: {path}")
    if path.is_dir():
        raise DataError(f"{path} is a directory, not a data file")
    kind = _kind(path)
    if kind == "xls":
        raise DataError(f"{path} is an old Excel .xls file; save it as .xlsx or CSV")
    if kind == "xlsx":
        kind = zip_kind(path)
    if kind not in ("text", *TEXT_COMPRESSIONS) and (transpose or labels is not None):
        option = "--transpose" if transpose else "--labels"
        raise DataError(f"{option} applies to delimited text files, not {kind}")
    if layer is not None and kind != "h5ad":
        raise DataError("--layer applies to an AnnData .h5ad file")
    if kind == "h5ad":
        return read_h5ad(path, target, layer, budget)
    if kind in ("parquet", "feather"):
        return read_arrow(path, kind, target, budget)
    if kind == "xlsx":
        return read_xlsx(path, target, budget)
    compressed = kind if kind in TEXT_COMPRESSIONS else False
    if labels is None and not transpose:

        def samples_in_columns(ids):
            return read_unlabelled(path, compressed=compressed, sample_ids=ids, budget=budget)

        geo = read_geo(path, target, compressed, budget, samples_in_columns)
        if geo is not None:
            return geo
    if labels is not None:
        if transpose:
            raise DataError("--labels and --transpose: give one (--labels finds the orientation)")
        table = read_unlabelled(
            path, compressed=compressed, sample_ids=labels.candidates, budget=budget
        )
        join_labels(table, labels, path)
        return table
    return read_delimited(path, target, compressed=compressed, transpose=transpose, budget=budget)


def _bundled(data: str, target: str | None, transpose: bool, labels) -> tuple[RawTable, list]:
    notes = []
    if target not in (None, "class"):
        notes.append(f"--target {target!r} is ignored: a bundled dataset's target is 'class'")
    if transpose:
        notes.append("--transpose is ignored for a bundled dataset")
    if labels is not None:
        raise DataError(f"--labels applies to a data file, not to the bundled dataset {data!r}")
    return from_frame(load_dataset(data, as_frame=True).frame, "class"), notes


def load_cli_data(
    data: str,
    *,
    target: str | None = None,
    impute: bool = False,
    transpose: bool = False,
    labels: str | None = None,
    max_memory: int | None = None,
    layer: str | None = None,
    exclude: str | None = None,
    counts: bool | None = None,
    covariates: str | None = None,
    groups: str | None = None,
) -> LoadedData:
    """Read ``data`` and check it is usable; raise :class:`DataError` naming the problem.

    Checks, in order, all before any analysis: the file exists, is not empty, fits in
    memory and parses; the target column exists; there is at least one data row; no label
    is empty (labels are stripped of surrounding spaces; a label "NA" is kept as a class,
    with a note); there is a feature column; a numeric target has few distinct values (widefs
    classifies); at least two classes, each with at least two examples; every feature column
    is numeric; no missing or infinite values unless ``impute`` (then each column's median
    replaces them; the median ignores labels, so this leaks no class information); no
    magnitude above ``MAX_ABS_VALUE``; at least one feature that is not constant. A column
    numbering the rows and a first column of sample names are left out with a note.

    ``target=None`` means the default ``"class"``; giving another one for a bundled dataset
    is noted (a bundled dataset's target is always its ``class`` column). ``labels``: a file
    of sample ids and labels joined to the data by id. ``max_memory``: bytes the data may
    take (default: what the machine has free). ``layer``: the layer of an AnnData ``.h5ad``
    file to analyse instead of its ``X``. ``exclude``: names of columns (rows, with the
    features in rows) that are not features, separated by commas. ``counts``: read the
    values as counts (True), not (False), or as recognised from them (None). ``covariates``
    (names separated by commas) and ``groups``: columns of the ``labels`` sample sheet, the
    study design (see :mod:`widefs.cli.io._design`).
    """
    path = Path(data)
    if is_store(path):
        if covariates or groups:
            raise DataError(
                "--covariates and --groups apply to a data file with --labels, not a store"
            )
        fields = load_store(path, target)
        check_classes(fields["y"], fields["target"])
        return LoadedData(**fields)
    budget, excluded = memory_budget(max_memory), parse_exclude(exclude)
    with excluding(excluded):
        if data in list_datasets().index and not path.exists():
            table, notes = _bundled(data, target, transpose, labels)
            source, name, target = f"bundled dataset {data!r}", data, "class"
        else:
            target = "class" if target is None else target
            label_file = None if labels is None else read_labels(Path(labels), target, budget)
            table, notes = _read_file(path, target, transpose, label_file, budget, layer), []
            source, name = str(path), path.name
        notes += table.notes
        drop_excluded(table, excluded, str(target), notes)
    annotation_note(table, notes)
    date_names_note(table, notes)
    y = check_labels(table, target, source, notes)
    X, names, imputed = check_values(table, impute, transpose, notes)
    is_counts = counts_option(X, counts)
    design = read_design(table.sheet, covariates, groups, str(target), str(labels), y)
    return LoadedData(
        name=name,
        X=X,
        y=y,
        feature_names=names,
        source=source,
        imputed_columns=imputed,
        notes=notes,
        target=str(target),
        counts=is_counts,
        design=design,
    )
