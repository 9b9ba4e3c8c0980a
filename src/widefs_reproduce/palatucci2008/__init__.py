"""Reproduce Palatucci & Carlson (2008): Example 4.1, Figures 1-3.

Usage::

    widefs reproduce palatucci2008 --out DIR      # full run: DIR/palatucci2008.md + figures
    widefs reproduce palatucci2008 --render-only --out DIR   # the page from stored results
    widefs reproduce palatucci2008 --quick        # seconds; ./widefs-palatucci2008/

Protocol (Section 5.2): leave-one-out over all examples; in each round the remaining
examples are split into stratified equal halves (the odd one goes to validation), one
Gaussian naive Bayes per feature is trained on one half and its errors counted on the
other, features are selected by the threshold, and a Gaussian naive Bayes on the
selected features, retrained on both halves, tests the held-out example. The random
halves make the result vary with the seed, so every dataset is run with several seeds
and we report mean +- standard deviation over seeds. Each finished task (a data set under
one null, all seeds) is stored as JSON under ``DIR/palatucci2008/tasks/`` and reused while
its key (settings and the library's results on a probe) is unchanged.
"""

from __future__ import annotations

import argparse
import csv
import sys
from dataclasses import dataclass

from widefs_reproduce import _store
from widefs_reproduce._common import add_out_argument, command_line, output_paths, paper_tables
from widefs_reproduce.palatucci2008._figures import write_figures
from widefs_reproduce.palatucci2008._findings import commentary, findings_table, verdict
from widefs_reproduce.palatucci2008._null import DATASETS as NULL_DATASETS
from widefs_reproduce.palatucci2008._null import NULLS, null_section, null_task, sets_task
from widefs_reproduce.palatucci2008._page import example_and_figure1, figure2_table
from widefs_reproduce.palatucci2008._protocol import (
    RULES,
    engine_fingerprint,
    protocol_task,
    synthetic_task,
)

__all__ = ["main"]

PAPER = "palatucci2008"
MICROARRAYS = [
    "colon",
    "leukemia",
    "lymphoma",
    "medulloblastoma_b",
    "medulloblastoma_c",
    "breast_er",
]


@dataclass
class Settings:
    """Sizes of the run (``--quick``: a small pass for the tests)."""

    seeds: list
    datasets: list
    max_features: int | None
    subjects: int
    n_features: int
    n_informative: int
    null_datasets: list
    null_seeds: list
    null_max_features: int | None
    n_permutations: int
    n_full: int


def _settings(quick: bool, n_seeds: int | None) -> Settings:
    seeds = list(range(n_seeds or (2 if quick else 20)))
    if quick:
        return Settings(
            seeds, ["colon"], 500, 2, 5_000, 30, NULL_DATASETS[:1], seeds[:1], 300, 30, 200
        )
    return Settings(
        seeds, MICROARRAYS, None, 13, 80_000, 300, NULL_DATASETS, seeds, None, 100, 1000
    )


def _tasks(s: Settings, task_dir):
    """``(path, key, fn, args)`` of every task, grouped by section."""
    engine = engine_fingerprint()

    def task(name, fn, *args):
        return _store.task(task_dir, name, fn, args, engine=engine)

    protocol = [
        task(f"protocol-{n}", protocol_task, n, s.seeds, s.max_features) for n in s.datasets
    ]
    synthetic = [
        task(f"synthetic-{k + 1:02d}", synthetic_task, k, s.n_features, s.n_informative)
        for k in range(s.subjects)
    ]
    nulls = [
        task(
            f"null-{n}-{null}",
            null_task,
            n,
            null,
            s.null_seeds,
            s.n_permutations,
            s.null_max_features,
        )
        for n in s.null_datasets
        for null in NULLS
    ]
    sets = [task(f"sets-{n}", sets_task, n, s.n_full, s.null_max_features) for n in s.null_datasets]
    return protocol, synthetic, nulls, sets


