"""Functions read on one screen: at most 80 lines and cyclomatic complexity 20, modules at
most 600 lines (DESIGN.md, section 12), everywhere in ``src/`` (the library and the
reproductions)."""

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
CHECKED = sorted(p.name for p in SRC.iterdir() if (p / "__init__.py").exists())
MAX_FUNCTION_LINES = 80
MAX_COMPLEXITY = 20
MAX_MODULE_LINES = 600


def complexity(func: ast.AST) -> int:
    """Cyclomatic complexity as radon counts it: 1 plus one per branch point (``if``,
    ``elif``, conditional expression, loop, ``except``, ``assert``, comprehension clause
    and condition) and per extra operand of ``and``/``or``; nested functions and classes
    count on their own."""
    count = 1
    todo = list(ast.iter_child_nodes(func))
    while todo:
        node = todo.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
            continue
        branches = ast.If | ast.IfExp | ast.For | ast.AsyncFor | ast.While | ast.ExceptHandler
        if isinstance(node, branches | ast.Assert):
            count += 1
        elif isinstance(node, ast.comprehension):
            count += 1 + len(node.ifs)
        elif isinstance(node, ast.BoolOp):
            count += len(node.values) - 1
        todo.extend(ast.iter_child_nodes(node))
    return count


def _functions():
    for package in CHECKED:
        for path in sorted((SRC / package).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                    yield f"{path.relative_to(SRC)}:{node.lineno} {node.name}", node


def test_complexity_counts_branches():
    """The counter on a function whose complexity radon gives as 8 (the counter agrees
    with radon on every function of the checked packages)."""
    code = (
        "def f(a, b):\n"
        "    if a and b or a:\n"  # if +1, and/or +2
        "        return [x for x in a if x]\n"  # comprehension and its condition +2
        "    while b:\n"  # +1
        "        b = b - 1 if b else 0\n"  # +1
        "    return b\n"
    )
    assert complexity(ast.parse(code).body[0]) == 8


def test_functions_fit_on_one_screen():
    too_long = []
    too_complex = []
    for name, node in _functions():
        lines = node.end_lineno - node.lineno + 1
        if lines > MAX_FUNCTION_LINES:
            too_long.append(f"{name}: {lines} lines")
        if complexity(node) > MAX_COMPLEXITY:
            too_complex.append(f"{name}: complexity {complexity(node)}")
    assert not too_long and not too_complex, too_long + too_complex


@pytest.mark.parametrize("package", CHECKED)
def test_modules_hold_one_concept(package):
    sizes = {
        str(path.relative_to(SRC)): len(path.read_text(encoding="utf-8").splitlines())
        for path in (SRC / package).rglob("*.py")
    }
    assert {p: n for p, n in sizes.items() if n > MAX_MODULE_LINES} == {}
