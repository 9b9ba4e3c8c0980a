"""A damaged ``widefs reproduce`` store task (truncated, not JSON, edited, wrong types) is named
in one line, not used, and computed again on resume; with ``--render-only`` the run ends in one
line instead of a traceback."""

import json
import shutil
from pathlib import Path

import pytest

from widefs.cli import main
from widefs_reproduce import _store

RESULTS = Path(__file__).resolve().parents[2] / "docs" / "results"


def _task(calls):
    def fn(x):
        calls.append(x)
        return {"value": x, "rows": [1.5, 2.5], "3": "three"}

    return fn


def _store_one(path, calls):
    return _store.run_task(path, "k", _task(calls), 7)


@pytest.mark.parametrize(
    ("damage", "why"),
    [
        (lambda text: text[: len(text) // 2], "not valid JSON"),
        (lambda text: "", "not valid JSON"),
        (lambda text: "\udcff", "not valid JSON"),
        (lambda text: text.replace('"value": 7', '"value": 8'), "changed after it was stored"),
        (lambda text: text.replace('"value": 7', '"value": "7"'), "changed after it was stored"),
        (lambda text: json.dumps([json.loads(text)]), "not a stored task"),
        (lambda text: json.dumps({**json.loads(text), "result": "x"}), "not a stored task"),
        (lambda text: json.dumps({**json.loads(text), "key": 1}), "not a stored task"),
        (lambda text: json.dumps({**json.loads(text), "sha256": 3}), "not a stored task"),
    ],
)
def test_a_damaged_task_is_named_and_recomputed(tmp_path, capsys, damage, why):
    path = tmp_path / "task.json"
    calls = []
    first = _store_one(path, calls)
    assert _store_one(path, calls) == first and calls == [7]  # stored: loaded
    text = path.read_text()
    broken = damage(text)
    path.write_bytes(broken.encode("utf-8", "surrogateescape"))
    capsys.readouterr()
    assert _store_one(path, calls) == first and calls == [7, 7]  # computed again
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert f"the stored task {path} is damaged (" in err and why in err
    assert path.read_text() == text  # stored whole again
    assert _store_one(path, calls) == first and calls == [7, 7]
    assert capsys.readouterr().err == ""


def test_the_stored_digest_is_of_the_result_as_read_back(tmp_path, capsys):
    """Tuples and number keys read back as lists and strings: the digest still matches."""
    path = tmp_path / "t.json"
    _store.run_task(path, "k", lambda: {"pair": (1, 2), 10: "a", 2: "b"})
    assert _store.stored(path, "k") == {"pair": [1, 2], "10": "a", "2": "b"}
    assert capsys.readouterr().err == ""


def test_a_task_stored_without_a_digest_is_still_read(tmp_path, capsys):
    path = tmp_path / "old.json"
    path.write_text(json.dumps({"key": "k", "result": {"value": 1}}))
    assert _store.stored(path, "k") == {"value": 1}
    assert _store.stored(path, "other") is None
    assert capsys.readouterr().err == ""


def test_render_only_on_a_damaged_store_is_one_line_each(tmp_path, capsys, monkeypatch):
    shutil.copytree(RESULTS / "palatucci2008", tmp_path / "out" / "palatucci2008")
    task = sorted((tmp_path / "out" / "palatucci2008" / "tasks").glob("*.json"))[0]
    task.write_text(task.read_text()[:40])  # truncated
    monkeypatch.chdir(tmp_path)
    status = main(["reproduce", "palatucci2008", "--out", "out", "--render-only"])
    err = capsys.readouterr().err.splitlines()
    assert status == 2
    assert len(err) == 2, err
    assert err[0].startswith(f"widefs reproduce: the stored task {task.relative_to(tmp_path)}")
    assert "damaged (not valid JSON)" in err[0]
    assert err[1].startswith("widefs: error: reproduce palatucci2008: --render-only: 1 task(s)")
