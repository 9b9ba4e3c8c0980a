"""Every numba kernel of widefs compiles with the shared options (one home for them)."""

import ast
from pathlib import Path

import numpy as np

import widefs
from widefs._utils import HELPER_JIT_OPTIONS, KERNEL_JIT_OPTIONS

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
            # A kernel may add reassociated sums (vectorized reductions) or numpy's division
            # by zero (inf or nan, no zero test: loops with divisions vectorize).
            own = {k: v for k, v in keywords.items() if k is not None}
            assert own in ({}, {"fastmath": "{'reassoc'}"}, {"error_model": "'numpy'"}), (
                f"{where}:{name} adds options of its own"
            )


def test_options_cache_release_the_gil_and_drop_unused_wrappers():
    assert KERNEL_JIT_OPTIONS == {"cache": True, "nogil": True, "no_cfunc_wrapper": True}
    assert HELPER_JIT_OPTIONS == {**KERNEL_JIT_OPTIONS, "no_cpython_wrapper": True}


def test_a_helper_runs_inside_compiled_code():
    import numba

    from widefs.rules._beam import _merge
    from widefs.rules._beam_quality import _better

    better = numba.njit(lambda *a: _better(*a))
    assert better(0.5, 3, 7, 0.5, 3, 8) and not better(0.5, 3, 8, 0.5, 3, 7)
    merge = numba.njit(lambda *a: _merge(*a))
    out = np.empty(3, dtype=np.int64)
    cand_feature = np.array([0, 1, 2])
    cand_op = np.zeros(3, dtype=np.int64)
    assert merge(np.array([0, 2, 0]), 2, 1, 1, 0, cand_feature, cand_op, out) == 3
    assert out.tolist() == [0, 1, 2]


# --- Compile time: every kernel is typed in numba's minimum of two passes ---------------------
# numba's type inference re-runs every constraint of a function until no type changes (two
# passes at least: the second finds nothing new). A literal initial value (``count = 0``) has
# a type of its own, widened to int64 one loop level per pass: beam_round took 7 passes, about
# 0.5 s of a first run. The kernels start counters from non-literal values instead.


def _shared_rounds(X, y):
    from widefs._utils import sharing_label_free_work
    from widefs.rules import CN2Classifier

    Y, folds = y[None], (np.arange(y.size) % 3)[None]
    with sharing_label_free_work():
        for est in (CN2Classifier(stopping="poe"), CN2Classifier()):
            est.out_of_fold_predictions(X, Y, folds)


def _runs():
    """Public calls that run every kernel of the four compiled modules at least once."""
    from widefs.rules import CN2Classifier
    from widefs.scm import PACBayesSCM
    from widefs.search import GeneticSelector, KNNEvaluator, SequentialSelector
    from widefs.univariate import gaussian_nb_split_errors, halves_masks, stump_split_errors

    rng = np.random.default_rng(0)
    y = np.repeat([0, 1], 12)
    X = rng.normal(size=(24, 6))
    X[:, 0] += 2 * y
    y3 = np.arange(24) % 3
    tr, va = halves_masks(y, 2, random_state=0)
    return {
        "rules": lambda: CN2Classifier().fit(X, y),
        "rules_entropy": lambda: CN2Classifier(quality="entropy").fit(X, y),
        # A nominal attribute: ranked by _rank_candidates (numeric data by _walk_numeric).
        "rules_nominal": lambda: CN2Classifier(categorical_features=[1]).fit(
            np.column_stack([X[:, 0], y3]), y
        ),
        # Significance searches taking POE's stored rounds check their best in a kernel.
        "rules_shared": lambda: _shared_rounds(X, y),
        "knn": lambda: SequentialSelector(n_features=2, evaluator=KNNEvaluator(3)).fit(X, y),
        "genetic": lambda: GeneticSelector(
            population_size=4, n_generations=2, random_state=0, evaluator=KNNEvaluator(1)
        ).fit(X, y),
        "pac_bayes": lambda: PACBayesSCM(max_rules=1, feature_range=(-9, 9)).fit(X, y),
        "pac_bayes_fixed": lambda: PACBayesSCM(max_rules=1, margin=0.1, feature_range=(-9, 9)).fit(
            X, y
        ),
        # Label matrices: the compiled path scores several labellings in one batch.
        "gnb": lambda: (
            gaussian_nb_split_errors(X, np.stack([y, y[::-1]]), 2, tr[None], va[None]),
            gaussian_nb_split_errors(X, np.stack([y3, y3[::-1]]), 3, tr[None], va[None]),
        ),
        "stump": lambda: stump_split_errors(X, np.stack([y3, y3[::-1]]), 3, tr[None], va[None]),
    }


def _compiled_functions():
    import numba

    from widefs.rules import _beam, _beam_quality, _beam_rank
    from widefs.scm import _pac_bayes_kernels
    from widefs.search import _kernels as search_kernels
    from widefs.univariate import _kernels as univariate_kernels

    for module in (
        _beam,
        _beam_quality,
        _beam_rank,
        _pac_bayes_kernels,
        search_kernels,
        univariate_kernels,
    ):
        for name, obj in sorted(vars(module).items()):
            if (
                isinstance(obj, numba.core.registry.CPUDispatcher)
                and obj.py_func.__module__ == module.__name__
                and obj.targetoptions.get("inline") != "always"  # typed inside its callers
            ):
                yield f"{module.__name__}.{name}", obj


def test_every_kernel_is_typed_in_two_passes(monkeypatch):
    import numba
    from numba.core import typeinfer

    for run in _runs().values():
        run()
    kernels = dict(_compiled_functions())
    assert len(kernels) >= 14
    passes = {}
    propagate = typeinfer.ConstraintNetwork.propagate

    def counting(self, inferer):
        key = inferer.func_id.func
        passes[key] = passes.get(key, 0) + 1
        return propagate(self, inferer)

    monkeypatch.setattr(typeinfer.ConstraintNetwork, "propagate", counting)
    # Helpers (called only from compiled code) last: a kernel loaded from the cache carries
    # their code, so they get a signature only when a kernel is typed afresh below.
    # A helper called only by another helper gets its signature once that one is typed, so
    # the helpers are visited until no new one can be typed.
    pending = sorted(
        kernels, key=lambda k: kernels[k].targetoptions.get("no_cpython_wrapper", False)
    )
    while pending:
        ready = [name for name in pending if kernels[name].signatures]
        assert ready, f"{pending[0]} was not run by _runs()"
        for name in ready:
            kernel = kernels[name]
            fresh = numba.njit(no_cfunc_wrapper=True)(kernel.py_func)  # not cached: typed afresh
            passes.pop(kernel.py_func, None)
            fresh.compile(kernel.signatures[0])
            assert passes.get(kernel.py_func) == 2, f"{name}: {passes.get(kernel.py_func)} passes"
        pending = [name for name in pending if name not in ready]
