"""Where a report goes: checked against the inputs as files, written whole, one per directory.

Files are compared as files, not as path strings: an output place that is the same file as
an input (same device and inode: a hard link, a symbolic link, a bind mount reaching the
input's folder by a second path, or a name that a case-insensitive disk folds onto it) is
refused before anything is written.

widefs touches only what it wrote. The directory's ``.widefs-report`` manifest lists every
file the report there wrote with its SHA-256; a file is replaced or removed only when the
manifest lists it with the hash it has now. Any other file a report would write (a
hand-written ``report.md``, the user's ``features.csv``, a figure's name, a symbolic link, a
manifest widefs did not write) stops the run before any work, in one line naming it.

The swap of a finished report is atomic as a whole. Under a lock on the directory (``flock``
on the directory itself), so that concurrent runs into one folder take turns, the report
and its journal (the next manifest) are written into a staging folder inside the directory
and flushed to the disk; renaming that folder to :data:`SWAP` commits the swap; the files
are then moved into place (the manifest listing the old and the new hashes meanwhile), the
earlier report's other files removed, and the journal becomes the manifest. A swap cut
short (a kill, a power cut) is finished, or, before its commit, undone, by the next run into
the directory before anything else (:func:`recover`), so the folder then holds the earlier
report whole or the new one whole and the manifest is true of the files. widefs's own
readers of the folder take the lock; another program reading it during the moves may see
some new files beside old ones (``report.html`` itself, with its figures inside, is always
one run's).
"""

from __future__ import annotations

import contextlib
import fnmatch
import hashlib
import os
import re
import shutil
import tempfile
import time
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from widefs.cli._markup import visible
from widefs.exceptions import DataError

__all__ = [
    "MANIFEST",
    "OUTPUT_FILES",
    "OUTPUT_PATTERNS",
    "REPORT_FIGURES",
    "SWAP",
    "check_disk_space",
    "check_foreign",
    "check_output_dir",
    "file_identity",
    "folds_case",
    "is_output_name",
    "recover",
    "write_files",
]

# Every file a report may write: these names, or a figure name matching a pattern. The output
# directory is checked against the inputs for all of them before any work starts.
OUTPUT_FILES = ("report.html", "report.md", "features.csv", "CITATION.bib")
OUTPUT_PATTERNS = ("*.png",)
# The figures a report writes (checked for foreign files before any work; a figure another
# name would still be checked, after the analysis, before anything is written).
REPORT_FIGURES = (
    "chance_curve.png",
    "errors_allowed.png",
    "stability.png",
    "scm_bounds.png",
    "certificate-*.png",
)
MANIFEST = ".widefs-report"  # the files the report in a directory wrote, with their SHA-256
_MANIFEST_HEADER = "widefs-report sha256"
SWAP = ".widefs-swap"  # a committed swap: the new report's files and its journal
_JOURNAL = "journal"  # in SWAP: the next manifest (its presence says the swap is unfinished)
_BOTH = "both"  # in SWAP: the manifest listing old and new hashes, before it replaces the old
_STAGING_PREFIX = ".widefs-staging-"  # a report being staged, before its commit
_PROBE = ".widefs-probe-"  # then the process id: the probes of the output directory
_SWAP_DAMAGED = "an unfinished report swap widefs cannot finish (damaged)"
LOCK_WAIT = 600.0  # seconds a run waits for another run writing into the same folder
_SAFE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*\Z")
_ENTRY = re.compile(r"([0-9a-f]{64})  ([A-Za-z0-9][A-Za-z0-9_.-]*)\Z")


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
        fd, probe = tempfile.mkstemp(prefix=f"{_PROBE}case-{os.getpid()}-", dir=directory)
    except OSError:
        return False
    os.close(fd)
    try:
        head, tail = os.path.split(probe)
        identity = file_identity(probe)
        return identity is not None and file_identity(os.path.join(head, tail.upper())) == identity
    finally:
        with contextlib.suppress(FileNotFoundError):
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
        tempfile.TemporaryDirectory(dir=existing, prefix=f"{_PROBE}{os.getpid()}-").cleanup()
    except OSError as exc:
        raise DataError(
            f"--out {shown} is not writable ({exc.strerror or exc}); choose another directory"
        ) from exc


