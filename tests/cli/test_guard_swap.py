"""The swap of a finished report is atomic as a whole: cut at every one of its steps (an error
there, or a real ``kill -9``), the folder holds, after the next run's recovery, the earlier
report whole or the new one whole, the manifest is true, and nothing else there changed."""

import errno
import hashlib
import os
import signal
from pathlib import Path

import pytest

from widefs.cli import _guard
from widefs.cli._guard import MANIFEST, SWAP, check_output_dir, recover, write_files
from widefs.exceptions import DataError

OLD = {
    "report.md": "# old\n",
    "report.html": "<p>old</p>",
    "features.csv": "old",
    "chance_curve.png": b"old chance",
    "stale.png": b"old stale",  # the new report does not write it: removed by the swap
}
NEW = {
    "report.md": "# new\n",
    "report.html": "<p>new</p>",
    "features.csv": "new",
    "chance_curve.png": b"new chance",
    "stability.png": b"new stability",
    "CITATION.bib": "@misc{new}",
}
THIRD = {"report.md": "# third\n", "report.html": "<p>third</p>"}
USER = {"notes.txt": b"mine", "mine.png": b"my own figure"}


def _bytes(content) -> bytes:
    return content if isinstance(content, bytes) else content.encode()


def _folder(tmp_path: Path, tag) -> Path:
    out = tmp_path / f"out{tag}"
    write_files(out, OLD)
    for name, data in USER.items():
        (out / name).write_bytes(data)
    return out


def _which(out: Path, *reports) -> int:
    """Index of the report ``out`` holds whole (with a true manifest and nothing half-done)."""
    names = set(os.listdir(out))
    assert {n for n in names if n.startswith(".widefs")} == {MANIFEST}, names
    for name, data in USER.items():
        assert (out / name).read_bytes() == data, name
    lines = (out / MANIFEST).read_text().splitlines()
    assert lines[0] == "widefs-report sha256"
    listed = dict(reversed(line.split("  ")) for line in lines[1:])
    assert len(listed) == len(lines) - 1  # one hash per file
    assert names - set(USER) - {MANIFEST} == set(listed)
    for name, digest in listed.items():
        assert hashlib.sha256((out / name).read_bytes()).hexdigest() == digest, name
    for i, report in enumerate(reports):
        if set(report) == set(listed) and all(
            (out / n).read_bytes() == _bytes(c) for n, c in report.items()
        ):
            return i
    raise AssertionError(f"a mixed report: {sorted(listed)}")


class _Cut(OSError):
    pass


def test_the_swap_cut_after_each_rename_is_finished_or_undone(tmp_path, monkeypatch):
    """``os.replace`` fails after k renames, for each k: the run ends in one line, the earlier
    report stays until the commit (the first rename), and the next run's recovery gives the
    earlier report or the new one, whole."""
    real = os.replace
    seen = []
    for k in range(20):
        out = _folder(tmp_path, k)
        calls = []

        def replace(src, dst, *args, calls=calls, k=k):
            if len(calls) == k:
                raise _Cut(errno.EIO, "Input/output error")
            calls.append(Path(dst).name)
            return real(src, dst, *args)

        monkeypatch.setattr(_guard.os, "replace", replace)
        try:
            write_files(out, NEW)
        except DataError as exc:
            message = str(exc)
            assert "\n" not in message and "Input/output error" in message
            finished = False
        else:
            finished = True
        monkeypatch.setattr(_guard.os, "replace", real)
        if finished:
            assert _which(out, OLD, NEW) == 1
            break
        if k == 0:  # not committed: nothing in the folder changed, no staging left behind
            assert "the report already there is unchanged" in message
            assert _which(out, OLD, NEW) == 0
        else:
            assert "the next widefs run into it finishes the new report" in message
            assert os.path.isdir(out / SWAP)
        recover(out)
        seen.append(_which(out, OLD, NEW))
    else:
        pytest.fail("the swap never finished")
    # 9 renames (the commit, the manifest of both, 6 files, the journal to the manifest), each
    # cut once: the earlier report before the commit, the new one after.
    assert seen == [0] + [1] * 8
    assert calls == [SWAP, MANIFEST, *sorted(NEW, key=_guard._move_order), MANIFEST]


def test_a_signal_during_the_moves_lets_the_swap_finish(tmp_path, monkeypatch):
    """SIGINT (KeyboardInterrupt) or SIGTERM raised after the commit: the swap is finished
    before the run ends, so the folder holds the new report at once."""
    real = os.replace
    for k in range(1, 9):
        out = _folder(tmp_path, k)
        calls = []

        def replace(src, dst, *args, calls=calls, k=k):
            calls.append(dst)
            if len(calls) == k + 1:
                raise KeyboardInterrupt
            return real(src, dst, *args)

        monkeypatch.setattr(_guard.os, "replace", replace)
        with pytest.raises(KeyboardInterrupt):
            write_files(out, NEW)
        monkeypatch.setattr(_guard.os, "replace", real)
        assert _which(out, OLD, NEW) == 1


