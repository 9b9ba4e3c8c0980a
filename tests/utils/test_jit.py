"""Every numba kernel of widefs compiles with the shared options (one home for them)."""

import ast
from pathlib import Path

import numpy as np

import widefs
from widefs.utils import HELPER_JIT_OPTIONS, KERNEL_JIT_OPTIONS

SRC = Path(widefs.__file__).parent


def _jit_decorators():
    for path in sorted(SRC.rglob("*.py")):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if not isinstance(node, ast.FunctionDef):
                continue
            for dec in node.decorator_list:
                call = dec if isinstance(dec, ast.Call) else None
                name = ast.unparse(call.func if call else dec)
                if name.split(".")[-1] in ("njit", "jit"):
                    yield path.relative_to(SRC), node.name, call


def test_every_compiled_function_uses_the_shared_options():
    found = list(_jit_decorators())
    assert len(found) >= 15  # the kernels of rules, search, scm and univariate
    for where, name, call in found:
        assert call is not None, f"{where}:{name} compiles with numba's defaults"
        keywords = {k.arg: ast.unparse(k.value) for k in call.keywords}
        inline = keywords.get("inline") == "'always'"
        shared = {v for k, v in keywords.items() if k is None}
        if inline:  # inlined into its callers at numba IR level: never compiled on its own
            assert keywords == {"inline": "'always'"}, f"{where}:{name}"
        else:
            assert shared in ({"KERNEL_JIT_OPTIONS"}, {"HELPER_JIT_OPTIONS"}), f"{where}:{name}"
            assert set(keywords) == {None}, f"{where}:{name} adds options of its own"


def test_options_cache_release_the_gil_and_drop_unused_wrappers():
    assert KERNEL_JIT_OPTIONS == {"cache": True, "nogil": True, "no_cfunc_wrapper": True}
    assert HELPER_JIT_OPTIONS == {**KERNEL_JIT_OPTIONS, "no_cpython_wrapper": True}


def test_a_helper_runs_inside_compiled_code():
    import numba

    from widefs.rules._beam import _better, _merge

    better = numba.njit(lambda *a: _better(*a))
    assert better(0.5, 3, 7, 0.5, 3, 8) and not better(0.5, 3, 8, 0.5, 3, 7)
    merge = numba.njit(lambda *a: _merge(*a))
    out = np.empty(3, dtype=np.int64)
    cand_feature = np.array([0, 1, 2])
    cand_op = np.zeros(3, dtype=np.int64)
    assert merge(np.array([0, 2, 0]), 2, 1, 1, 0, cand_feature, cand_op, out) == 3
    assert out.tolist() == [0, 1, 2]