def check_output_dir(out_dir: Path, inputs: Sequence[Path] = ()) -> None:
    """Raise :class:`DataError` (one line, naming the fix) if the report cannot go to ``out_dir``.

    Checked before any work: ``out_dir`` is a directory or can be created; it is writable;
    no file the report may write (:data:`OUTPUT_FILES`, ``*.png``, the manifest) is one of
    ``inputs`` (compared by device and inode) or an existing directory; a report swap cut
    short there is finished or undone (:func:`recover`); every file there a report would
    replace was written by widefs (:func:`check_foreign`).
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
    check_foreign(out_dir)  # a swap cut short is first finished (or undone): recover


def report_size(n_features: int) -> int:
    """A generous estimate of a report's bytes: figures (in the PNGs and again, base64, in the
    HTML) and tables of at most a few hundred bytes per feature (``features.csv``)."""
    return 20_000_000 + 600 * int(n_features)


def check_disk_space(out_dir: Path, n_features: int) -> None:
    """Raise :class:`DataError` before the analysis if the disk holding ``out_dir`` has less
    free space than the report needs (:func:`report_size`)."""
    out_dir = Path(out_dir)
    existing = out_dir
    while not existing.exists() and existing.parent != existing:
        existing = existing.parent
    try:
        free = shutil.disk_usage(existing).free
    except OSError:
        return  # no answer from the file system: the write itself reports a full disk
    need = report_size(n_features)
    if free < need:
        raise DataError(
            f"--out {visible(str(out_dir))}: {free / 1e6:.0f} MB free on its disk, and the "
            f"report may need {need / 1e6:.0f} MB; free some space or choose another --out "
            "directory (nothing was analysed)"
        )


def _digest(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


class _Foreign(Exception):
    """A file in the output folder that widefs did not write (its name in ``args``)."""


def _read_manifest(out_dir: Path) -> dict[str, set[str]]:
    """name -> the hashes the manifest lists for it; raises :class:`_Foreign` when the
    manifest is not one widefs wrote (a link, a directory, another format)."""
    path = out_dir / MANIFEST
    if not os.path.lexists(path):
        return {}
    if path.is_symlink() or not path.is_file():
        raise _Foreign(MANIFEST)
    try:
        with open(path, encoding="utf-8") as fh:
            lines = fh.read(1 << 22).splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise _Foreign(MANIFEST) from exc
    if lines and all(_SAFE_NAME.match(line) and is_output_name(line) for line in lines):
        raise _Foreign(MANIFEST, "an earlier widefs's manifest, without the files' hashes")
    if not lines or lines[0] != _MANIFEST_HEADER:
        raise _Foreign(MANIFEST)
    listed: dict[str, set[str]] = {}
    for line in lines[1:]:
        entry = _ENTRY.match(line)
        if entry is None:
            raise _Foreign(MANIFEST)
        listed.setdefault(entry[2], set()).add(entry[1])
    return listed


def _ours(out_dir: Path, name: str, listed: Mapping[str, set[str]]) -> str | None:
    """The hash of ``out_dir/name`` if widefs wrote it (listed with that hash), None if there is
    no such file; raises :class:`_Foreign` for anything else (links, folders, changed files)."""
    path = out_dir / name
    if not os.path.lexists(path):
        return None
    if name not in listed or path.is_symlink() or not path.is_file():
        raise _Foreign(name)
    try:
        digest = _digest(path)
    except OSError as exc:
        raise _Foreign(name) from exc
    if digest not in listed[name]:
        raise _Foreign(name)
    return digest


def _claimed(out_dir: Path, names: Iterable[str]) -> tuple[dict[str, set[str]], dict[str, str]]:
    """The manifest and {name: hash} of the files among ``names`` (and those the manifest lists)
    that are there; raises :class:`_Foreign` for a file widefs did not write."""
    listed = _read_manifest(out_dir)
    present = {}
    for name in sorted(set(names) | set(listed)):
        if not is_output_name(name):
            continue  # a name no report writes: never touched, whatever a manifest says
        digest = _ours(out_dir, name, listed)
        if digest is not None:
            present[name] = digest
    return listed, present


def _report_names(out_dir: Path) -> list[str]:
    """The names a report may write that exist in ``out_dir``."""
    names = list(OUTPUT_FILES)
    with contextlib.suppress(OSError), os.scandir(out_dir) as entries:
        names += [
            e.name for e in entries if any(fnmatch.fnmatchcase(e.name, p) for p in REPORT_FIGURES)
        ]
    return names


def _foreign_error(out_dir: Path, name: str, what: str = "") -> DataError:
    what = what or "a file widefs did not write there (or one changed since)"
    return DataError(
        f"--out {visible(str(out_dir))} holds {visible(name)}, {what}; nothing was written: "
        "move it or choose another --out directory"
    )


def check_foreign(out_dir: Path) -> None:
    """Raise :class:`DataError` if ``out_dir`` holds a file a report would write or remove that
    widefs did not write there (not listed in the manifest with the hash it has now).

    Read under the directory's lock, after :func:`recover`: never in the middle of a swap.
    """
    _under_lock(Path(out_dir), check=True)


def _manifest(entries: Iterable[tuple[str, str]]) -> str:
    lines = sorted({f"{digest}  {name}" for name, digest in entries}, key=lambda s: s[66:] + s)
    return _MANIFEST_HEADER + "\n" + "".join(f"{line}\n" for line in lines)


@contextlib.contextmanager
def _locked(out_dir: Path):
    """Hold an exclusive lock on ``out_dir`` (waiting up to :data:`LOCK_WAIT` seconds for a run
    writing there); where ``fcntl`` is missing (Windows) the runs are not serialised."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        yield
        return
    # The lock is on the directory itself: no lock file to leave behind or to race on.
    fd = os.open(out_dir, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | os.O_CLOEXEC)
    try:
        deadline = time.monotonic() + LOCK_WAIT
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise DataError(
                        f"--out {visible(str(out_dir))} is being written by another widefs run "
                        f"(waited {LOCK_WAIT:.0f} s); try again or choose another --out"
                    ) from None
                time.sleep(0.01)
        yield
    finally:
        os.close(fd)  # releases the lock


