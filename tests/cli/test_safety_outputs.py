"""widefs touches only what it wrote: a fuzz over output folders holding foreign files of every
output name, symbolic links and earlier reports (content hashes before and after), and two
writers into one folder forced to finish at the same time (every report whole, from one run,
the manifest true)."""

import contextlib
import hashlib
import os
import re
import threading
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from widefs.cli import _guard, main
from widefs.cli._guard import MANIFEST, REPORT_FIGURES, write_files
from widefs.exceptions import DataError

FOREIGN_NAMES = (
    "report.md",
    "report.html",
    "features.csv",
    "CITATION.bib",
    "chance_curve.png",
    "certificate-scm.png",
    "stability.png",
    MANIFEST,
)


def snapshot(folder: Path) -> dict:
    """name -> ("link", target) | ("file", sha256) | ("dir",) for everything in ``folder``."""
    seen = {}
    for entry in os.scandir(folder):
        if entry.is_symlink():
            seen[entry.name] = ("link", os.readlink(entry.path))
        elif entry.is_file():
            seen[entry.name] = ("file", hashlib.sha256(Path(entry.path).read_bytes()).hexdigest())
        else:
            seen[entry.name] = ("dir",)
    return seen


def report(tag: str, figures=("chance_curve.png",)) -> dict:
    files = {"report.md": f"# {tag}\n", "report.html": f"<p>{tag}</p>", "features.csv": tag}
    files.update({name: f"{tag} {name}".encode() for name in figures})
    return files


def manifest_is_true(out: Path) -> dict:
    lines = (out / MANIFEST).read_text().splitlines()
    assert lines[0] == "widefs-report sha256"
    listed = dict(reversed(line.split("  ")) for line in lines[1:])
    for name, digest in listed.items():
        assert hashlib.sha256((out / name).read_bytes()).hexdigest() == digest, name
    return listed


def _folder(rng, root: Path, outside: Path) -> tuple[Path, set, set]:
    """A random output folder: maybe an earlier report, maybe edited, foreign files of output
    names, links to files outside. Returns it, the names widefs may touch and those edited since."""
    out = root / f"case{rng.integers(1 << 30)}"
    ours, edited = set(), set()
    if rng.random() < 0.5:
        figures = [
            n for n in ("chance_curve.png", "stability.png", "old.png") if rng.random() < 0.5
        ]
        write_files(out, report("earlier", figures))
        ours = {n for n in os.listdir(out)}
        if rng.random() < 0.3:  # the user edits a file of the earlier report: it is theirs now
            name = str(rng.choice(sorted(ours - {MANIFEST})))
            (out / name).write_bytes(b"edited by hand")
            ours.discard(name)
            edited.add(name)
    out.mkdir(exist_ok=True)
    for name in FOREIGN_NAMES:
        if rng.random() < 0.2 and name not in ours:
            if rng.random() < 0.5:
                (out / name).write_bytes(b"the user's own " + name.encode())
            else:
                (out / name).unlink(missing_ok=True)
                (out / name).symlink_to(outside)
    (out / "notes.txt").write_text("mine")
    (out / "mine.png").write_bytes(b"mine")  # a PNG no report writes
    return out, ours, edited


def test_fuzz_no_file_the_run_did_not_write_changes(tmp_path):
    rng = np.random.default_rng(45)
    outside = tmp_path / "outside.png"
    outside.write_bytes(b"outside")
    refused = written = 0
    for _ in range(150):
        out, ours, edited = _folder(rng, tmp_path, outside)
        before = snapshot(out)
        foreign = ({n for n in before if n not in ours} & set(FOREIGN_NAMES)) | edited
        new = report(
            "new", [n for n in ("chance_curve.png", "errors_allowed.png") if rng.random() < 0.6]
        )
        try:
            write_files(out, new)
        except DataError as exc:
            refused += 1
            assert "\n" not in str(exc) and str(exc).startswith(f"--out {out} holds ")
            assert re.search(r"holds (\S+), a file widefs did not", str(exc))[1] in foreign | {
                MANIFEST
            }
            assert snapshot(out) == before
            continue
        written += 1
        assert not foreign, foreign  # a foreign file of an output name always stops the run
        after = snapshot(out)
        for name, state in before.items():
            if name not in ours:
                assert after[name] == state, name
        assert manifest_is_true(out).keys() == set(new)
        assert outside.read_bytes() == b"outside"
    assert refused > 20 and written > 20  # both branches were exercised