def _steps(out: Path, k: int) -> int:
    """In a child process, write NEW into ``out`` and SIGKILL itself at its step ``k`` (a
    file staged, a rename, a removal, a flush); returns the child's count of steps."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        status = 3
        try:
            os.close(read)
            count = [0]

            def step(real):
                def wrapped(*args, **kwargs):
                    if count[0] == k:
                        os.kill(os.getpid(), signal.SIGKILL)
                    count[0] += 1
                    return real(*args, **kwargs)

                return wrapped

            for name in ("replace", "unlink", "rmdir", "fsync"):
                setattr(os, name, step(getattr(os, name)))
            _guard._write_synced = step(_guard._write_synced)
            write_files(out, NEW)
            os.write(write, str(count[0]).encode())
            status = 0
        finally:
            os._exit(status)
    os.close(write)
    _, status = os.waitpid(pid, 0)
    with os.fdopen(read) as fh:
        told = fh.read()
    if os.WIFSIGNALED(status):
        assert os.WTERMSIG(status) == signal.SIGKILL
        return -1
    assert os.WEXITSTATUS(status) == 0
    return int(told)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_kill_at_every_step_of_the_swap_leaves_one_whole_report(tmp_path):
    """``kill -9`` at every step of the writing (staging, commit, moves, removals, flushes): the
    next run finds the earlier or the new report whole, and writes its own whole."""
    total = _steps(_folder(tmp_path, "all"), 10**6)
    assert total > 20
    held = []
    for k in range(total):
        out = _folder(tmp_path, k)
        assert _steps(out, k) == -1  # killed
        if k % 3:  # the next run recovers first, before its checks
            check_output_dir(out)
        else:
            recover(out)
        held.append(_which(out, OLD, NEW))
        if k % 5 == 0:
            write_files(out, THIRD)
            assert _which(out, OLD, NEW, THIRD) == 2
    assert 0 in held and 1 in held and held == sorted(held)  # old until the commit, then new


def test_a_damaged_swap_is_one_line_and_nothing_is_removed(tmp_path):
    out = _folder(tmp_path, "x")
    (out / SWAP).mkdir()
    (out / SWAP / "report.md").write_text("# new\n")
    (out / SWAP / "journal").write_text("widefs-report sha256\n" + "0" * 64 + "  report.md\n")
    before = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}
    with pytest.raises(DataError) as err:
        write_files(out, NEW)
    assert str(err.value) == (
        f"--out {out} holds {SWAP}, an unfinished report swap widefs cannot finish (damaged); "
        "nothing was written: move it or choose another --out directory"
    )
    assert {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()} == before
    (out / SWAP / "report.md").unlink()
    (out / SWAP / "journal").unlink()
    (out / SWAP).rmdir()
    (out / SWAP).symlink_to(tmp_path)
    with pytest.raises(DataError, match=r"holds \.widefs-swap, a file widefs did not write"):
        check_output_dir(out)
    assert (out / SWAP).is_symlink() and tmp_path.is_dir()


def test_a_staging_folder_left_by_a_kill_is_removed_under_the_lock(tmp_path):
    out = _folder(tmp_path, "s")
    staged = out / ".widefs-staging-abc"
    staged.mkdir()
    (staged / "report.md").write_text("half")
    recover(out)
    assert not staged.exists() and _which(out, OLD) == 0


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_two_processes_released_together_leave_one_whole_report(tmp_path):
    """Separate processes (not threads) released at once into one folder: the lock on the
    directory makes them take turns, and the last one's report is there whole."""
    b_report = {"report.md": "# b\n", "report.html": "<p>b</p>", "scm_bounds.png": b"b"}
    for round_ in range(20):
        out = _folder(tmp_path, f"p{round_}")
        go_read, go_write = os.pipe()
        pids = []
        for report in (NEW, b_report):
            pid = os.fork()
            if pid == 0:  # pragma: no cover - a child
                status = 3
                try:
                    os.close(go_write)
                    os.read(go_read, 1)  # released together
                    write_files(out, report)
                    status = 0
                finally:
                    os._exit(status)
            pids.append(pid)
        os.close(go_read)
        os.write(go_write, b"xx")
        os.close(go_write)
        assert all(os.waitpid(pid, 0)[1] == 0 for pid in pids)
        assert _which(out, NEW, b_report) in (0, 1)


def test_a_check_during_a_swap_sees_one_whole_report(tmp_path):
    """widefs's readers of the folder take the lock: a check made while another run swaps its
    report in never sees the new files beside the old manifest (no false "foreign" file)."""
    import threading

    out = _folder(tmp_path, "r")
    stop, errors, checks = threading.Event(), [], [0]

    def writer():
        # At least 30 swaps, and on until the checker has looked 10 times (a loaded machine
        # may give the checker little time between swaps).
        try:
            i = 0
            while i < 30 or (checks[0] < 10 and i < 2000):
                write_files(out, NEW if i % 2 else OLD)
                i += 1
            if i % 2:  # end on NEW
                write_files(out, NEW)
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)
        finally:
            stop.set()

    thread = threading.Thread(target=writer)
    thread.start()
    while not stop.is_set():
        check_output_dir(out)
        checks[0] += 1
    thread.join()
    assert not errors and checks[0] >= 10
    assert _which(out, OLD, NEW) == 1  # (the last write)
