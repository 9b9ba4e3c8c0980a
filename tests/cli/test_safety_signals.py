"""Clean signals: SIGTERM or SIGINT during an analysis with ``--jobs 2`` ends the workers too
(no process of the run is left, the output pipe closes) and the earlier report stays whole."""

import contextlib
import hashlib
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from widefs.cli import main
from widefs.cli._guard import write_files
from widefs.cli._signals import Signals, Terminated

psutil = pytest.importorskip("psutil")


def _workers(root):
    """The descendants of ``root`` that are joblib (loky) workers."""
    found = []
    for child in root.children(recursive=True):
        try:
            if "loky" in " ".join(child.cmdline()):
                found.append(child)
        except psutil.Error:
            pass
    return found


def _still_running(root, run) -> str:
    """Which processes of the run are still alive, and what each is (for a failure message)."""
    found = []
    for p in [root, *run]:
        with contextlib.suppress(psutil.Error):
            if p.is_running() and p.status() != psutil.STATUS_ZOMBIE:
                found.append(f"pid {p.pid} ({p.status()}): {' '.join(p.cmdline())[:120]}")
    return "; ".join(found) or "every process ended but the output pipe stayed open"


def _snapshot(folder: Path) -> dict:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in folder.iterdir()}


@pytest.mark.slow
@pytest.mark.parametrize(
    ("signum", "status", "line"),
    [(signal.SIGTERM, 143, "widefs: terminated"), (signal.SIGINT, 130, "widefs: interrupted")],
)
def test_a_signal_ends_the_workers_and_keeps_the_earlier_report(tmp_path, signum, status, line):
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(rng.normal(size=(40, 500)).round(3))
    frame.columns = [f"g{j}" for j in frame.columns]
    frame["class"] = ["a", "b"] * 20
    frame.to_csv(tmp_path / "d.csv", index=False)
    out = tmp_path / "out"
    write_files(out, {"report.md": "# earlier\n", "report.html": "<p>earlier</p>"})
    before = _snapshot(out)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    cmd = [sys.executable, "-m", "widefs.cli", "run", "d.csv", "--jobs", "2", "--out", "out"]
    # SIGINT at its default: a parent that ignores it (pytest-xdist's workers do) would pass
    # the ignored disposition on, and the run would rightly not see Ctrl-C.
    proc = subprocess.Popen(
        cmd, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip
    root = psutil.Process(proc.pid)
    run = []
    try:
        deadline = time.monotonic() + 120
        while len(_workers(root)) < 2 and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        assert proc.poll() is None, "the run ended before its workers started"
        run = root.children(recursive=True)
        proc.send_signal(signum)  # during the analysis, to the main process only
        # No process of the run left soon after: under 1 s on an idle machine, 1-2 s with four
        # busy processes on two cores; 30 s leaves room for a CI machine running two test
        # workers besides this run's three processes (a 10 s bound timed out there once).
        end = time.monotonic() + 30
        try:
            _, err = proc.communicate(timeout=30)  # the pipe closes: no worker holds it
        except subprocess.TimeoutExpired:
            pytest.fail(f"30 s after the signal: {_still_running(root, run)}")
        _, alive = psutil.wait_procs(run, timeout=max(0.0, end - time.monotonic()))
        assert not [p for p in alive if p.status() != psutil.STATUS_ZOMBIE], alive
    finally:
        for p in [*run, root]:
            with contextlib.suppress(psutil.Error):
                p.kill()
    assert proc.returncode == status, err.decode()[-3000:]
    assert err.decode().splitlines()[-1] == line
    assert _snapshot(out) == before


@pytest.fixture
def ctrl_c(monkeypatch):
    """SIGINT at Python's default in this process (pytest-xdist's workers ignore it)."""
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signal handlers are set in the main thread only")
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, old)


def _swallowed(signum):
    """Send ``signum`` to this process where its exception is dropped (as in an at-fork
    handler); return what was dropped."""
    try:
        signal.raise_signal(signum)
        time.sleep(5)  # the handler runs at the next bytecode: never reached
    except KeyboardInterrupt as exc:
        return exc
    raise AssertionError("no exception was raised")


