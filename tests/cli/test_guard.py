"""Outputs against inputs as files (device and inode, case folding), one report per directory,
write errors in one line with the earlier report intact, and the caller's environment kept."""

import errno
import hashlib
import os
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pandas as pd
import pytest

from widefs.cli import main
from widefs.cli._guard import (
    MANIFEST,
    check_output_dir,
    file_identity,
    folds_case,
    is_output_name,
    write_files,
)
from widefs.exceptions import DataError


def toy(path, n=16, p=6, seed=0):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(rng.normal(size=(n, p)).round(3), columns=[f"g{j}" for j in range(p)])
    frame["class"] = np.where(np.arange(n) % 2, "a", "b")
    frame.loc[frame["class"] == "a", "g0"] += 2
    path.parent.mkdir(parents=True, exist_ok=True)
    frame.to_csv(path, index=False)
    return path


def sha(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def run(*argv):
    return main(["run", *map(str, argv), "--methods", "chance", "--quick"])


def test_identity_is_the_file_not_the_path(tmp_path):
    a = tmp_path / "a.csv"
    a.write_text("x")
    os.link(a, tmp_path / "hard.csv")
    (tmp_path / "soft.csv").symlink_to(a)
    shutil.copy(a, tmp_path / "copy.csv")
    assert file_identity(a) == file_identity(tmp_path / "hard.csv")
    assert file_identity(a) == file_identity(tmp_path / "soft.csv")
    assert file_identity(a) != file_identity(tmp_path / "copy.csv")
    assert file_identity(tmp_path / "missing.csv") is None
    assert file_identity(a) == (os.stat(a).st_dev, os.stat(a).st_ino)


def test_case_folded_names():
    assert is_output_name("features.csv") and not is_output_name("Features.csv")
    assert is_output_name("Features.CSV", fold=True) and is_output_name("X.PNG", fold=True)
    assert is_output_name("Report.HTML", fold=True) and not is_output_name("data.csv", fold=True)


def test_case_folding_probe_tells_the_truth(tmp_path):
    (tmp_path / "aB").write_text("x")
    assert folds_case(tmp_path) == (tmp_path / "AB").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["aB"]  # the probe is gone


def test_case_insensitive_disk_loses_no_input(tmp_path, monkeypatch, capsys):
    """On macOS or Windows, ``Features.csv`` *is* ``features.csv``: refused there, and fine
    where the disk keeps them apart."""
    data = toy(tmp_path / "Features.csv")
    check_output_dir(tmp_path, [data])  # this disk tells the names apart
    monkeypatch.setattr("widefs.cli._guard.folds_case", lambda directory: True)
    with pytest.raises(DataError, match=r"would overwrite the input file .*Features\.csv"):
        check_output_dir(tmp_path, [data])
    monkeypatch.chdir(tmp_path)
    before = sha(data)
    assert run("Features.csv", "--out", ".") == 2
    assert "would overwrite the input file Features.csv" in capsys.readouterr().err
    assert sha(data) == before


def test_a_hard_link_to_the_input_in_out_is_refused(tmp_path, capsys):
    data = toy(tmp_path / "in" / "features.csv")
    (tmp_path / "out").mkdir()
    os.link(data, tmp_path / "out" / "features.csv")
    assert run(data, "--out", tmp_path / "out") == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "would overwrite the input file" in err
    assert not (tmp_path / "out" / "report.html").exists()


def test_the_inputs_folder_by_a_second_path_is_refused(tmp_path, capsys):
    """A symbolic link to the input's folder: the guard compares files, not path strings."""
    data = toy(tmp_path / "real" / "features.csv")
    (tmp_path / "second").symlink_to(tmp_path / "real", target_is_directory=True)
    before = sha(data)
    assert run(tmp_path / "second" / "features.csv", "--out", tmp_path / "real") == 2
    assert "would overwrite the input file" in capsys.readouterr().err
    assert run(data, "--out", tmp_path / "second") == 2
    assert sha(data) == before and sorted(p.name for p in data.parent.iterdir()) == [data.name]


def _can_bind_mount():
    if not shutil.which("unshare"):
        return False
    probe = subprocess.run(["unshare", "-rm", "true"], capture_output=True, timeout=30)
    return probe.returncode == 0


@pytest.mark.skipif(not _can_bind_mount(), reason="no user namespaces for a bind mount")
def test_a_bind_mount_of_the_inputs_folder_is_refused(tmp_path):
    """The issue's case: the input's folder mounted a second time (as on shared servers)."""
    data = toy(tmp_path / "first" / "features.csv")
    (tmp_path / "second").mkdir()
    before = sha(data)
    script = textwrap.dedent(
        f"""
        import sys
        from widefs.cli import main
        sys.exit(main(["run", {str(tmp_path / "second" / "features.csv")!r}, "--out",
                       {str(tmp_path / "first")!r}, "--methods", "chance", "--quick"]))
        """
    )
    shell = f'mount --bind {tmp_path / "first"} {tmp_path / "second"} && exec "$0" -c "$1"'
    proc = subprocess.run(
        ["unshare", "-rm", "sh", "-c", shell, sys.executable, script],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.count("\n") == 1 and "would overwrite the input file" in proc.stderr
    assert sha(data) == before


def test_a_full_disk_is_one_line_and_the_old_report_survives(tmp_path, monkeypatch, capsys):
    data = toy(tmp_path / "d.csv")
    out = tmp_path / "out"
    write_files(out, _report(**{"old.png": b"png"}))  # an earlier report
    old = {p.name: sha(p) for p in out.iterdir()}

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr("widefs.cli._guard.os.fsync", full)  # where a full disk shows
    assert run(data, "--out", out) == 2
    # After the lines of the stages that ran (stderr is not a terminal), one line.
    err = "".join(
        line
        for line in capsys.readouterr().err.splitlines(True)
        if not line.startswith("widefs: [")
    )
    assert err == (
        f"widefs: error: cannot write the report to {out}: No space left on device; the "
        "report already there is unchanged\n"
    )
    assert {p.name: sha(p) for p in out.iterdir()} == old
    with pytest.raises(DataError, match="No space left on device; nothing was written"):
        write_files(tmp_path / "fresh", _report(**{"a.png": b"png"}))
    assert not (tmp_path / "fresh").exists()


def _report(**figures):
    return {"report.md": "# r\n", "report.html": "<p>r</p>", **figures}


def test_an_earlier_reports_files_go_and_nothing_else(tmp_path):
    out = tmp_path / "out"
    write_files(out, _report(**{f"fig{i}.png": b"old" for i in range(6)}, **{"features.csv": "x"}))
    (out / "notes.txt").write_text("mine")
    (out / "mine.png").write_bytes(b"mine")
    written = write_files(out, _report(**{"fig0.png": b"new"}))
    assert sorted(p.name for p in written) == ["fig0.png", "report.html", "report.md"]
    names = sorted(p.name for p in out.iterdir())
    assert names == [MANIFEST, "fig0.png", "mine.png", "notes.txt", "report.html", "report.md"]
    assert (out / "fig0.png").read_bytes() == b"new" and (out / "mine.png").read_bytes() == b"mine"
    assert (out / MANIFEST).read_text().split()[3::2] == ["fig0.png", "report.html", "report.md"]


def test_a_hand_written_report_is_foreign_and_nothing_in_its_folder_goes(tmp_path):
    """A report.md without a widefs manifest is the user's: its figures are not stale."""
    out = tmp_path / "out"
    out.mkdir()
    (out / "report.md").write_text("![blot](western_blot.png) and `features.csv`\n")
    for name in ("western_blot.png", "qpcr_results.png", "features.csv"):
        (out / name).write_text(name)
    before = {p.name: sha(p) for p in out.iterdir()}
    with pytest.raises(DataError, match=r"^--out .*out holds features\.csv, a file widefs did not"):
        write_files(out, _report())
    assert {p.name: sha(p) for p in out.iterdir()} == before


def _entry(name, content):
    return f"{hashlib.sha256(content).hexdigest()}  {name}\n"


def test_a_manifest_cannot_remove_other_files(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "data.csv").write_text("keep")
    (tmp_path / "outside.png").write_text("keep")
    header = "widefs-report sha256\n"
    (out / MANIFEST).write_text(header + _entry("data.csv", b"keep"))
    write_files(out, _report())  # data.csv is no report's name: listed or not, never touched
    assert (out / "data.csv").read_text() == "keep"
    (out / "link.png").symlink_to(tmp_path / "outside.png")
    (out / MANIFEST).write_text(header + _entry("link.png", b"keep"))
    with pytest.raises(DataError, match=r"holds link\.png, a file widefs did not write"):
        write_files(out, _report())
    assert (out / "link.png").is_symlink() and (tmp_path / "outside.png").read_text() == "keep"
    (out / MANIFEST).write_text("data.csv\n../outside.png\n")  # not a manifest widefs writes
    with pytest.raises(DataError, match=r"holds \.widefs-report, a file widefs did not write"):
        write_files(out, _report())


def test_an_input_listed_in_the_manifest_is_refused_before_anything(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    data = out / "fig.png"
    data.write_bytes(b"input")
    (out / MANIFEST).write_text("widefs-report sha256\n" + _entry("fig.png", b"input"))
    with pytest.raises(DataError, match="would overwrite the input file"):
        write_files(out, _report(), inputs=[data])
    assert data.read_bytes() == b"input"


@pytest.mark.parametrize("caller", [None, "4"])
def test_main_limits_heap_arenas_unless_the_caller_did(monkeypatch, caller):
    import ctypes

    from widefs.cli import _main

    calls, seen = [], {}

    class Libc:
        def mallopt(self, param, value):
            calls.append((param, value, "after" if seen else "before"))
            return 1

    monkeypatch.setattr(ctypes, "CDLL", lambda name: Libc())
    if caller is None:
        monkeypatch.delenv("MALLOC_ARENA_MAX", raising=False)
    else:
        monkeypatch.setenv("MALLOC_ARENA_MAX", caller)

    def command(args):
        seen["arenas"] = os.environ["MALLOC_ARENA_MAX"]  # what the workers will read
        return 0

    monkeypatch.setattr(_main, "_command", command)
    assert main(["datasets"]) == 0
    if caller is None:  # -8 is M_ARENA_MAX in glibc's malloc.h; 0 lifts the limit again
        assert seen["arenas"] == "2" and calls == [(-8, 2, "before"), (-8, 0, "after")]
    else:  # glibc applied the caller's value at start-up: nothing to do
        assert seen["arenas"] == "4" and calls == []


def test_main_leaves_the_environment_as_it_was(tmp_path, monkeypatch, capsys):
    for name in ("NUMBA_DISABLE_ERROR_MESSAGE_HIGHLIGHTING", "ARROW_DEFAULT_MEMORY_POOL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("ARROW_DEFAULT_MEMORY_POOL", "jemalloc")  # the caller's own choice
    before = dict(os.environ)
    seen = {}

    def command(args):
        seen.update(os.environ)
        return 0

    monkeypatch.setattr("widefs.cli._main._command", command)
    assert main(["datasets"]) == 0
    assert seen["NUMBA_DISABLE_ERROR_MESSAGE_HIGHLIGHTING"] == "1"
    assert seen["ARROW_DEFAULT_MEMORY_POOL"] == "jemalloc"  # set by the caller: kept
    assert dict(os.environ) == before
    monkeypatch.undo()
    monkeypatch.delenv("NUMBA_DISABLE_ERROR_MESSAGE_HIGHLIGHTING", raising=False)
    before = dict(os.environ)
    assert main(["cite", "--methods", "chance"]) == 0
    assert main(["run", str(tmp_path / "missing.csv")]) == 2
    assert dict(os.environ) == before
