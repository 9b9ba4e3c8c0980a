"""The benchmarks pages are what ``benchmarks/_report.py`` renders from the stored sections.

Each benchmark script stores its section as data (``docs/results/benchmarks/<name>.json``:
text blocks and tables as rows of cells) and renders the pages from every stored section;
nothing on the pages is written by hand, so no section can describe code that no longer runs
without its command having written it.
"""

import importlib
import json
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# The benchmark scripts import their helpers as a top-level module, from their folder.
sys.path.insert(0, str(ROOT / "benchmarks"))
report = importlib.import_module("_report")
SECTIONS = report.stored_sections()


@pytest.mark.parametrize("page", report.PAGES, ids=lambda p: p.path.name)
def test_page_is_what_the_stored_sections_render(page):
    assert page.path.read_text() == report.render_pages()[page.path]


def test_every_stored_section_is_on_a_page_and_every_listed_section_is_stored():
    listed = [n for page in report.PAGES for n in page.sections]
    assert len(listed) == len(set(listed)), "a section on two pages"
    assert set(listed) == set(SECTIONS)


@pytest.mark.parametrize("name", sorted(SECTIONS))
def test_each_section_names_the_command_that_measures_it(name):
    first = next(b["text"] for b in SECTIONS[name]["blocks"] if "text" in b)
    assert re.search(
        r"`(?:[A-Z_]+=\S+ )?(?:nice (?:-n \d+ )?)?(?:python |/usr/bin/time )", first
    ), f"{name}: its first paragraph names no command"
    for block in SECTIONS[name]["blocks"]:
        if "table" in block:
            width = len(block["table"]["columns"])
            assert all(len(row) == width for row in block["table"]["rows"]), name


def test_a_stored_section_says_it_was_not_rerun():
    stored = {"title": "T", "stored": True, "blocks": [{"text": "Command: `python x.py`."}]}
    assert "not re-run on the current code" in report.render_section(stored)
    fresh = {"title": "T", "blocks": [{"text": "Command: `python x.py`."}]}
    assert "not re-run" not in report.render_section(fresh)


def test_parse_and_render_are_inverse():
    markdown = (
        "## A title\n\nCommand: `python benchmarks/x.py`.\nSecond line.\n\n### Sub\n\n"
        "| a | b (s) |\n|---|---|\n| 1 | **2x** |\n|  | 3 |\n\n![plot](x.png)"
    )
    section = report.parse_section(markdown)
    assert section["title"] == "A title"
    assert [next(iter(b)) for b in section["blocks"]] == ["text", "text", "table", "text"]
    assert section["blocks"][2]["table"] == {
        "columns": ["a", "b (s)"],
        "rows": [["1", "**2x**"], ["", "3"]],
    }
    rendered = report.render_section(section)
    assert rendered == markdown.replace("|  | 3 |", "|  | 3 |")
    assert report.parse_section(rendered) == section
    with pytest.raises(ValueError, match="title"):
        report.parse_section("no title\n\ntext")


def test_store_section_writes_data_and_renders_the_pages(tmp_path, monkeypatch):
    store = tmp_path / "benchmarks"
    page = report.Page(tmp_path / "p.md", "P", "Intro.", ("one", "two"), ("two", "one"))
    monkeypatch.setattr(report, "STORE", store)
    monkeypatch.setattr(report, "PAGES", (page,))
    report.store_section("two", "## Two\n\nCommand: `python b.py`.", headline="b is fast")
    report.store_section("one", "## One\n\nCommand: `python a.py`.\n\n| x |\n|---|\n| 1 |")
    assert json.loads((store / "one.json").read_text())["blocks"][1]["table"]["rows"] == [["1"]]
    text = page.path.read_text()
    # The verdict is made of the headlines (capitalized); sections in the page's order, whatever the order
    # they were stored in.
    assert text.startswith("# P\n\n**Verdict.** B is fast.\n\nIntro.\n\n## One")
    assert text.index("## One") < text.index("## Two")
    # A section no page lists is an error, not a silent omission.
    (store / "three.json").write_text(json.dumps({"title": "3", "blocks": []}))
    with pytest.raises(ValueError, match="three"):
        report.render_pages(store)


def test_machine_note_has_no_date():
    note = report.machine_note()
    assert note.startswith("Measured on ") and not re.search(r"\b20\d\d-\d\d-\d\d\b", note)