def _results(groups, render_only: bool, jobs: int, task_dir):
    flat = [t for g in groups for t in g]
    done = _store.results(flat, render_only=render_only, n_jobs=jobs, where=task_dir)
    out, i = [], 0
    for g in groups:
        out.append(done[i : i + len(g)])
        i += len(g)
    return out


_CSV_COLUMNS = [
    *("dataset", "seed", "rule", "accuracy", "median_selected", "empty_rounds"),
    *("median_errors_allowed", "M", "N"),
]


def _write_runs_csv(runs, synthetic, path):
    """One row per data set, seed and rule: what the Figure 2 table summarizes."""
    with path.open("w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(_CSV_COLUMNS)
        for run in runs + synthetic:
            for seed, res in zip(run["seeds"], run["per_seed"], strict=True):
                for rule in RULES:
                    r = res[rule]
                    cells = [r["empty_rounds"], r["median_errors_allowed"], run["M"], run["N"]]
                    acc = round(r["accuracy"], 6)
                    writer.writerow([run["dataset"], seed, rule, acc, r["median_selected"], *cells])


def _header(command, s: Settings, groups) -> list[str]:
    cpu = sum(r["cpu_seconds"] for g in groups for r in g) / 60
    return [
        "# Palatucci & Carlson (2008): chance accuracies and multiplicity-gap selection",
        "",
        f"Command (every table and figure on this page): `{command}` (seeds "
        f"{s.seeds[0]}..{s.seeds[-1]}; {cpu:.0f} CPU-minutes in the stored tasks). Raw results: "
        f"[{PAPER}/runs.csv]({PAPER}/runs.csv) (one row per dataset, seed and rule) and one "
        f"JSON file per task in `{PAPER}/tasks/`, from which `--render-only` rewrites this page "
        "and its figures.",
        "",
    ]


def _parser():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small, fast run (smoke test)")
    parser.add_argument("--seeds", type=int, default=None, help="protocol repetitions per dataset")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    parser.add_argument(
        "--render-only", action="store_true", help="compute nothing: the page from stored tasks"
    )
    parser.add_argument("--fresh", action="store_true", help="discard stored tasks first")
    add_out_argument(parser, PAPER)
    return parser


def main(argv=None) -> int:
    """Run (or resume) the reproduction and write the page; returns the exit status."""
    args = _parser().parse_args(argv)
    if args.render_only and args.fresh:
        raise ValueError("--render-only renders the stored tasks; --fresh would discard them")
    s = _settings(args.quick, args.seeds)
    page, data_dir = output_paths(PAPER, args.out)
    task_dir = data_dir / "tasks"
    task_dir.mkdir(exist_ok=True)
    if args.fresh:
        for f in task_dir.glob("*.json"):
            f.unlink()
    groups = _results(_tasks(s, task_dir), args.render_only, args.jobs, task_dir)
    runs, synthetic, nulls, sets = groups
    _write_runs_csv(runs, synthetic, data_dir / "runs.csv")
    write_figures(next(r for r in runs if r["dataset"] == "colon"), synthetic, data_dir)
    command = command_line(PAPER, argv if argv is not None else sys.argv[1:])
    paper = paper_tables(PAPER)["tables"]
    lines = _header(command, s, groups) + example_and_figure1(paper)
    lines[2:2] = verdict(paper, runs, synthetic)
    lines += figure2_table(runs, synthetic, len(s.seeds), args.quick)
    lines += [
        "## Figure 3: accuracy against errors allowed",
        "",
        "Drawn from runs of the Figure 2 table (colon: seed 0; synthetic: subject 1): the same "
        "protocol deviations, with the same effects.",
        "",
        f"![Figure 3, colon]({PAPER}/figure3_colon.png)",
        f"![Figure 3, synthetic subject 1]({PAPER}/figure3_synthetic1.png)",
        "",
    ]
    lines += findings_table(paper, runs, synthetic)
    lines += null_section(nulls, sets, n_permutations=s.n_permutations, n_full=s.n_full)
    page.write_text("\n".join(lines) + commentary(runs, synthetic, nulls, s.n_permutations))
    print(f"wrote {page}")
    return 0
