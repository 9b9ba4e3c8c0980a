"""``widefs run`` itself over hostile output folders: foreign files of every output name (each
figure a report writes among them), symbolic links, earlier reports (some edited by hand,
some whose swap was cut short): the exit code and one line, and no file the run did not
write changes (content hashes before and after)."""

import hashlib
import os
import re
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from widefs.cli import _guard, main
from widefs.cli._guard import MANIFEST, OUTPUT_FILES, SWAP, write_files
from widefs.exceptions import DataError

RUN = ["--methods", "chance", "--null-permutations", "200"]


def _snapshot(folder: Path) -> dict:
    seen = {}
    for entry in os.scandir(folder):
        if entry.is_symlink():
            seen[entry.name] = ("link", os.readlink(entry.path))
        elif entry.is_file():
            seen[entry.name] = ("file", hashlib.sha256(Path(entry.path).read_bytes()).hexdigest())
        else:
            seen[entry.name] = ("dir",)
    return seen


def _manifest(out: Path) -> dict:
    lines = (out / MANIFEST).read_text().splitlines()
    assert lines[0] == "widefs-report sha256"
    listed = dict(reversed(line.split("  ")) for line in lines[1:])
    for name, digest in listed.items():
        assert hashlib.sha256((out / name).read_bytes()).hexdigest() == digest, name
    return listed


@pytest.fixture(scope="module")
def earlier(tmp_path_factory):
    """The data and the report a first run writes (copied into the folders of the fuzz)."""
    root = tmp_path_factory.mktemp("earlier")
    rng = np.random.default_rng(1)
    frame = pd.DataFrame(rng.normal(size=(12, 5)).round(3), columns=[f"g{j}" for j in range(5)])
    frame["class"] = ["x", "y"] * 6
    frame.to_csv(root / "data.csv", index=False)
    assert main(["run", str(root / "data.csv"), "--out", str(root / "report"), *RUN]) == 0
    return root / "data.csv", root / "report"


def _cut_swap(out: Path, monkeypatch) -> set:
    """A swap into ``out`` committed, then cut short after its first moves; its names."""
    files = {"report.md": "# cut\n", "report.html": "<p>cut</p>", "stability.png": b"cut"}
    real, calls = os.replace, []

    def replace(src, dst):
        if len(calls) == 3:
            raise OSError(5, "Input/output error")
        calls.append(dst)
        real(src, dst)

    monkeypatch.setattr(_guard.os, "replace", replace)
    with pytest.raises(DataError, match="finishes the new report"):
        write_files(out, files)
    monkeypatch.setattr(_guard.os, "replace", real)
    assert (out / SWAP).is_dir()
    return set(files)


def _folder(rng, tmp_path, report, outside, monkeypatch):
    out = tmp_path / f"case{rng.integers(1 << 30)}"
    ours, foreign = set(), set()
    if rng.random() < 0.6:
        shutil.copytree(report, out)
        ours = set(os.listdir(out))
        if rng.random() < 0.35:
            ours |= _cut_swap(out, monkeypatch) | {SWAP}
        if rng.random() < 0.2:  # the user edits a file of the earlier report: theirs now
            name = str(rng.choice(sorted(n for n in ours if n in os.listdir(out) and n[0] != ".")))
            (out / name).write_bytes(b"edited by hand")
            ours.discard(name)
            foreign.add(name)
    out.mkdir(exist_ok=True)
    names = [*OUTPUT_FILES, MANIFEST, *[p.replace("*", "discriminative-selection") for p in
             _guard.REPORT_FIGURES]]  # fmt: skip
    for name in names:
        if name not in ours and not (out / name).exists() and rng.random() < 0.08:
            if rng.random() < 0.5:
                (out / name).write_bytes(b"the user's own " + name.encode())
            else:
                (out / name).symlink_to(outside)
            foreign.add(name)
    (out / "notes.txt").write_text("mine")
    (out / "western_blot.png").write_bytes(b"mine")  # a PNG no report writes
    return out, ours, foreign


@pytest.mark.slow
def test_fuzz_of_runs_into_hostile_folders(tmp_path, earlier, monkeypatch, capsys):
    data, report = earlier
    outside = tmp_path / "outside.png"
    outside.write_bytes(b"outside")
    rng = np.random.default_rng(45)
    outcomes = []
    for _ in range(14):
        out, ours, foreign = _folder(rng, tmp_path, report, outside, monkeypatch)
        before = _snapshot(out)
        capsys.readouterr()
        status = main(["run", str(data), "--out", str(out), *RUN])
        err = capsys.readouterr().err
        outcomes.append(status)
        after = _snapshot(out)
        for name, state in before.items():
            if name not in ours:
                assert after.get(name) == state, name
        assert outside.read_bytes() == b"outside"
        if foreign:
            assert status == 2 and err.count("\n") == 1, err
            named = re.search(rf"--out {re.escape(str(out))} holds (\S+), a file widefs", err)
            assert named and named[1].rstrip(",") in foreign, err
            continue
        assert status == 0, err
        listed = _manifest(out)
        assert {"report.md", "report.html", "features.csv"} <= set(listed)
        left = {n for n in after if n.startswith(".widefs")}
        assert left == {MANIFEST}, left  # a cut swap was finished, nothing temporary is left
        assert set(after) - set(before) <= set(listed) | {MANIFEST}
    assert outcomes.count(0) >= 3 and outcomes.count(2) >= 3, outcomes
