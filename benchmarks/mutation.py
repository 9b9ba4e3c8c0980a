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
A mutant whose tests run longer than ``--timeout-multiplier`` (default 5) times their
duration in mutmut's first, unmutated run plus ten seconds is stopped and counted as
"timeout": not killed (a mutant that makes a loop endless is reported, not hidden).
``mutmut results`` / ``mutmut show NAME`` inside that directory list and show survivors.

``--comparisons`` runs only the mutants at a threshold, a tie rule or a validator: it
generates every mutant, reads each one's diff (what ``mutmut show NAME`` prints) and keeps
those that change or remove a comparison operator (``< <= > >= == != is is not in not in``),
a boolean ``and``/``or``/``not``, or a number compared (within four tokens of a comparison
operator; string literals, such as the messages, are ignored); then runs
``mutmut run NAMES`` and prints the score of that subset (mutmut's progress line counts
every mutant of the key, but only the subset runs). With ``--resume`` only the
subset's mutants not yet killed run (the unchecked ones and, against the tests written
since, the survivors)::

    nice -n 10 python benchmarks/mutation.py analysis --comparisons

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
from collections import Counter
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

#: The class-difference screen's targeted tests (its three keys).
_SCREEN_TESTS = [
    *(
        f"tests/univariate/test_{name}.py"
        for name in (
            "screen_boundaries",
            "screen_fast",
            "screen_mutants",
            "kinds_exact",
            "rank_null_exact",
        )
    ),
    # The warning's caller line is shifted by mutmut's trampoline frame around _screen.py.
    "-k",
    "not (numpy_reference_on_every_kind or float32_and_memmap_equal or warns_at_the_callers_line)",
]

