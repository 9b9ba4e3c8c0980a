"""`widefs reproduce PAPER`: the one entry point of the reproductions."""

import pytest

from widefs.cli import _reproduce, main


def test_reproduce_runs_a_paper_through_the_command_line(tmp_path):
    assert main(["reproduce", "palatucci2008", "--quick", "--out", str(tmp_path)]) == 0
    text = (tmp_path / "palatucci2008.md").read_text()
    assert "Example 4.1" in text and "widefs **0.7975**" in text


def test_the_installed_papers_are_the_entry_points():
    assert list(_reproduce.INSTALLED) == ["domingos1999", "palatucci2008", "shah2010", "soares2010"]
    assert "shah2010" in _reproduce.INSTALLED and "shah2011" not in _reproduce.INSTALLED


def test_unknown_paper_is_a_usage_error(capsys):
    assert main(["reproduce", "shah2011"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "invalid choice: 'shah2011'" in err


def test_missing_reproductions_say_what_to_install(monkeypatch, capsys):
    # An installation without the reproductions: one line naming what to install.
    monkeypatch.setattr(_reproduce, "_entry_points", dict)
    assert main(["reproduce", "shah2010", "--quick"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith("widefs: error: no paper reproductions are installed")
    assert "pip install" in err


def test_options_after_the_paper_go_to_the_reproduction(monkeypatch):
    seen = []

    class Point:
        def load(self):
            return lambda argv: seen.append(argv) or 0

    monkeypatch.setattr(_reproduce, "_entry_points", lambda: {"shah2010": Point()})
    assert main(["reproduce", "shah2010", "--quick", "--reps", "2"]) == 0
    assert seen == [["--quick", "--reps", "2"]]
    with pytest.raises(Exception, match="unknown paper"):
        _reproduce.run("nope", [])