@pytest.mark.parametrize(("signum", "status"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_the_status_is_the_signals_whatever_the_unwinding_raised(
    ctrl_c, monkeypatch, capsys, signum, status
):
    """An older joblib's abort raised RuntimeError while a SIGTERM unwound the run (CI, joblib
    1.2): the status stayed 1. The signal received decides it."""

    def command(args):
        try:
            signal.raise_signal(signum)
            time.sleep(5)
        except KeyboardInterrupt:
            raise RuntimeError("cannot join thread before it is started") from None
        raise AssertionError("no exception was raised")

    monkeypatch.setattr("widefs.cli._main._command", command)
    assert main(["datasets"]) == status
    assert capsys.readouterr().err.splitlines()[-1] == dict(zip((143, 130), LINES))[status]


LINES = ("widefs: terminated", "widefs: interrupted")


@pytest.mark.parametrize(("signum", "status"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_swallowed_signal_ends_the_run_at_its_next_stage(
    ctrl_c, monkeypatch, capsys, signum, status
):
    """A KeyboardInterrupt raised in an at-fork handler is printed and dropped (CI: the run
    went on to write its report, status 0); the next progress event raises it again."""
    from widefs.cli._main import _keeping

    seen = []

    def command(args):
        dropped = _swallowed(signum)
        assert isinstance(dropped, Terminated) == (signum == signal.SIGTERM)
        _keeping(seen.append, lambda: None)(SimpleNamespace(task="analysis"))
        return 0

    monkeypatch.setattr("widefs.cli._main._command", command)
    assert main(["datasets"]) == status
    assert seen == []  # the event raised before it was shown
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # restored


def test_nothing_is_written_after_a_swallowed_signal(ctrl_c, tmp_path, monkeypatch, capsys):
    from widefs.cli import _main

    frame = pd.DataFrame(np.random.default_rng(0).normal(size=(12, 4)), columns=list("abcd"))
    frame["class"] = ["x", "y"] * 6
    frame.to_csv(tmp_path / "d.csv", index=False)
    out = tmp_path / "out"
    write_files(out, {"report.md": "# earlier\n", "report.html": "<p>earlier</p>"})
    before = _snapshot(out)
    analyse = _main._analyse

    def analysed_then_interrupted(*args, **kwargs):
        report = analyse(*args, **kwargs)
        _swallowed(signal.SIGINT)  # after the last stage's event
        return report

    monkeypatch.setattr("widefs.cli._main._analyse", analysed_then_interrupted)
    cmd = ["run", str(tmp_path / "d.csv"), "--out", str(out), "--methods", "chance", "--quick"]
    assert main(cmd) == 130
    assert capsys.readouterr().err.splitlines()[-1] == "widefs: interrupted"
    assert _snapshot(out) == before


def test_an_ignored_ctrl_c_stays_ignored(monkeypatch):
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signal handlers are set in the main thread only")
    old = signal.signal(signal.SIGINT, signal.SIG_IGN)  # a job started in the background
    try:
        with Signals() as signals:
            assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
            assert signal.getsignal(signal.SIGTERM) == signals._handle
        assert signal.getsignal(signal.SIGTERM) is not signals._handle
        assert signals.status(RuntimeError()) is None
        assert signals.status(KeyboardInterrupt()) == 130  # raised by other means
        assert signals.status(Terminated()) == 143
    finally:
        signal.signal(signal.SIGINT, old)


def test_a_check_outside_the_main_thread_does_not_raise(ctrl_c):
    with Signals() as signals:
        _swallowed(signal.SIGINT)
        # A second signal (Ctrl-C pressed again) does not interrupt the run's ending.
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
        assert signal.getsignal(signal.SIGTERM) is signal.SIG_IGN
        raised = []
        thread = threading.Thread(target=lambda: raised.append(_checked(signals)))
        thread.start()
        thread.join()
        assert raised == [None]
        with pytest.raises(KeyboardInterrupt):
            signals.check()
    assert signals.received == signal.SIGINT


def _checked(signals):
    try:
        signals.check()
    except BaseException as exc:  # what the thread saw is the result
        return exc
    return None
