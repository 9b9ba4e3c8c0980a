"""Labels from a GEO series matrix's own description of its samples.

A series matrix (``GSE..._series_matrix.txt.gz``) describes its samples in lines starting
with ``!`` before the table: ``!Sample_geo_accession`` (the ids, which head the table's
columns), ``!Sample_title``, ``!Sample_source_name_ch1`` and any number of
``!Sample_characteristics_ch1`` lines whose cells read ``key: value``. ``--target KEY``
takes each sample's class from the characteristics cell with that key, on whichever line it
is (series put tissue, disease state, age... on lines in any order), with the ``key:``
prefix stripped; ``--target title`` and ``--target source_name`` take those lines. The table
(probes in rows, samples in columns) is then read as with ``--labels``.
"""

from __future__ import annotations

import csv
from pathlib import Path

from widefs.cli.io._labels import LabelFile, join_labels
from widefs.cli.io._memory import Budget
from widefs.cli.io._tables import RawTable, first_line, show_names
from widefs.cli.io._text import _ERRORS, _detect_encoding, _read_line, open_binary, open_text
from widefs.exceptions import DataError

__all__ = ["read_geo"]

_PLAIN = {"title": "!Sample_title", "source_name": "!Sample_source_name_ch1"}
_CHARACTERISTICS = "!Sample_characteristics_ch1"
_SHOW_KEYS = 8  # characteristics listed in a message
_SHOW_CLASSES = 4  # classes listed per characteristic


def _cells(line: str) -> list[str]:
    return [c.strip() for c in next(csv.reader([line.rstrip("\r\n")], delimiter="\t"), [])]


def _sample_lines(path: Path, compressed: bool | str, budget: Budget) -> dict[str, list] | None:
    """The ``!Sample_`` lines of the preamble (characteristics as a list of lines), or None
    when the file is not a series matrix."""
    with open_binary(path, compressed) as fh:
        encoding, _ = _detect_encoding(fh.read(4096))
    found: dict[str, list] = {_CHARACTERISTICS: []}
    with open_text(path, compressed, encoding) as fh:
        line = _read_line(fh, budget, path)
        if not line.startswith("!"):
            return None
        while line and (line.startswith("!") or not line.strip()):
            if line.startswith("!series_matrix_table_begin"):
                break
            cells = _cells(line) if line.startswith("!Sample_") else []
            if cells and cells[0] == _CHARACTERISTICS:
                found[_CHARACTERISTICS].append(cells[1:])
            elif cells:
                found.setdefault(cells[0], cells[1:])
            line = _read_line(fh, budget, path)
    return found if "!Sample_geo_accession" in found else None


def _split(cell: str) -> tuple[str, str]:
    key, sep, value = cell.partition(":")
    return (key.strip(), value.strip()) if sep else ("", cell.strip())


def _characteristics(lines: list[list[str]], n: int) -> dict[str, list[str | None]]:
    """Each key's value per sample, whichever line holds it."""
    keys: dict[str, list[str | None]] = {}
    for cells in lines:
        for i, cell in enumerate(cells[:n]):
            key, value = _split(cell)
            if key:
                keys.setdefault(key, [None] * n)[i] = value
    return keys


def _unknown(target: str, keys: dict[str, list], path: Path) -> DataError:
    shown = []
    for key, values in list(keys.items())[:_SHOW_KEYS]:
        classes = sorted({v for v in values if v})
        more = ", ..." if len(classes) > _SHOW_CLASSES else ""
        listed = ", ".join(classes[:_SHOW_CLASSES]) + more
        shown.append(f"{key!r} ({len(classes)} classes: {listed})")
    more = f"; ... ({len(keys)} keys in all)" if len(keys) > _SHOW_KEYS else ""
    present = "; ".join(shown) + more if shown else "none"
    return DataError(
        f"--target {target!r} is not a sample characteristic of the GEO series matrix {path}; "
        f"characteristics: {present}; also title and source_name"
    )


def _labels(found: dict[str, list], target: str, path: Path) -> tuple[list, str]:
    ids = found["!Sample_geo_accession"]
    if target in _PLAIN and _PLAIN[target] in found:
        return found[_PLAIN[target]][: len(ids)], f"the line {_PLAIN[target]}"
    keys = _characteristics(found[_CHARACTERISTICS], len(ids))
    if target not in keys:
        folded = {k.casefold(): k for k in keys}
        if target.casefold() not in folded:
            raise _unknown(target, keys, path)
        target = folded[target.casefold()]
    return keys[target], f"the sample characteristic {target!r} ({_CHARACTERISTICS} lines)"


def read_geo(
    path: Path, target: str, compressed: bool | str, budget: Budget, read
) -> RawTable | None:
    """A GEO series matrix labelled from its sample lines, or None if ``path`` is not one.

    ``read(sample_ids)`` reads the table with its samples in columns (the ``--labels`` route).
    """
    try:
        found = _sample_lines(path, compressed, budget)
    except (*_ERRORS, csv.Error) as exc:  # csv: a cell over its field limit (128 KiB)
        raise DataError(f"cannot read {path}: {first_line(exc)}") from exc
    except DataError as exc:  # the encoding's check names the problem, not the file
        raise DataError(f"{path} {exc}" if str(exc).startswith("holds") else str(exc)) from None
    if found is None:
        return None
    ids = found["!Sample_geo_accession"]
    values, where = _labels(found, target, path)
    if len(values) != len(ids):
        raise DataError(
            f"{path}: {where} has {len(values)} cells for {len(ids)} samples ({show_names(ids)})"
        )
    empty = [i for i, v in zip(ids, values, strict=True) if not v]
    if empty:
        raise DataError(
            f"{path}: {len(empty)} of the {len(ids)} samples have no value in {where}: "
            f"{show_names(empty)}; choose another --target, or give the labels with --labels FILE"
        )
    labels = LabelFile(path, list(ids), list(values), ["ID_REF", target], 1)
    table = read(ids)
    join_labels(table, labels, path)
    table.notes[-1] = (
        f"labels from {where} of the GEO series matrix, joined to the {len(ids)} samples "
        "(its columns) by their accessions"
    )
    return table
