"""The analysis's progress events drive the terminal's progress display, one task each."""

import re

from widefs.analysis import ProgressEvent
from widefs.cli._main import _Progress


class _Display:
    def __init__(self):
        self.calls, self.live = [], {}

    def add_task(self, description, total=None):
        task = len(self.calls)
        self.calls.append(("add", description, total))
        self.live[task] = description
        return task

    def update(self, task, description, completed):
        self.calls.append(("update", task, description, completed))

    def remove_task(self, task):
        self.calls.append(("remove", task))
        del self.live[task]


def test_each_task_is_added_once_updated_and_removed_when_finished():
    display = _Display()
    show = _Progress(display)
    show(ProgressEvent("analysis", "chance", 0, 2))
    show(ProgressEvent("search certificate: x", "search certificate: x"))
    show(ProgressEvent("search certificate: x", "search certificate: x", finished=True))
    show(ProgressEvent("analysis", "compare", 1, 2))
    show(ProgressEvent("nope", "never started", finished=True))  # nothing to remove
    assert [c[0] for c in display.calls] == ["add", "update", "add", "update", "remove", "update"]
    assert display.calls[0] == ("add", "chance", 2)
    assert display.calls[-1] == ("update", 0, "compare", 1)
    assert display.live == {0: "chance"}


def _table(path, n=24, p=60, seed=0):
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    y = np.repeat(["a", "b"], n // 2)
    X[y == "b", :4] += 2.0
    frame = pd.DataFrame(X, columns=[f"g{j}" for j in range(p)])
    frame["class"] = y
    frame.to_csv(path, index=False)
    return str(path)


def test_a_non_terminal_stderr_gets_one_line_per_finished_stage(tmp_path, capsys):
    """The path of a long run (every part, stderr a pipe), on a table small enough for CI."""
    from widefs.analysis import CERTIFIED, STAGES, candidates
    from widefs.cli import main

    data = _table(tmp_path / "d.csv")
    args = ["run", data, "--quick", "--permutations", "2", "--null-permutations", "20"]
    assert main([*args, "--out", str(tmp_path / "out")]) == 0
    lines = capsys.readouterr().err.splitlines()
    assert lines and all(line.startswith("widefs: [") for line in lines)
    done = [line.split("] done: ", 1)[1] for line in lines]
    expected = [f"reading {data} (24 x 60)"]
    expected += [STAGES[part] for part in STAGES]
    expected += [f"search certificate: {item.name}" for item in CERTIFIED]
    expected += [f"nested CV: {c.name}" for c in candidates(list(STAGES), n_features=60)]
    stages = [d.rsplit(" (", 1)[0] if not d.startswith("reading") else d for d in done]
    assert sorted(stages) == sorted(expected)  # each stage once, none missing
    # Lines come in the order the stages end, with the time since the start non-decreasing.
    times = [float(line[len("widefs: [") :].split(" s]")[0]) for line in lines]
    assert times == sorted(times)


def test_stage_lines_end_a_stage_when_its_task_moves_on():
    import io

    from widefs.cli._progress import StageLines

    ticks = iter(range(100))
    out = io.StringIO()
    lines = StageLines(out, clock=lambda: float(next(ticks)))
    lines(ProgressEvent("analysis", "first", 0, 2))
    lines(ProgressEvent("cert", "cert"))
    lines(ProgressEvent("cert", "cert", finished=True))
    lines(ProgressEvent("analysis", "second", 1, 2))
    lines(ProgressEvent("analysis", "second", 1, 2))  # the same stage again: no line
    lines(ProgressEvent("analysis", "done", 2, 2, finished=True))
    lines(ProgressEvent("never", "started", finished=True))  # nothing was running
    assert out.getvalue().splitlines() == [
        "widefs: [    3.0 s] done: cert (1.0 s)",
        "widefs: [    4.0 s] done: first (3.0 s)",
        "widefs: [    6.0 s] done: second (2.0 s)",
    ]


def test_estimate_interpolates_the_measured_runs_and_names_what_shortens_it():
    from widefs.cli._progress import _CALIBRATION, estimate_line, estimate_run

    for values, seconds, mb in _CALIBRATION[1:]:
        est = estimate_run(100, values // 100)
        assert abs(est.seconds - seconds) < 1e-6 * seconds
        assert abs(est.memory - mb * 2**20) < 1e-6 * mb * 2**20
    sizes = [500, 1_000, 2_000, 10_000, 50_000, 200_000, 2_000_000]
    times = [estimate_run(100, p).seconds for p in sizes]
    assert times == sorted(times) and len(set(times)) == len(times) - 1  # flat below colon
    assert estimate_run(100, 200_000, jobs=2).seconds == estimate_run(100, 200_000).seconds / 2
    assert estimate_run(100, 200_000, parts=1).seconds == estimate_run(100, 200_000).seconds / 5
    assert estimate_line(62, 2000) is None  # a short run prints nothing
    line = estimate_line(200, 2_000_000)
    assert "about 82 min" in line and "--quick" in line and "--methods" in line and "--jobs" in line
    assert "about 4.1 hours" in estimate_line(200, 6_000_000)
    quick = estimate_line(200, 2_000_000, quick=True, parts=1, jobs=2)
    assert "--quick" not in quick and "shorter" not in quick


def test_a_long_run_prints_its_estimate_first(tmp_path, capsys, monkeypatch):
    from widefs.cli import _progress, main

    monkeypatch.setattr(_progress, "LONG_RUN", 0.0)
    data = _table(tmp_path / "d.csv")
    assert main(["run", data, "--methods", "scm", "--out", str(tmp_path / "o")]) == 0
    err = capsys.readouterr().err.splitlines()
    assert "] done: reading " in err[0]
    assert re.match(r"widefs: \[ *[\d.]+ s\] this run may take about ", err[1])
    assert "24 x 60 values" in err[1] and "--quick" in err[1]


def test_a_run_that_fails_before_the_analysis_starts_writes_its_error_only(
    tmp_path, capsys, monkeypatch
):
    import widefs.analysis
    from widefs.cli import main
    from widefs.exceptions import DataError

    def refuse(*args, **kwargs):
        raise DataError("refused by a check of the analysis")

    monkeypatch.setattr(widefs.analysis, "analyse", refuse)
    data = _table(tmp_path / "d.csv")
    assert main(["run", data, "--out", str(tmp_path / "o")]) == 2
    assert capsys.readouterr().err == "widefs: error: refused by a check of the analysis\n"


def test_a_terminal_gets_the_rich_display_and_a_pipe_the_stage_lines(monkeypatch):
    import io
    import sys

    from rich.console import Console

    from widefs.cli._main import _display
    from widefs.cli._progress import StageLines

    read = ("done: reading d.csv (2 x 3)", 0.0)
    terminal = Console(file=io.StringIO(), force_terminal=True, width=80)
    with _display(terminal, 0.0, read, "this run may take about 5 min") as (show, progress):
        assert isinstance(progress, _Progress) and show is not None
        progress(ProgressEvent("analysis", "chance", 0, 1))
    assert "widefs: this run may take about 5 min" in terminal.file.getvalue()
    piped = Console(file=io.StringIO(), force_terminal=False)
    monkeypatch.setattr(sys, "stderr", io.StringIO())  # not a terminal either
    with _display(piped, 0.0, read, None) as (show, progress):
        assert isinstance(progress, StageLines) and show is piped
        assert progress.held == [read]
