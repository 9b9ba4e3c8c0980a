"""Release hygiene: one version source, the changelog, CITATION.cff, package data.

The built wheel itself is checked by ``.ci/run`` (installed alone in a fresh environment, it
runs ``widefs run`` on the bundled default from outside the checkout); these tests catch the same mistakes
earlier and in seconds.
"""

import copy
import fnmatch
import json
import re
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import jsonschema
import pytest
import yaml

import widefs
from widefs.cli._cite import REFERENCES, WIDEFS_YEAR

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
# The Citation File Format 1.2.0 schema, as shipped by cffconvert 2.0.0 (which validates with
# exactly this schema and jsonschema's format checker; its own pins conflict with ours).
CFF_SCHEMA = json.loads(
    (ROOT / "tests" / "data" / "citation_file_format_1.2.0.schema.json").read_text()
)


class _CffLoader(yaml.SafeLoader):
    """YAML as cffconvert reads it: timestamps stay strings (the schema checks their form)."""


_CffLoader.add_constructor("tag:yaml.org,2002:timestamp", _CffLoader.construct_yaml_str)


def load_cff(text: str) -> dict:
    return yaml.load(text, Loader=_CffLoader)  # a SafeLoader subclass


def cff_errors(obj: dict) -> list[str]:
    validator = jsonschema.Draft7Validator(CFF_SCHEMA, format_checker=jsonschema.FormatChecker())
    return [error.message for error in validator.iter_errors(obj)]


@pytest.fixture(scope="module")
def cff():
    return load_cff((ROOT / "CITATION.cff").read_text())


# ---------------------------------------------------------------- version


def test_version_has_one_source():
    project = PYPROJECT["project"]
    assert "version" not in project and "version" in project["dynamic"]
    assert PYPROJECT["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "widefs.__version__"}
    # setuptools reads the attribute statically, so it must stay a plain string literal.
    source = (ROOT / "src" / "widefs" / "__init__.py").read_text()
    assert re.search(r'^__version__ = "\d+\.\d+\.\d+"$', source, flags=re.M)
    assert metadata.version("widefs") == widefs.__version__


def test_import_widefs_stays_light():
    code = (
        "import sys, widefs; "
        "print(sorted(m for m in ('sklearn', 'numba', 'matplotlib', 'scipy', 'pandas') "
        "if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_changelog_has_this_version_dated_as_citation(cff):
    text = (ROOT / "CHANGELOG.md").read_text()
    assert "## [Unreleased]" in text
    match = re.search(
        rf"^## \[{re.escape(widefs.__version__)}\] - (\d{{4}}-\d{{2}}-\d{{2}})$", text, re.M
    )
    assert match, f"CHANGELOG.md has no '## [{widefs.__version__}] - YYYY-MM-DD' section"
    assert match.group(1) == cff["date-released"]
    assert int(match.group(1)[:4]) == WIDEFS_YEAR  # the year `widefs cite` prints


# ---------------------------------------------------------------- CITATION.cff


def test_citation_cff_is_valid(cff):
    assert cff_errors(cff) == []
    assert cff["cff-version"] == "1.2.0"
    assert cff["version"] == widefs.__version__
    assert cff["license"] == PYPROJECT["project"]["license"]


@pytest.mark.parametrize(
    ("path", "value"),
    [
        (("references", 0, "type"), "paper"),  # not a CFF reference type
        (("references", 1, "doi"), "arXiv:1005.0530"),  # not a DOI
        (("date-released",), "1 December 2026"),  # not a date
        (("authors",), []),  # at least one author
        (("references", 2, "url"), "not a url"),
    ],
)
def test_citation_validation_rejects_broken_files(cff, path, value):
    broken = copy.deepcopy(cff)
    target = broken
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    assert cff_errors(broken), f"a CITATION.cff with {path} = {value!r} passed validation"


def _person(author) -> str:
    return f"{author['family-names']}, {author['given-names']}"


def test_citation_references_are_the_four_papers_as_cite_prints_them(cff):
    by_title = {ref["title"]: ref for ref in cff["references"]}
    assert len(by_title) == 4
    for name in ("palatucci2008", "shah2010", "domingos1999", "soares2010"):
        fields = dict(REFERENCES[name].fields)
        ref = by_title[fields["title"]]
        assert str(ref["year"]) == fields["year"]
        assert " and ".join(_person(a) for a in ref["authors"]) == fields["author"]
        for key in ("doi", "url"):
            assert ref.get(key) == fields.get(key), (name, key)
        # Every paper has a DOI or a stable URL.
        assert ref.get("doi") or ref.get("url")


# ---------------------------------------------------------------- package data


def _package_data_patterns():
    data = PYPROJECT["tool"]["setuptools"]["package-data"]
    for package, patterns in data.items():
        base = ROOT / "src" / Path(*package.split("."))
        for pattern in patterns:
            yield base, pattern


def test_every_file_in_the_package_ships_in_the_wheel():
    """A non-Python file under src/widefs that no package-data pattern matches is left out of
    the wheel (the wheel step of CI would then fail); list it in pyproject.toml."""
    package = ROOT / "src" / "widefs"
    patterns = list(_package_data_patterns())
    missing = []
    for path in package.rglob("*"):
        if not path.is_file() or path.suffix in {".py", ".pyc"} or "__pycache__" in path.parts:
            continue
        if not any(
            base in path.parents and fnmatch.fnmatch(path.relative_to(base).as_posix(), pattern)
            for base, pattern in patterns
        ):
            missing.append(path.relative_to(ROOT).as_posix())
    assert missing == []


def test_package_data_patterns_match_something():
    for base, pattern in _package_data_patterns():
        assert list(base.glob(pattern)), f"{base.relative_to(ROOT)}/{pattern} matches nothing"


def test_docs_extra_and_ci_use_the_wheel():
    extras = PYPROJECT["project"]["optional-dependencies"]
    names = {re.split(r"[<>=\[ ]", req, maxsplit=1)[0] for req in extras["docs"]}
    assert {"sphinx", "numpydoc", "sphinx-gallery", "myst-parser", "pydata-sphinx-theme"} <= names
    ci = (ROOT / ".ci" / "run").read_text()
    assert "python -m build" in ci and 'pip install --quiet --no-compile "$wheel"' in ci
    assert 'widefs" run --out report' in ci and "sphinx-build -W" in ci
    assert "cffconvert --validate -i CITATION.cff" in ci