def test_foreign_files_stop_a_run_before_the_analysis(tmp_path, monkeypatch, capsys):
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(rng.normal(size=(12, 4)), columns=list("abcd"))
    frame["class"] = ["x", "y"] * 6
    data = tmp_path / "data.csv"
    frame.to_csv(data, index=False)

    def no_analysis(*args, **kwargs):
        raise AssertionError("the analysis started")

    monkeypatch.setattr("widefs.cli._main._analyse", no_analysis)
    for name in FOREIGN_NAMES:
        out = tmp_path / f"out-{name}"
        out.mkdir()
        (out / name).write_bytes(b"user")
        before = snapshot(out)
        assert main(["run", str(data), "--out", str(out), "--methods", "chance"]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and f"--out {out} holds {name}, a file widefs did not" in err
        assert snapshot(out) == before


def test_every_figure_a_report_writes_is_checked_before_the_analysis():
    """The figure names in the renderers all match REPORT_FIGURES (checked before any work)."""
    render = Path(_guard.__file__).parent / "render"
    names = re.findall(
        r'Figure\(\s*f?"([^"]+\.png)"', "".join(p.read_text() for p in render.glob("*.py"))
    )
    assert len(names) >= 5
    for name in names:
        assert any(
            re.fullmatch(p.replace("*", ".*").replace("{slug}", ".*"), name.replace("{slug}", "x"))
            for p in REPORT_FIGURES
        ), name


def _figures(tag):
    return ["chance_curve.png"] if tag == "A" else ["stability.png"]


def _race(out: Path, monkeypatch) -> None:
    """Two writers into ``out``; the first to reach its swap waits there for the other."""
    barrier = threading.Barrier(2)
    local = threading.local()
    real_hook = _guard._before_move

    def hook(name):
        if not getattr(local, "waited", False):
            local.waited = True
            with contextlib.suppress(threading.BrokenBarrierError):
                barrier.wait(timeout=0.05)  # the second writer is blocked on the lock
        real_hook(name)

    monkeypatch.setattr(_guard, "_before_move", hook)
    errors = []

    def writer(tag):
        try:
            write_files(out, report(tag, _figures(tag)))
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(t,)) for t in "AB"]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    monkeypatch.setattr(_guard, "_before_move", real_hook)
    assert not errors, errors


def test_two_runs_finishing_together_leave_one_whole_report(tmp_path, monkeypatch):
    """100 rounds of two writers released together at their swap: the folder holds one run's
    whole report and a true manifest (without the lock, the first round fails)."""
    for round_ in range(100):
        out = tmp_path / f"r{round_}"
        write_files(out, report("earlier", ["old.png"]))
        _race(out, monkeypatch)
        listed = manifest_is_true(out)
        tag = (out / "report.md").read_text()[2]
        assert tag in "AB"
        assert set(listed) == set(report(tag, _figures(tag)))
        for name in listed:
            assert (out / name).read_bytes().decode().lstrip("#<p> ").startswith(tag), name
        assert sorted(os.listdir(out)) == sorted([MANIFEST, *listed])  # nothing stale or temporary


def test_a_report_of_an_earlier_widefs_without_hashes_is_left_alone(tmp_path):
    """A manifest of names only (no hashes) cannot show which files widefs wrote: refused."""
    out = tmp_path / "out"
    out.mkdir()
    for name in ("report.md", "report.html", "chance_curve.png"):
        (out / name).write_text(name)
    (out / MANIFEST).write_text("chance_curve.png\nreport.html\nreport.md\n")
    before = snapshot(out)
    with pytest.raises(DataError, match="an earlier widefs's manifest, without the files' hashes"):
        write_files(out, report("new"))
    assert snapshot(out) == before