#: The screen's memory-path modules: their own tests first, then the screen's. The
#: selection rules (BH cut, Tarone's set) are called by every fit: their key runs only the
#: direct checks (loops written from the definitions) and the rule-switching tests, which
#: take seconds, not the screen's fits.
_SCREEN_MEMORY_TESTS = [
    *(
        f"tests/univariate/test_{name}.py"
        for name in (
            "screen_memory",
            "screen_memory_mutants",
            "screen_numpy",
            "screen_numpy_mutants",
            "shape_table",
            "screen_select_under",
            "screen_reads",
            "screen_spill_ranks",
        )
    ),
    *_SCREEN_TESTS,
]
_SCREEN_SELECT_TESTS = [
    *(
        f"tests/univariate/test_{name}.py"
        for name in (
            "screen_select_mutants",
            "screen_select_under",
            "screen_memory",
            "screen_reads",
            "screen_spill",  # the fitted arrays of a spilled fit (summarize, select, map)
            "screen_spill_ranks",  # codes kept in the file
        )
    ),
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
    # rules_summary: the split (row indices), the pre-screen and the in-place parts.
    "rules_summary": (
        ["src/widefs/rules/_summary.py"],
        [
            "tests/rules/test_summary_rows.py",
            "tests/rules/test_summary_prescreen.py",
            "tests/rules/test_summary_groups.py",
        ],
        {},
    ),
    # The beam round's Python driver (its compiled steps are decorated: out of mutmut's reach).
    "rules_beam": (
        ["src/widefs/rules/_beam.py"],
        ["tests/rules/test_search.py", "tests/rules/test_shared_rounds.py"],
        {},
    ),
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
    # Fits on a fold's rows read in place and the errors certificate by blocks, checked
    # against the fits on copies.
    "univariate_rows": (
        ["src/widefs/univariate/_rows.py", "src/widefs/univariate/_search_scores.py"],
        ["tests/univariate/test_rows_memory.py", "tests/analysis/test_rows_pipeline.py"],
        {},
    ),
    "stumps": (
        ["src/widefs/stumps/_presort.py", "src/widefs/stumps/_scan.py"],
        ["tests/stumps"],
        {},
    ),
    "univariate_error_counts": (
        # The errors statistic: a block's counts and its permutation null, the nulls' merge.
        ["src/widefs/univariate/_error_counts.py"],
        [
            f"tests/univariate/test_{name}.py"
            for name in (
                "error_counts_block",
                "error_counts_mutants",
                "gnb_label_batch",
                "selector_exact",
                "null",
            )
        ]
        # (the memo's key: what makes two selectors share one computation; out-of-core input)
        + ["tests/utils/test_fit_memo.py", "tests/univariate/test_out_of_core.py"],
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
    "stats_moderated": (
        ["src/widefs/stats/_moderated.py", "src/widefs/_utils/_streaming.py"],
        ["tests/stats"],
        {},
    ),
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
    # checks of test_screen.py (minutes per run) are left to the suite, and so are the two
    # comparisons with the numpy reference on a thousand features (-k): every mutant of a
    # function they call would rerun them.
    "univariate_screen": (
        ["src/widefs/univariate/_screen.py"],
        _SCREEN_MEMORY_TESTS,
        {},
    ),
    "univariate_kinds": (
        ["src/widefs/univariate/_kinds.py"],
        # and the spilled fits: the kept mid-ranks wait in a file of their own
        [*_SCREEN_MEMORY_TESTS, "tests/univariate/test_screen_spill.py"],
        {},
    ),
    "univariate_screen_select": (
        ["src/widefs/univariate/_screen_select.py"],
        _SCREEN_SELECT_TESTS,
        {},
    ),
    "univariate_screen_moderated": (
        ["src/widefs/univariate/_screen_moderated.py"],
        _SCREEN_MEMORY_TESTS,
        {},
    ),
    # The temporary file the out-of-core screen's fits wait in (forced on small matrices).
    "utils_spill": (
        ["src/widefs/_utils/_spill.py"],
        ["tests/univariate/test_screen_spill.py", "tests/univariate/test_screen_spill_ranks.py"],
        {},
    ),
    "univariate_screen_numpy": (
        ["src/widefs/univariate/_screen_numpy.py", "src/widefs/univariate/_shape_table.py"],
        _SCREEN_MEMORY_TESTS,
        {},
    ),
    "univariate_rank_exact": (
        # The exact rank-sum tail that bounds the untied null's p-values from below.
        ["src/widefs/univariate/_rank_exact.py"],
        ["tests/univariate/test_rank_exact.py"],
        {},
    ),
    "univariate_rank_null": (
        ["src/widefs/univariate/_rank_null.py", "src/widefs/univariate/_rank_settle.py"],
        # Its own direct checks (every labelling of 6 + 6, draws replayed, the settled rule
        # against brute force, the compiled untied null against the numpy one): the
        # screen's fits call it too, but take minutes per mutant.
        [
            "tests/univariate/test_rank_null_settled.py",
            "tests/univariate/test_rank_null_exact.py",
            "tests/univariate/test_rank_kernels.py",
        ],
        {},
    ),
    "model_selection_nested": (
        ["src/widefs/model_selection/_nested.py"],
        # (with the study designs' groups and covariates, and the fits on a fold's rows read
        # in place, which _fit_score_fold chooses)
        [
            "tests/model_selection/test_nested.py",
            "tests/model_selection/test_nested_exact.py",
            "tests/model_selection/test_nested_indices.py",
            "tests/model_selection/test_nested_design.py",
            "tests/analysis/test_rows_pipeline.py",
        ],
        {},
    ),
    # The analysis behind ``analyse()`` and ``widefs run``. The colon runs (the module fixture
    # of test_analyse.py, half a minute) and the patients' rules run are left to the suite.
    "analysis": (
        [
            f"src/widefs/analysis/{name}.py"
            for name in (
                "_analyse",
                "_certify",
                "_chance",
                "_compare",
                "_design",
                "_inputs",
                "_linear_svm",
                "_models",
                "_naive_bayes",
                "_pipeline",
                "_result",
                "_spec",
                "_verdict",
            )
        ],
        [
            "tests/analysis",
            "-k",
            "not (comparison_is_a_frame or command_line_reports or rules_hold_out_whole)",
        ],
        {},
    ),
    # search_certificate, its null scores and the pre-screen; the calibration checks (Monte
    # Carlo over null data sets, up to half a minute each) are left to the suite.
    "model_selection_certificate": (
        [
            f"src/widefs/model_selection/{name}.py"
            for name in ("_certificate", "_prescreen", "_null_scores")
        ],
        [
            *(
                f"tests/model_selection/test_{name}.py"
                for name in (
                    "certificate",
                    "certificate_cv",
                    "certificate_design",
                    "certificate_sequential",
                    "certificate_mutants",
                    "prescreen",
                )
            ),
            "-k",
            "not (uniform_on_null or calibrated or by_monte_carlo or uniform_on_noise)",
        ],
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
        ["tests/cli/test_read_mutants.py", *_CLI_TESTS],
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


_TIMEOUT_CONSTANT = 10.0  # seconds; a loaded machine's start-up and import jitter


def _prepare(key: str, timeout_multiplier: float = 5.0) -> Path:
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
        # A mutant that makes a loop endless is stopped (status "timeout") after this many
        # times its tests' unmutated duration plus this many seconds, wall clock.
        f"timeout_multiplier = {float(timeout_multiplier)}\n"
        f"timeout_constant = {float(_TIMEOUT_CONSTANT)}\n"
    )
    pyproject = re.sub(r"(?ms)^\[tool\.mutmut\]\n.*?(?=^\[|\Z)", "", pyproject)
    (work / "pyproject.toml").write_text(pyproject + "\n" + table, encoding="utf-8")
    return work


def _statuses(work: Path) -> dict[str, str]:
    """``{mutant name: status}`` from ``mutmut results --all true``."""
    out = subprocess.run(
        [sys.executable, "-m", "mutmut", "results", "--all", "true"],
        cwd=work,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return {
        name.strip(): status.strip()
        for name, status in (line.rsplit(":", 1) for line in out.splitlines() if ":" in line)
    }


def _score(work: Path, names: set[str] | None = None) -> dict[str, int]:
    counts: dict[str, int] = {}
    for name, status in _statuses(work).items():
        if names is None or name in names:
            counts[status] = counts.get(status, 0) + 1
    return counts


# Run inside a scratch directory: generates the mutants without running a test and prints
# each one's diff (the diff ``mutmut show NAME`` prints) as JSON.
_DIFFS = """
import json
from mutmut.__main__ import copy_also_copy_files, copy_src_dir, create_mutants
from mutmut.__main__ import setup_source_paths, walk_mutatable_files
from mutmut.mutation.data import SourceFileMutationData
from mutmut.mutation.diff_apply import get_diff_for_mutant
from mutmut.mutation.trampoline import set_mutant_under_test
set_mutant_under_test("mutant_generation")
copy_src_dir()
copy_also_copy_files()
setup_source_paths()
create_mutants(1)
diffs = {}
for path in walk_mutatable_files():
    data = SourceFileMutationData(path=path)
    data.load()
    for name in data.exit_code_by_key:
        diffs[name] = get_diff_for_mutant(name, path=data.path)
print(json.dumps(diffs))
"""

# String literals (the messages) are blanked before the diff's tokens are compared.
_STRING = re.compile(r"""[rbfuRBFU]{0,2}("{3}|'{3}|"|')(?:\\.|(?!\1).)*?\1""", re.S)
_TOKEN = re.compile(
    r"<=|>=|==|!=|<|>|\b(?:is|not|in|and|or)\b|\d[\d_]*\.?\d*(?:[eE][-+]?\d+)?|\w+|\S"
)
_COMPARE = {"<", "<=", ">", ">=", "==", "!=", "is", "not", "in"}
_CONDITION = _COMPARE | {"and", "or"}


# A loop's ``for ... in`` is no comparison.
_FOR = re.compile(r"\bfor\b[^:]*?\bin\b")
_NEAR = 4  # a number this many tokens from a comparison operator is compared


def _tokens(lines: list[str]) -> list[str]:
    return _TOKEN.findall(_FOR.sub("for", _STRING.sub("''", "\n".join(lines))))


def _compared_numbers(tokens: list[str]) -> set[str]:
    at = [i for i, t in enumerate(tokens) if t in _COMPARE]
    return {
        t for i, t in enumerate(tokens) if t[0].isdigit() and any(abs(i - j) <= _NEAR for j in at)
    }


def is_comparison_mutant(diff: str) -> bool:
    """Whether a mutant's diff changes a comparison, a condition or a compared constant.

    Examples
    --------
    >>> is_comparison_mutant("-    if n < 2:\\n+    if n <= 2:")
    True
    >>> is_comparison_mutant("-    if n < 2:\\n+    if n < 3:")
    True
    >>> is_comparison_mutant("-    ok = a and b\\n+    ok = a or b")
    True
    >>> is_comparison_mutant("-    raise ValueError('n < 2')\\n+    raise ValueError('XXn < 2XX')")
    False
    >>> is_comparison_mutant("-    return x + 1\\n+    return x - 1")
    False
    >>> is_comparison_mutant("-    m = np.mean(p == y, axis=1)\\n+    m = np.mean(p == y, axis=2)")
    False
    >>> is_comparison_mutant("-    for b in blocks(X[1]):\\n+    for b in blocks(X[2]):")
    False
    """
    lines = diff.splitlines()
    old = _tokens([x[1:] for x in lines if x.startswith("-") and not x.startswith("---")])
    new = _tokens([x[1:] for x in lines if x.startswith("+") and not x.startswith("+++")])
    changed = set((Counter(old) - Counter(new)) + (Counter(new) - Counter(old)))
    if changed & _CONDITION:
        return True
    return bool(changed & (_compared_numbers(old) | _compared_numbers(new)))


def _comparison_mutants(work: Path) -> list[str]:
    out = subprocess.run(
        [sys.executable, "-c", _DIFFS], cwd=work, capture_output=True, text=True, check=True
    ).stdout
    diffs = json.loads(out.strip().splitlines()[-1])
    return sorted(name for name, diff in diffs.items() if is_comparison_mutant(diff))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("modules", nargs="+", choices=[*MODULES, "all"])
    parser.add_argument(
        "--resume",
        action="store_true",
        help="keep the results of an interrupted run (mutmut tests the unchecked mutants; "
        "with --comparisons, the survivors too)",
    )
    parser.add_argument(
        "--workers", type=int, default=1, help="mutants tested at once (default: 1)"
    )
    parser.add_argument(
        "--timeout-multiplier",
        type=float,
        default=5.0,
        help="stop a mutant after this many times its tests' unmutated duration plus 10 s "
        "(counted as a timeout, not killed; default: 5)",
    )
    parser.add_argument(
        "--comparisons",
        action="store_true",
        help="only the mutants that change a comparison, a condition or a compared constant",
    )
    args = parser.parse_args(argv)
    keys = list(MODULES) if "all" in args.modules else args.modules
    for key in keys:
        work = _prepare(key, args.timeout_multiplier)
        if not args.resume:
            shutil.rmtree(work / "mutants", ignore_errors=True)
        env = {**os.environ, **MODULES[key][2]}
        names = _comparison_mutants(work) if args.comparisons else None
        todo = names or []
        if names is not None and args.resume:
            done = _statuses(work)
            todo = [n for n in names if done.get(n) != "killed"]
        if names is not None:
            # mutmut's progress line counts every mutant of the key, run or not.
            print(f"{key}: {len(todo)} of the {len(names)} comparison mutants to run", flush=True)
        if names is None or todo:
            subprocess.run(
                [sys.executable, "-m", "mutmut", "run", "--max-children", str(args.workers), *todo],
                cwd=work,
                env=env,
                check=True,
            )
        counts = _score(work, None if names is None else set(names))
        killed = counts.get("killed", 0)
        total = sum(v for k, v in counts.items() if k not in ("skipped", "not checked"))
        what = f"{key} (comparison mutants)" if names is not None else key
        print(f"{what}: {killed}/{total} killed ({100 * killed / max(total, 1):.1f}%) {counts}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
