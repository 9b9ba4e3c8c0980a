"""Compressed inputs: which are read on the fly and which are named in one line.

gzip, bzip2 and xz files of delimited text are read as they decompress. A zip file is an
xlsx workbook when it holds one (``xl/workbook.xml``); any other zip archive may hold several
files, so it is refused with the names of what it holds.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

from widefs.cli.io._tables import first_line, show_names
from widefs.exceptions import DataError

__all__ = ["TEXT_COMPRESSIONS", "zip_kind"]

TEXT_COMPRESSIONS = ("gzip", "bz2", "xz")


def zip_kind(path: Path) -> str:
    """``"xlsx"`` for a workbook; raise :class:`DataError` naming another archive's files."""
    try:
        with zipfile.ZipFile(path) as archive:
            names = archive.namelist()
    except (zipfile.BadZipFile, OSError) as exc:
        raise DataError(f"cannot read {path} as xlsx or zip: {first_line(exc)}") from exc
    if "xl/workbook.xml" in names or not names:  # an empty one: the xlsx reader says why
        return "xlsx"
    files = [n for n in names if not n.endswith("/")]
    raise DataError(
        f"{path} is a zip archive holding {show_names(files)}: unzip it and give the data file "
        "(gzip, bzip2 and xz files are read as they are)"
    )
