"""The command line reads, calls widefs.analysis and renders: it imports no estimator package.

Every statistical decision lives in the library (``widefs.analysis`` and below); a CLI module
that imported an estimator package or scikit-learn would be making one of its own.
"""

import ast
from pathlib import Path

import pytest

CLI = Path(__file__).resolve().parents[2] / "src" / "widefs" / "cli"
FORBIDDEN = {
    "widefs.univariate",
    "widefs.scm",
    "widefs.rules",
    "widefs.search",
    "widefs.ensemble",
    "widefs.model_selection",
    "widefs.stats",
    "widefs.stumps",
    "sklearn",
}


def imported_modules(source: str) -> list[tuple[str, int]]:
    """Every module an ``import``, ``from ... import`` or ``import_module("...")`` names."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.append((node.module, node.lineno))
            # ``from widefs import scm`` names the package in the alias
            found += [(f"{node.module}.{alias.name}", node.lineno) for alias in node.names]
        elif (
            isinstance(node, ast.Call)
            and getattr(node.func, "attr", getattr(node.func, "id", None))
            in ("import_module", "__import__")
            and node.args
            and isinstance(node.args[0], ast.Constant)
        ):
            found.append((str(node.args[0].value), node.lineno))
    return found


def forbidden_imports(source: str) -> list[tuple[str, int]]:
    return [
        (name, line)
        for name, line in imported_modules(source)
        if any(name == f or name.startswith(f + ".") for f in FORBIDDEN)
    ]


@pytest.mark.parametrize("path", sorted(CLI.rglob("*.py")), ids=lambda p: p.name)
def test_no_cli_module_imports_an_estimator_package(path):
    assert forbidden_imports(path.read_text(encoding="utf-8")) == [], path


@pytest.mark.parametrize(
    "source",
    [
        "import sklearn",
        "from sklearn.base import clone",
        "def f():\n    from widefs.scm import describe_model",
        "import widefs.univariate._selector as s",
        "from widefs import rules",
        "importlib.import_module('widefs.stats')",
        "__import__('sklearn.svm')",
    ],
)
def test_the_walk_sees_every_kind_of_import(source):
    assert forbidden_imports(source)


def test_the_walk_allows_the_analysis_and_light_modules():
    source = (
        "from widefs.analysis import analyse\nimport widefs.plotting\n"
        "from widefs.cli._markup import visible\nfrom widefs.statsmodels_like import x\n"
    )
    assert forbidden_imports(source) == []
