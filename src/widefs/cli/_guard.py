"""Where a report goes: checked against the inputs as files, written whole, one per directory.

Files are compared as files, not as path strings: an output place that is the same file as
an input (same device and inode: a hard link, a symbolic link, a bind mount reaching the
input's folder by a second path, or a name that a case-insensitive disk folds onto it) is
refused before anything is written. A report is rendered in a temporary folder inside the
output directory and moved into place file by file, so a failure (a full disk, a quota)
leaves the earlier report as it was; the files an earlier report wrote that the new one does
not (listed in the directory's ``.widefs-report`` manifest) are then removed, and nothing
else in the directory is touched.
"""

from __future__ import annotations

import fnmatch
import os
import re
import shutil
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from widefs.cli._markup import visible
from widefs.exceptions import DataError

__all__ = [
    "MANIFEST",
    "OUTPUT_FILES",
    "OUTPUT_PATTERNS",
    "check_output_dir",
    "file_identity",
    "folds_case",
    "is_output_name",
    "write_files",
]

# Every file a report may write: these names, or a figure name matching a pattern. The output
# directory is checked against the inputs for all of them before any work starts.
OUTPUT_FILES = ("report.html", "report.md", "features.csv", "CITATION.bib")
OUTPUT_PATTERNS = ("*.png",)
MANIFEST = ".widefs-report"  # the names of the files the report in a directory wrote
_SAFE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*\Z")
_FIGURE_LINK = re.compile(r"!\[[^\n]*?\]\(([A-Za-z0-9][A-Za-z0-9_.-]*\.png)\)")


def is_output_name(name: str, fold: bool = False) -> bool:
    """Whether a report may write a file called ``name`` (case-folded when ``fold``)."""
    if fold:
        name = name.casefold()
        return name in {n.casefold() for n in OUTPUT_FILES} or any(
            fnmatch.fnmatchcase(name, p.casefold()) for p in OUTPUT_PATTERNS
        )
    return name in OUTPUT_FILES or any(fnmatch.fnmatchcase(name, p) for p in OUTPUT_PATTERNS)


def file_identity(path: os.PathLike | str) -> tuple[int, int] | None:
    """(device, inode) of the file ``path`` reaches (links followed), None if there is none.

    Two paths name the same file exactly when their identities are equal, whatever the
    strings: hard links, symbolic links, bind mounts, case-folding disks.
    """
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return (st.st_dev, st.st_ino)


def folds_case(directory: Path) -> bool:
    """Whether ``directory``'s file system finds ``NAME`` when asked for ``name`` (macOS,
    Windows), probed with a temporary file."""
    try:
        fd, probe = tempfile.mkstemp(prefix=".widefs-case-probe-", dir=directory)
    except OSError:
        return False
    os.close(fd)
    try:
        head, tail = os.path.split(probe)
        return file_identity(os.path.join(head, tail.upper())) == file_identity(probe)
    finally:
        os.unlink(probe)


def _clash(out_dir: Path, inputs: Sequence[Path]) -> tuple[Path, str] | None:
    """(input, output name) of the first input the report would write over, if any."""
    identities = {file_identity(p): p for p in inputs}
    identities.pop(None, None)
    if not identities or not out_dir.is_dir():
        return None
    fold = folds_case(out_dir)
    with os.scandir(out_dir) as entries:
        for entry in entries:
            if is_output_name(entry.name, fold) or entry.name == MANIFEST:
                hit = identities.get(file_identity(entry.path))
                if hit is not None:
                    return hit, entry.name
    return None


def _writable_place(out_dir: Path, shown: str) -> None:
    if out_dir.exists() and not out_dir.is_dir():
        raise DataError(
            f"--out {shown} exists and is not a directory; give a directory for the report "
            "(it is created if missing)"
        )
    existing = out_dir
    while not existing.exists():
        existing = existing.parent if existing.parent != existing else Path(".")
    if not existing.is_dir():
        raise DataError(f"--out {shown}: {visible(str(existing))} is not a directory")
    try:
        tempfile.TemporaryDirectory(dir=existing, prefix=".widefs-probe-").cleanup()
    except OSError as exc:
        raise DataError(
            f"--out {shown} is not writable ({exc.strerror or exc}); choose another directory"
        ) from exc


