"""Mutation testing of the modules that carry the statistics (mutmut 3).

Usage (from the repository root, with the ``[mutation]`` extra installed)::

    nice -n 10 python benchmarks/mutation.py MODULE [MODULE ...]
    nice -n 10 python benchmarks/mutation.py all
    nice -n 10 python benchmarks/mutation.py search_evaluators --workers 2

``MODULE`` is one of the keys of :data:`MODULES`. For each module this builds a scratch
directory ``build/mutation/<module>/`` holding a copy of ``pyproject.toml`` whose
``[tool.mutmut]`` table names that module and its targeted tests, plus links to ``src``
and ``tests``; runs ``mutmut run --max-children N`` there (``--workers``, default one:
mutation testing is heavy); and prints the score ``killed / (killed + survived + timeout + no tests)``.
``mutmut results`` / ``mutmut show NAME`` inside that directory list and show survivors.

mutmut 3 never mutates decorated functions, so the numba kernels (``@numba.njit``) are
out of its reach.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: The readers' tests (and ``-k``: the end-to-end runs left out, see the ``cli_*`` keys; and
#: the one that reads the rendered pages of ``docs/results``, absent from the scratch copy).
_CLI_TESTS = [
    *(
        f"tests/cli/test_{name}.py"
        for name in (
            "inputs",
            "labels",
            "memory",
            "safety_inputs",
            "safety_store",
            "store",
            "users_anndata",
            "users_columns",
            "users_counts",
            "users_formats",
            "users_geo",
            "users_samplesheets",
            "readers_boundaries",
            "readers_text_boundaries",
            "readers_labels_boundaries",
        )
    ),
    "-k",
    "not (run_ or report_from or end_to_end or numbers_once "
    "or over_16_mib or route_end or gzip_bomb or render_only)",
]

#: The tests written against the surviving mutants of the keys cli_labels and cli_stores.
_CLI_READER_TESTS = [
    f"tests/cli/test_reader_{name}.py"
    for name in (
        "mutants_anndata",
        "mutants_labels",
        "mutants_stores",
    )
]

#: module key -> (files to mutate, targeted tests, extra environment)
MODULES: dict[str, tuple[list[str], list[str], dict[str, str]]] = {
    "scm_bounds": (
        ["src/widefs/scm/_bounds.py"],
        [
            "tests/scm/test_bounds.py",
            "tests/scm/test_bounds_messages.py",
            "tests/scm/test_estimator_bounds.py",
            "tests/scm/test_occam_scan.py",
        ],
        {},
    ),
    "scm_covering": (
        ["src/widefs/scm/_covering.py"],
        [
            "tests/scm/test_covering.py",
            "tests/scm/test_greedy.py",
            "tests/scm/test_out_of_core.py",
            "tests/scm/test_pyscm_ml.py",
        ],
        {},
    ),
    "rules_poe": (["src/widefs/rules/_poe.py"], ["tests/rules/test_poe.py"], {}),
    "stats": (
        # _pooled.py has a key of its own (stats_pooled).
        [f"src/widefs/stats/{name}.py" for name in ("_binomial", "_chance", "_multitest")],
        ["tests/stats"],
        {},
    ),
    "stats_pooled": (["src/widefs/stats/_pooled.py"], ["tests/stats/test_pooled.py"], {}),
    "search_genetic": (["src/widefs/search/_genetic.py"], ["tests/search/test_genetic.py"], {}),
    "search_evaluators": (
        # The leave-one-out evaluators, one module per family.
        [
            "src/widefs/search/_evaluators.py",
            "src/widefs/search/_knn.py",
            "src/widefs/search/_naive_bayes.py",
            "src/widefs/search/_criterion.py",
            "src/widefs/search/_cross_validation.py",
        ],
        # The evaluators are exercised by every wrapper search and by CEFS, not only by
        # their own tests file (a narrower selection leaves 244 mutants with no test).
        ["tests/search", "tests/ensemble"],
        {},
    ),
    "univariate_selector": (
        ["src/widefs/univariate/_selector.py"],
        # The selector is exercised by its own tests and by those of the modules it drives
        # (the error counts, the pooled null, the thresholds, out-of-core input).
        ["tests/univariate"],
        {},
    ),
    "stumps": (
        ["src/widefs/stumps/_presort.py", "src/widefs/stumps/_scan.py"],
        ["tests/stumps"],
        {},
    ),
    "univariate_thresholds": (
        ["src/widefs/univariate/_thresholds.py"],
        ["tests/univariate/test_thresholds.py"],
        {},
    ),
    "scm_serialize": (
        ["src/widefs/scm/_serialize.py", "src/widefs/scm/_serialize_list.py"],
        [
            "tests/scm/test_serialize.py",
            "tests/scm/test_serialize_bounds.py",
            "tests/scm/test_serialize_hash.py",
            "tests/scm/test_serialize_list.py",
        ],
        {},
    ),
    "stats_exact_voom": (
        ["src/widefs/stats/_exact.py", "src/widefs/stats/_voom.py"],
        ["tests/stats"],
        {},
    ),
    "stats_moderated": (["src/widefs/stats/_moderated.py"], ["tests/stats"], {}),
    "stats_design": (
        # The study designs and the permutation schemes that respect them.
        [
            "src/widefs/stats/_design.py",
            "src/widefs/stats/_exchangeability.py",
            "src/widefs/stats/_freedman_lane.py",
        ],
        ["tests/stats"],
        {},
    ),
    # The class-difference screen, one key per module; its numba kernels (_screen_kernels.py)
    # are decorated, so mutmut leaves them alone (see docs/testing.md). The Monte Carlo
    # checks of test_screen.py (minutes per run) are left to the suite.
    "univariate_screen": (
        ["src/widefs/univariate/_screen.py"],
        ["tests/univariate/test_screen_boundaries.py", "tests/univariate/test_screen_fast.py"],
        {},
    ),
    "univariate_kinds": (
        ["src/widefs/univariate/_kinds.py"],
        ["tests/univariate/test_screen_boundaries.py", "tests/univariate/test_screen_fast.py"],
        {},
    ),
    "univariate_rank_null": (
        ["src/widefs/univariate/_rank_null.py"],
        ["tests/univariate/test_screen_boundaries.py", "tests/univariate/test_screen_fast.py"],
        {},
    ),
    "model_selection_nested": (
        ["src/widefs/model_selection/_nested.py"],
        ["tests/model_selection/test_nested.py", "tests/model_selection/test_nested_exact.py"],
        {},
    ),
    # The command line's readers, in four keys (a campaign over all of them at once takes hours
    # on a shared machine). Their tests run every reader on small files; the end-to-end runs
    # (``widefs run`` on a file, several seconds each) are deselected: they exercise every
    # reader at once, so each surviving mutant would rerun all of them.
    "cli_checks": (
        [
            f"src/widefs/cli/io/{name}.py"
            for name in ("_checks", "_columns", "_tables", "_ids", "_exclusion", "_memory")
        ],
        _CLI_TESTS,
        {},
    ),
    "cli_text": (
        [f"src/widefs/cli/io/{name}.py" for name in ("_text", "_numeric", "_delimited")],
        _CLI_TESTS,
        {},
    ),
    "cli_labels": (
        [
            f"src/widefs/cli/io/{name}.py"
            for name in ("_labels", "_geo", "_archives", "_formats", "_data")
        ],
        [*_CLI_READER_TESTS, *_CLI_TESTS],
        {},
    ),
    "cli_stores": (
        [f"src/widefs/cli/io/{name}.py" for name in ("_counts", "_store", "_anndata")],
        [*_CLI_READER_TESTS, *_CLI_TESTS],
        {},
    ),
}


def _toml_list(items: list[str]) -> str:
    return "[" + ", ".join(json.dumps(x) for x in items) + "]"


def _prepare(key: str) -> Path:
    files, tests, _ = MODULES[key]
    work = ROOT / "build" / "mutation" / key
    work.mkdir(parents=True, exist_ok=True)
    for name in ("src", "tests"):
        link = work / name
        if not link.exists():
            link.symlink_to(ROOT / name, target_is_directory=True)
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    table = (
        "[tool.mutmut]\n"
        'source_paths = ["src"]\n'
        f"only_mutate = {_toml_list(files)}\n"
        f"pytest_add_cli_args_test_selection = {_toml_list(tests)}\n"
        'pytest_add_cli_args = ["-p", "no:cacheprovider", "-p", "no:xdist"]\n'
        "use_git_change_detection = false\n"
    )
    pyproject = re.sub(r"(?ms)^\[tool\.mutmut\]\n.*?(?=^\[|\Z)", "", pyproject)
    (work / "pyproject.toml").write_text(pyproject + "\n" + table, encoding="utf-8")
    return work


def _score(work: Path) -> dict[str, int]:
    out = subprocess.run(
        [sys.executable, "-m", "mutmut", "results", "--all", "true"],
        cwd=work,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    counts: dict[str, int] = {}
    for line in out.splitlines():
        if ":" in line:
            status = line.rsplit(":", 1)[1].strip()
            counts[status] = counts.get(status, 0) + 1
    return counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("modules", nargs="+", choices=[*MODULES, "all"])
    parser.add_argument(
        "--resume",
        action="store_true",
        help="keep the results of an interrupted run (mutmut only tests the unchecked mutants)",
    )
    parser.add_argument(
        "--workers", type=int, default=1, help="mutants tested at once (default: 1)"
    )
    args = parser.parse_args(argv)
    keys = list(MODULES) if "all" in args.modules else args.modules
    for key in keys:
        work = _prepare(key)
        if not args.resume:
            shutil.rmtree(work / "mutants", ignore_errors=True)
        env = {**os.environ, **MODULES[key][2]}
        subprocess.run(
            [sys.executable, "-m", "mutmut", "run", "--max-children", str(args.workers)],
            cwd=work,
            env=env,
            check=True,
        )
        counts = _score(work)
        killed = counts.get("killed", 0)
        total = sum(v for k, v in counts.items() if k not in ("skipped", "not checked"))
        print(f"{key}: {killed}/{total} killed ({100 * killed / max(total, 1):.1f}%) {counts}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
