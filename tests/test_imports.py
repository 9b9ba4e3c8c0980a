"""The import graph: light imports, no private cross-package imports, no cycles."""

import ast
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
# The paper reproductions: a client of widefs's public API in the same distribution.
REPRODUCE = "widefs_reproduce"

# Importing these must load neither numba (kernels compile on first use) nor matplotlib.
LIGHT = [
    "widefs",
    "widefs.cli",
    "widefs.search",
    "widefs.rules",
    "widefs.ensemble",
    "widefs.model_selection",
    "widefs.utils",
]

# Imports of another package's private module still waiting for their owners' branches
# (module, imported private module). The lead empties this list after merging them.
PENDING_PRIVATE: set[tuple[str, str]] = set()
# Import cycles still waiting for their owners' branches (sorted member lists).
PENDING_CYCLES: list[list[str]] = []


def _run(code):
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.split()


@pytest.mark.parametrize("heavy", ["numba", "matplotlib"])
def test_imports_stay_light(heavy):
    code = f"import sys\nimport {', '.join(LIGHT)}\nprint({heavy!r} in sys.modules)"
    assert _run(code) == ["False"]


def test_a_screen_loads_only_the_screens_modules():
    code = (
        "import sys\nimport widefs.univariate as u\n"
        "print(sorted(u.__all__) == sorted(u._HOMES), 'widefs.univariate._screen' in sys.modules)\n"
        "u.ClassDifferenceScreen\n"
        "print('widefs.univariate._screen' in sys.modules, 'widefs.univariate._protocol' in "
        "sys.modules, 'widefs.univariate._selector' in sys.modules)\n"
        "print(all(getattr(u, n) is getattr(__import__(u._HOMES[n], fromlist=[n]), n) "
        "for n in u.__all__))"
    )
    assert _run(code) == ["True", "False", "True", "False", "False", "True"]


def test_a_small_screen_fit_loads_no_numba_and_no_application():
    # A screen below the work that pays for numba runs its numpy kernels (one process that
    # fits one screen would spend more time loading numba than computing).
    code = (
        "import sys\nimport numpy as np\nfrom widefs.univariate import ClassDifferenceScreen\n"
        "rng = np.random.default_rng(0)\n"
        "X = np.column_stack([rng.normal(size=(20, 50)), rng.lognormal(size=(20, 5))])\n"
        "s = ClassDifferenceScreen(random_state=0).fit(X, np.repeat([0, 1], 10))\n"
        "print(bool((s.kinds_ == 3).any()), *(m in sys.modules for m in ('numba', "
        "'matplotlib', 'widefs.univariate._screen_kernels', 'widefs.cli', 'widefs.analysis')))"
    )
    assert _run(code) == ["True", "False", "False", "False", "False", "False"]


def test_kernels_load_on_first_use():
    # The flip side: fitting does load the compiled kernels (so the test above is not
    # vacuous because the kernels moved elsewhere).
    code = (
        "import sys\nimport numpy as np\nfrom widefs.search import KNNEvaluator, SequentialSelector\n"
        "from widefs.rules import CN2Classifier\n"
        "print('widefs.search._kernels' in sys.modules, 'widefs.rules._beam' in sys.modules)\n"
        "X = np.arange(24.0).reshape(8, 3) % 5; y = [0, 1] * 4\n"
        "SequentialSelector(n_features=1, evaluator=KNNEvaluator(1)).fit(X, y)\n"
        "CN2Classifier().fit(X, y)\n"
        "print('widefs.search._kernels' in sys.modules, 'widefs.rules._beam' in sys.modules)"
    )
    assert _run(code) == ["False", "False", "True", "True"]