def check_output_dir(out_dir: Path, inputs: Sequence[Path] = ()) -> None:
    """Raise :class:`DataError` (one line, naming the fix) if the report cannot go to ``out_dir``.

    Checked before any work: ``out_dir`` is a directory or can be created; it is writable;
    no file the report may write (:data:`OUTPUT_FILES`, ``*.png``, the manifest) is one of
    ``inputs`` (compared by device and inode) or an existing directory.
    """
    out_dir = Path(out_dir)
    shown = visible(str(out_dir))
    _writable_place(out_dir, shown)
    clash = _clash(out_dir, [Path(p) for p in inputs])
    if clash is not None:
        path, name = clash
        raise DataError(
            f"--out {shown} would overwrite the input file {visible(str(path))} (the report "
            f"writes {visible(name)} there); choose another --out directory"
        )
    if out_dir.is_dir():
        for name in OUTPUT_FILES:
            if (out_dir / name).is_dir():
                raise DataError(
                    f"--out {shown} contains a directory named {name}, which the report writes "
                    "as a file; move it or choose another --out directory"
                )


def _earlier_report(out_dir: Path) -> set[str]:
    """The files the report already in ``out_dir`` wrote: its manifest, or (a report written
    before manifests) the figures its report.md links and the files it names."""
    try:
        if (out_dir / MANIFEST).is_file():
            names = (out_dir / MANIFEST).read_text(encoding="utf-8").splitlines()
        elif (out_dir / "report.md").is_file():
            text = (out_dir / "report.md").read_text(encoding="utf-8", errors="replace")
            names = [*_FIGURE_LINK.findall(text), "report.md", "report.html"]
            names += [n for n in ("features.csv", "CITATION.bib") if f"`{n}`" in text]
        else:
            return set()
    except OSError:
        return set()
    return {n for n in names if _SAFE_NAME.match(n) and is_output_name(n)}


def _remove_stale(out_dir: Path, stale: Iterable[str]) -> None:
    for name in stale:
        path = out_dir / name
        if path.is_file() and not path.is_symlink():
            path.unlink()


def _manifest(names: Iterable[str]) -> str:
    return "".join(f"{n}\n" for n in sorted(names))


def _replace_report(out_dir: Path, files: Mapping[str, bytes | str], earlier: set[str]) -> list:
    """Everything is written in a temporary folder first (where a full disk fails, touching
    nothing), then renamed into place: the manifest listing old and new files, the files, the
    stale files removed, the manifest of the new report."""
    with tempfile.TemporaryDirectory(dir=out_dir, prefix=".widefs-report-") as tmp:
        tmp_path = Path(tmp)
        for name, content in files.items():
            target = tmp_path / name
            if isinstance(content, bytes):
                target.write_bytes(content)
            else:
                target.write_text(content, encoding="utf-8")
        (tmp_path / ".both").write_text(_manifest(earlier | set(files)), encoding="utf-8")
        (tmp_path / ".new").write_text(_manifest(files), encoding="utf-8")
        (tmp_path / ".both").replace(out_dir / MANIFEST)
        written = []
        for name in sorted(files):
            (tmp_path / name).replace(out_dir / name)
            written.append(out_dir / name)
        _remove_stale(out_dir, earlier - set(files))
        (tmp_path / ".new").replace(out_dir / MANIFEST)
    return written


def write_files(
    out_dir: Path, files: Mapping[str, bytes | str], inputs: Sequence[Path] = ()
) -> list[Path]:
    """Write a rendered report into ``out_dir``, replacing the earlier report there.

    Raises :class:`DataError` in one line when the disk refuses (full, quota, permissions);
    the earlier report is then unchanged, and a directory made for this report is removed.
    """
    out_dir = Path(out_dir)
    check_output_dir(out_dir, inputs)
    created = not out_dir.exists()
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        written = _replace_report(out_dir, files, _earlier_report(out_dir))
    except OSError as exc:
        if created:
            shutil.rmtree(out_dir, ignore_errors=True)
        kept = "nothing was written" if created else "the report already there is unchanged"
        raise DataError(
            f"cannot write the report to {visible(str(out_dir))}: {exc.strerror or exc}; {kept}"
        ) from exc
    except BaseException:
        if created:
            shutil.rmtree(out_dir, ignore_errors=True)
        raise
    return written
