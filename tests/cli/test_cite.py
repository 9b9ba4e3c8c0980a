"""``widefs cite``: BibTeX that parses, names what a run used, and quotes text safely."""

import re
import subprocess
import sys

import bibtexparser
import pybtex.errors
import pytest
from bibtexparser.middlewares import LatexDecodingMiddleware
from pybtex.database import parse_string as pybtex_parse
from pybtex.plugin import find_plugin

import widefs
from widefs.analysis import METHODS as METHOD_GROUPS
from widefs.cli import main
from widefs.cli._cite import METHOD_REFERENCES, REFERENCES, Reference, _entry, bibtex
from widefs.exceptions import DataError

# Fields a BibTeX style needs to typeset each entry type (the standard styles' required set).
REQUIRED = {
    "article": {"author", "title", "journal", "year"},
    "inproceedings": {"author", "title", "booktitle", "year"},
    "phdthesis": {"author", "title", "school", "year"},
    "misc": {"author", "title", "year"},
}


def parse(text):
    library = bibtexparser.parse_string(text)
    assert library.failed_blocks == []
    return library


def braces_balanced(value: str) -> bool:
    """BibTeX's own rule: every brace counts, escaped or not, and depth never goes negative."""
    depth = 0
    for ch in value:
        depth += {"{": 1, "}": -1}.get(ch, 0)
        if depth < 0:
            return False
    return depth == 0


def test_default_cites_widefs_and_every_method_paper():
    library = parse(bibtex())
    keys = [entry.key for entry in library.entries]
    expected = ["widefs"] + [
        REFERENCES[name].key for group in METHOD_GROUPS for name in METHOD_REFERENCES[group]
    ]
    assert keys == expected
    assert len(set(keys)) == len(keys)
    for paper in ("palatucci2008", "shah2010", "domingos1999", "soares2010"):
        assert REFERENCES[paper].key in keys


def test_every_entry_has_the_fields_its_type_needs_and_balanced_braces():
    text = bibtex()
    for entry in parse(text).entries:
        assert REQUIRED[entry.entry_type] <= set(entry.fields_dict), entry.key
        for field in entry.fields:
            assert braces_balanced(field.value), (entry.key, field.key)
    # One entry per '@', so nothing was swallowed into a neighbour's field.
    assert text.count("@") == len(parse(text).entries)


def test_pybtex_reads_the_same_entries_and_names_and_typesets_every_one():
    """A second, independent parser (pybtex: BibTeX's own name rules, strict mode) and the
    standard ``plain`` style, which raises when an entry lacks a field its type needs."""
    text = bibtex()
    pybtex.errors.set_strict_mode(True)
    database = pybtex_parse(text, "bibtex")
    assert list(database.entries) == [entry.key for entry in parse(text).entries]
    references = {ref.key: ref for ref in REFERENCES.values()}
    for key, entry in database.entries.items():
        if key == "widefs":
            # A corporate author is one name, not first name "widefs", last name "developers".
            assert [p.last_names for p in entry.persons["author"]] == [["{widefs developers}"]]
            continue
        authors = dict(references[key].fields)["author"].split(" and ")
        assert [" ".join(p.last_names) for p in entry.persons["author"]] == [
            a.split(",")[0] for a in authors
        ]
    style = find_plugin("pybtex.style.formatting", "plain")()
    backend = find_plugin("pybtex.backends", "text")()
    rendered = {
        e.key: e.text.render(backend) for e in style.format_entries(database.entries.values())
    }
    assert rendered["widefs"].startswith("widefs developers. widefs: feature selection")
    assert f"version {widefs.__version__}" in rendered["widefs"]
    assert (
        "Mark Palatucci and Andrew Carlson. On the Chance Accuracies"
        in rendered["palatucci2008chance"]
    )
    assert "PhD thesis, Auburn University" in rendered["soares2010cefs"]


def test_widefs_entry_names_this_version_as_one_corporate_author():
    (entry,) = [e for e in parse(bibtex("chance")).entries if e.key == "widefs"]
    assert entry.fields_dict["version"].value == widefs.__version__
    assert entry.fields_dict["author"].value == "{widefs developers}"  # one name, not two


@pytest.mark.parametrize("group", list(METHOD_REFERENCES))
def test_one_method_cites_widefs_and_its_own_papers_only(group):
    keys = [entry.key for entry in parse(bibtex(group)).entries]
    assert keys == ["widefs", *(REFERENCES[name].key for name in METHOD_REFERENCES[group])]


def test_methods_as_in_run_comma_list_or_sequence_same_output():
    text = bibtex("scm, chance,scm")
    assert text == bibtex(["chance", "scm"])
    keys = [entry.key for entry in parse(text).entries]
    assert keys == ["widefs", "palatucci2008chance", "shah2010stumps"]  # report order, once


def test_cite_groups_are_the_run_groups():
    assert tuple(METHOD_REFERENCES) == tuple(METHOD_GROUPS)


@pytest.mark.parametrize("methods", ["chance,bogus", "", " , "])
def test_unknown_or_empty_methods_is_a_data_error(methods):
    with pytest.raises(DataError, match="unknown --methods"):
        bibtex(methods)


def test_text_fields_escaped_so_latex_reads_them_literally():
    text = "50% of A & B_c $5 #1 ~ tilde"
    entry = _entry(Reference("misc", "k", (("title", text), ("note", text), ("year", "2020"))))
    library = bibtexparser.parse_string(entry, append_middleware=[LatexDecodingMiddleware()])
    assert library.failed_blocks == []
    fields = library.entries[0].fields_dict
    # The title keeps an extra pair of braces (capitalization) that LaTeX drops.
    assert fields["title"].value == text
    assert fields["note"].value == text
    assert r"\textasciicircum{}" in _entry(Reference("misc", "k", (("note", "a^b"),)))


@pytest.mark.parametrize(
    ("field", "value"),
    [("title", "a } b"), ("note", "{x"), ("author", "back\\slash"), ("url", "http://x y")],
)
def test_unquotable_values_are_refused(field, value):
    with pytest.raises(ValueError, match=f"field '{field}'"):
        _entry(Reference("misc", "k", ((field, value),)))


def test_identifiers_are_verbatim():
    entry = parse(bibtex("rules")).entries
    dois = {e.key: e.fields_dict.get("doi") for e in entry}
    assert dois["clark1989cn2"].value == "10.1007/BF00116835"
    assert re.search(r"url\s+= \{https://ijcai.org/proceedings/1999/102\}", bibtex("rules"))


def test_cli_prints_the_bibtex(capsys):
    assert main(["cite", "--methods", "cefs"]) == 0
    assert capsys.readouterr().out == bibtex("cefs")


def test_cli_unknown_method_is_one_line_and_status_2(capsys):
    assert main(["cite", "--methods", "nope"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("widefs: error: unknown --methods nope") and err.count("\n") == 1


def test_console_script_module_runs_cite():
    proc = subprocess.run(
        [sys.executable, "-m", "widefs.cli", "cite", "--methods", "chance"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert proc.stdout == bibtex("chance")


def test_run_writes_citation_bib_for_the_methods_it_ran(tmp_path):
    out = tmp_path / "report"
    assert main(["run", "colon", "--methods", "chance", "--quick", "--out", str(out)]) == 0
    assert (out / "CITATION.bib").read_text() == bibtex("chance")
    markdown = (out / "report.md").read_text()
    assert "## Citing" in markdown and "widefs cite --methods chance" in markdown
    assert "CITATION.bib" in (out / "report.html").read_text()