def _modules():
    out = {}
    for path in SRC.rglob("*.py"):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        out[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    return out


def _module_strings(path, modules):
    """widefs module names written as string constants (registries of lazy imports)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in modules
    }


def _is_import_module(call):
    f = call.func
    return (isinstance(f, ast.Name) and f.id == "import_module") or (
        isinstance(f, ast.Attribute) and f.attr in ("import_module", "__import__")
    )


def _imports(name, path, is_package, modules):
    """``(imported module, line)`` for every widefs import, at any depth of the file:
    ``import``/``from`` statements (module level or inside functions) and
    ``importlib.import_module`` calls. A call whose argument is not a literal may import
    any module named by a string constant of this file or of a module it imports (the
    registry it reads the name from)."""
    static = []
    dynamic = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and _is_import_module(node):
            arg = node.args[0] if node.args else None
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                if arg.value.startswith("widefs"):
                    static.append((arg.value, node.lineno))
            else:
                dynamic.append(node.lineno)
        elif isinstance(node, ast.Import):
            static += [(a.name, node.lineno) for a in node.names if a.name.startswith("widefs")]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                pkg = name if is_package else name.rsplit(".", 1)[0]
                for _ in range(node.level - 1):
                    pkg = pkg.rsplit(".", 1)[0]
                base = f"{pkg}.{base}" if base else pkg
            if base.startswith("widefs"):
                for a in node.names:
                    sub = f"{base}.{a.name}"
                    static.append((sub if sub in modules else base, node.lineno))
    yield from static
    if dynamic:
        sources = [path] + [modules[t][0] for t, _ in static if t in modules]
        names = set().union(*(_module_strings(p, modules) for p in sources))
        # A lazy import whose target cannot be found would hide edges: name it.
        assert names, f"{name}: import_module at lines {dynamic} with no known target"
        yield from ((t, line) for t in sorted(names) for line in dynamic)


def _graph():
    modules = _modules()
    return modules, {
        name: sorted(set(_imports(name, path, is_pkg, modules)))
        for name, (path, is_pkg) in modules.items()
    }


def test_no_module_imports_another_packages_private_module():
    modules, graph = _graph()
    found = set()
    for name, targets in graph.items():
        package = name if modules[name][1] else name.rsplit(".", 1)[0]
        for target, line in targets:
            parts = target.split(".")
            for i in range(1, len(parts)):
                if parts[i].startswith("_"):
                    owner = ".".join(parts[:i])
                    if package != owner and not package.startswith(owner + "."):
                        found.add((name, target, line))
                    break
    assert {(a, b) for a, b, _ in found} - PENDING_PRIVATE == set(), sorted(found)
    # A pending entry that no longer occurs must leave the list.
    assert {(a, b) for a, b, _ in found} >= PENDING_PRIVATE


def test_no_import_cycles():
    """Strongly connected components of the import graph (function-level imports too)."""
    modules, graph = _graph()
    edges = defaultdict(set)
    for name, targets in graph.items():
        edges[name] |= {t for t, _ in targets if t in modules and t != name}
    index, low, stack, on_stack, cycles = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for v in sorted(modules):
        if v not in index:
            visit(v)
    assert sorted(cycles) == sorted(PENDING_CYCLES), cycles


def test_graph_sees_function_level_and_lazy_imports():
    # The cycle test is only as good as its graph: imports inside functions, a module
    # ``__getattr__`` and ``import_module`` calls (literal or read from a registry) are edges.
    _, graph = _graph()

    def targets(name):
        return {t for t, _ in graph[name]}

    assert "widefs.scm._pac_bayes_kernels" in targets("widefs.scm._pac_bayes")  # import_module
    assert "widefs.cli._reproduce" in targets("widefs.cli._main")
    assert "widefs.rules._beam" in targets("widefs.rules._rule_search")  # in a function
    assert "widefs.univariate._kernels" in targets("widefs.univariate._scores")  # in a function


def _package(name):
    return name.split(".")[0]


def test_the_library_imports_nothing_from_the_reproductions():
    # widefs (library and command line) finds the reproductions through entry points only:
    # no import, no lazy import_module, no module name in a registry.
    modules, graph = _graph()
    assert any(_package(m) == REPRODUCE for m in modules)  # the graph does see them
    up = [
        (name, target, line)
        for name, targets in graph.items()
        if _package(name) == "widefs"
        for target, line in targets
        if _package(target) == REPRODUCE
    ]
    assert up == []
    for path in (SRC / "widefs").rglob("*.py"):
        names = [
            node.value
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
        ]
        assert not [n for n in names if n == REPRODUCE or n.startswith(REPRODUCE + ".")], path


def test_reproductions_use_only_public_library_names():
    # Like a user's script: widefs's public packages, never a private module, nor the CLI.
    _, graph = _graph()
    found = []
    for name, targets in graph.items():
        if _package(name) != REPRODUCE:
            continue
        for target, line in targets:
            parts = target.split(".")
            if parts[0] == "widefs" and (
                any(p.startswith("_") for p in parts[1:]) or parts[1:2] == ["cli"]
            ):
                found.append((name, target, line))
    assert found == []


def test_every_reproduction_is_an_entry_point():
    # pyproject's entry points are the one registry `widefs reproduce` reads.
    import tomllib

    pyproject = tomllib.loads((SRC.parent / "pyproject.toml").read_text(encoding="utf-8"))
    points = pyproject["project"]["entry-points"]["widefs.reproductions"]
    papers = sorted(p.name for p in (SRC / REPRODUCE).iterdir() if (p / "__init__.py").exists())
    assert points == {p: f"{REPRODUCE}.{p}:main" for p in papers}
    assert len(papers) == 4


def test_public_utils_are_what_a_user_calls():
    import widefs.utils

    assert len(widefs.utils.__all__) <= 12
    assert all(not name.isupper() for name in widefs.utils.__all__)  # no internal constants


def test_package_docstring_lists_every_subpackage():
    import pkgutil

    import widefs

    listed = {line.split()[0] for line in widefs.__doc__.splitlines() if line[:1].isalpha()}
    public = {m.name for m in pkgutil.iter_modules(widefs.__path__) if not m.name.startswith("_")}
    assert public <= listed, public - listed