def _sync(path: Path) -> None:
    """Flush ``path`` (a file or a directory's entries) to the disk: a swap committed after a
    power cut finds every staged byte."""
    with contextlib.suppress(OSError):  # (directories cannot be opened on every platform)
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _write_synced(path: Path, data: bytes) -> None:
    with open(path, "xb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())


def _remove_dir(path: Path) -> None:
    """Remove a staging folder widefs made (never following a link inside)."""
    if path.is_symlink() or not path.is_dir():
        raise _Foreign(path.name)
    shutil.rmtree(path)


def _journal(swap: Path) -> dict[str, str]:
    """name -> hash of the report a committed swap installs, each staged file still there
    checked against it; raises :class:`_Foreign` (naming the swap) for anything else."""
    try:
        lines = (swap / _JOURNAL).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise _Foreign(SWAP, _SWAP_DAMAGED) from exc
    entries = [_ENTRY.match(line) for line in lines[1:]]
    if not lines or lines[0] != _MANIFEST_HEADER or not all(entries):
        raise _Foreign(SWAP, _SWAP_DAMAGED)
    new = {e[2]: e[1] for e in entries}
    for name, digest in new.items():
        staged = swap / name
        if not is_output_name(name) or (
            os.path.lexists(staged)
            and (staged.is_symlink() or not staged.is_file() or _digest(staged) != digest)
        ):
            raise _Foreign(SWAP, _SWAP_DAMAGED)
    return new


def _move_order(name: str) -> tuple[int, str]:
    # The figures and tables first, the report files last: a new report.md finds its figures.
    return (name in ("report.md", "report.html"), name)


def _roll_forward(out_dir: Path, new: Mapping[str, str]) -> None:
    """Finish the committed swap in ``out_dir/SWAP`` (installing the report ``new``); every step
    can be repeated, so a swap cut at any point is finished by running this again.

    The manifest lists the old and the new hashes while the files move (it is true of the
    files at every step), then the journal becomes the manifest and the staging folder goes.
    """
    swap = out_dir / SWAP
    old = _read_manifest(out_dir)
    both = [(n, d) for n, digests in old.items() for d in digests] + list(new.items())
    with contextlib.suppress(FileNotFoundError):
        (swap / _BOTH).unlink()
    _write_synced(swap / _BOTH, _manifest(both).encode("utf-8"))
    os.replace(swap / _BOTH, out_dir / MANIFEST)
    for name in sorted(new, key=_move_order):
        if os.path.lexists(swap / name):
            _before_move(name)
            os.replace(swap / name, out_dir / name)
    for name in sorted(set(old) - set(new)):
        path = out_dir / name
        if (
            is_output_name(name)
            and path.is_file()
            and not path.is_symlink()
            and _digest(path) in old[name]
        ):
            path.unlink()
    os.replace(swap / _JOURNAL, out_dir / MANIFEST)
    _sync(out_dir)
    _remove_dir(swap)


def _recover(out_dir: Path) -> None:
    """Under the lock: finish a swap that was committed and cut short (a kill, a power cut),
    and remove staging folders of swaps cut short before their commit."""
    swap = out_dir / SWAP
    if os.path.lexists(swap):
        if swap.is_symlink() or not swap.is_dir():
            raise _Foreign(SWAP)
        if os.path.lexists(swap / _JOURNAL):
            _roll_forward(out_dir, _journal(swap))
        else:  # the journal became the manifest: only the folder was left
            _remove_dir(swap)
    with os.scandir(out_dir) as entries:
        staged = [e.name for e in entries if e.name.startswith(_STAGING_PREFIX)]
    for name in staged:  # staging happens under the lock: these were cut short
        with contextlib.suppress(_Foreign):
            _remove_dir(out_dir / name)
    _remove_dead_probes(out_dir)


def _remove_dead_probes(out_dir: Path) -> None:
    """Remove the empty probes (:func:`folds_case`, the writability check) of processes that
    died before removing them; those of a live run are its own."""
    with os.scandir(out_dir) as entries:
        probes = [e for e in entries if e.name.startswith(_PROBE)]
    for entry in probes:
        pid = entry.name[len(_PROBE) :].removeprefix("case-").split("-")[0]
        if not pid.isdigit() or _alive(int(pid)):
            continue
        with contextlib.suppress(OSError):  # (not empty, or gone: left alone)
            if entry.is_dir(follow_symlinks=False):
                os.rmdir(entry.path)
            elif entry.is_file(follow_symlinks=False) and entry.stat().st_size == 0:
                os.unlink(entry.path)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process, or no signals here (Windows)
        return True
    return True


def recover(out_dir: Path) -> None:
    """Finish or undo a report swap in ``out_dir`` cut short by a crash, under the lock.

    After it, ``out_dir`` holds the earlier report whole or the new one whole, and the
    manifest is true of the files. Raises :class:`DataError` in one line when the swap there
    is not one widefs can finish (a damaged journal, a link) or the disk refuses.
    """
    _under_lock(Path(out_dir), check=False)


def _under_lock(out_dir: Path, check: bool) -> None:
    """:func:`recover`, then (``check``) :func:`check_foreign`, holding the lock."""
    if not out_dir.is_dir():
        return
    try:
        with _locked(out_dir):
            _recover(out_dir)
            if check:
                _claimed(out_dir, _report_names(out_dir))
    except _Foreign as exc:
        raise _foreign_error(out_dir, *exc.args) from None
    except OSError as exc:
        raise DataError(
            f"cannot finish the report swap cut short in {visible(str(out_dir))}: "
            f"{exc.strerror or exc}; the next run finishes it"
        ) from exc


class _Unfinished(Exception):
    """A committed swap that failed before it finished (the next run finishes it)."""


def _before_move(name: str) -> None:
    """A hook for tests that force two runs to finish at the same time."""


def _stage(out_dir: Path, files: Mapping[str, bytes | str]) -> tuple[Path, dict[str, str]]:
    """Write the report and its journal (the next manifest) into a new staging folder."""
    staging = Path(tempfile.mkdtemp(dir=out_dir, prefix=_STAGING_PREFIX))
    try:
        hashes = {}
        for name, content in files.items():
            data = content if isinstance(content, bytes) else content.encode("utf-8")
            _write_synced(staging / name, data)
            hashes[name] = hashlib.sha256(data).hexdigest()
        _write_synced(staging / _JOURNAL, _manifest(hashes.items()).encode("utf-8"))
        _sync(staging)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return staging, hashes


def _replace_report(out_dir: Path, files: Mapping[str, bytes | str]) -> list[Path]:
    """Under the directory's lock: finish any swap cut short, check every file the report
    replaces is one widefs wrote, stage the report (where a full disk fails, touching
    nothing), commit it by renaming the staging folder to :data:`SWAP`, roll forward."""
    with _locked(out_dir):
        try:
            _recover(out_dir)
            _claimed(out_dir, files)
        except _Foreign as exc:
            raise _foreign_error(out_dir, *exc.args) from None
        staging, hashes = _stage(out_dir, files)
        try:
            os.replace(staging, out_dir / SWAP)  # the commit: one rename
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        _sync(out_dir)
        try:
            _roll_forward(out_dir, hashes)
        except (OSError, _Foreign) as exc:
            raise _Unfinished(exc) from exc
        except BaseException:  # a signal: the committed swap is finished first (milliseconds)
            with contextlib.suppress(Exception):
                _roll_forward(out_dir, hashes)
            raise
    return [out_dir / name for name in sorted(files)]


def write_files(
    out_dir: Path, files: Mapping[str, bytes | str], inputs: Sequence[Path] = ()
) -> list[Path]:
    """Write a rendered report into ``out_dir``, replacing the earlier report there.

    Raises :class:`DataError` in one line when the disk refuses (full, quota, permissions)
    or when a file there that the report would replace was not written by widefs; the
    earlier report is then unchanged, and a directory made for this report is removed.
    """
    out_dir = Path(out_dir)
    check_output_dir(out_dir, inputs)
    created = not out_dir.exists()
    shown = visible(str(out_dir))
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        written = _replace_report(out_dir, files)
    except _Unfinished as exc:  # committed: the next run (or recover) finishes the new report
        cause = exc.args[0]
        why = getattr(cause, "strerror", None) or cause
        raise DataError(
            f"cannot finish writing the report to {shown}: {why}; the next widefs run "
            "into it finishes the new report before anything else"
        ) from cause
    except OSError as exc:
        if created:
            shutil.rmtree(out_dir, ignore_errors=True)
        kept = "nothing was written" if created else "the report already there is unchanged"
        raise DataError(
            f"cannot write the report to {shown}: {exc.strerror or exc}; {kept}"
        ) from exc
    except BaseException:
        if created:
            shutil.rmtree(out_dir, ignore_errors=True)
        raise
    return written
