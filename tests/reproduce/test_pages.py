"""The committed result pages are exactly what their commands write from the stored raw
results: no hand edits, and the command in each page's header is the one that wrote it."""

import re
import shlex
import shutil
from pathlib import Path

import pytest

from widefs.cli import main

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "docs" / "results"
PAPERS = ["domingos1999", "palatucci2008", "shah2010", "soares2010"]


def _command(text: str) -> list[str]:
    """The ``widefs reproduce ...`` command named at the top of a page."""
    head = "\n".join(text.splitlines()[:8])
    match = re.search(r"widefs reproduce [^`\n]+", head)
    assert match, "the page names no `widefs reproduce` command at its top"
    return shlex.split(match.group(0))[1:]


@pytest.mark.parametrize("paper", PAPERS)
def test_page_is_what_its_command_writes(paper, tmp_path, monkeypatch):
    committed = (RESULTS / f"{paper}.md").read_text(encoding="utf-8")
    argv = _command(committed)
    assert argv[:2] == ["reproduce", paper]
    assert argv[argv.index("--out") + 1] == "docs/results"
    # The stored raw results, in a scratch copy of docs/results (outputs never overwrite
    # the repository's inputs).
    shutil.copytree(RESULTS / paper, tmp_path / "docs" / "results" / paper)
    monkeypatch.chdir(tmp_path)
    assert main([*argv, "--render-only"]) == 0
    written = (tmp_path / "docs" / "results" / f"{paper}.md").read_text(encoding="utf-8")
    assert written.splitlines()[:6] == committed.splitlines()[:6]  # the header first
    assert written == committed
    # An appendix the command writes beside the page is its output too.
    for appendix in RESULTS.glob(f"{paper}_*.md"):
        rendered = tmp_path / "docs" / "results" / appendix.name
        assert rendered.read_text(encoding="utf-8") == appendix.read_text(encoding="utf-8")


def test_command_is_read_from_the_header():
    text = "# Title\n\nCommand (every table on this page): `widefs reproduce shah2010 --jobs 1 --out docs/results`\n"
    assert _command(text) == ["reproduce", "shah2010", "--jobs", "1", "--out", "docs/results"]
    with pytest.raises(AssertionError, match="names no"):
        _command("# Title\n\nno command here\n")
