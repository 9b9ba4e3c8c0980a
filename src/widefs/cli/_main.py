"""``widefs`` command line: ``widefs run [DATA]`` writes a report on a dataset."""

from __future__ import annotations

import argparse
import importlib
import sys
import time
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.table import Table as RichTable

import widefs
from widefs.cli._chance import chance_sections
from widefs.cli._compare import comparison_section
from widefs.cli._data import LoadedData, load_cli_data
from widefs.cli._methods import METHOD_GROUPS, candidates
from widefs.cli._models import cefs_sections, rules_sections, scm_sections
from widefs.cli._report import Report, Section, Table
from widefs.datasets import list_datasets
from widefs.exceptions import DataError
from widefs.experiments import REPRODUCTIONS

__all__ = ["main"]

DEFAULT_DATA = "colon"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="widefs",
        description="Feature selection for wide data that accounts for how much searching was done.",
    )
    parser.add_argument("--version", action="version", version=f"widefs {widefs.__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="analyse a dataset and write a report")
    run.add_argument(
        "data",
        nargs="?",
        default=DEFAULT_DATA,
        help=f"CSV/TSV file (features in columns, one target column) or a bundled dataset name (default: {DEFAULT_DATA})",
    )
    run.add_argument("--target", default="class", help="name of the target column (default: class)")
    run.add_argument(
        "--out",
        type=Path,
        default=Path("widefs-report"),
        help="output directory (default: ./widefs-report)",
    )
    run.add_argument(
        "--impute", action="store_true", help="replace NaN/inf values by each column's median"
    )
    run.add_argument("--seed", type=int, default=0, help="random seed of every split (default: 0)")
    run.add_argument(
        "--methods",
        default=",".join(METHOD_GROUPS),
        help=f"comma-separated report parts among {', '.join(METHOD_GROUPS)} (default: all)",
    )
    run.add_argument("--quick", action="store_true", help="a fast pass: fewer folds and repeats")
    run.add_argument(
        "--p-error",
        default="auto",
        metavar="auto|uniform|RATE",
        help="chance error rate of the analytic null: auto (majority-class error of the validation "
        "half, default), uniform (the paper's 1 - 1/classes) or a number in (0, 1)",
    )
    run.add_argument(
        "--null",
        default="auto",
        choices=["auto", "analytic", "permutation"],
        help="which null the chance thresholds use (both are reported; auto: analytic)",
    )
    run.add_argument(
        "--permutations",
        type=int,
        default=1000,
        help="label permutations of the permutation null (default: 1000)",
    )
    rep = sub.add_parser(
        "reproduce",
        help="run a paper's reproduction and write its page to docs/results/",
        description="Run one of the papers' experiments; options after PAPER go to it (e.g. --quick).",
    )
    rep.add_argument("paper", choices=sorted(REPRODUCTIONS), help="which paper")
    rep.add_argument(
        "args", nargs=argparse.REMAINDER, help="options of the reproduction, e.g. --quick"
    )
    sub.add_parser("datasets", help="list the bundled datasets")
    return parser


def _p_error_option(value: str):
    """``--p-error``: "auto", "uniform" or a rate in (0, 1)."""
    if value in ("auto", "uniform"):
        return value
    try:
        rate = float(value)
    except ValueError:
        rate = float("nan")
    if not 0 < rate < 1:
        raise DataError(f"--p-error must be auto, uniform or a number in (0, 1), got {value!r}")
    return rate


def _summary(data: LoadedData) -> Section:
    import numpy as np

    classes, counts = np.unique(data.y, return_counts=True)
    rows = [
        ("source", data.source),
        ("samples", str(data.X.shape[0])),
        ("features", str(data.X.shape[1])),
        ("classes", ", ".join(f"{c} ({k})" for c, k in zip(classes, counts, strict=True))),
    ]
    if data.imputed_columns:
        rows.append(("imputed columns", f"{len(data.imputed_columns)} (median)"))
    section = Section("Dataset")
    section.add(Table(["", ""], rows, title=f"Dataset: {data.name}"))
    return section


def _show(console: Console, section: Section) -> None:
    for block in section.blocks:
        renderable = block.rich() if hasattr(block, "rich") else None
        if renderable is not None:
            console.print(renderable)


def _run(args, console: Console) -> int:
    t0 = time.perf_counter()
    groups = [g.strip() for g in args.methods.split(",") if g.strip()]
    unknown = sorted(set(groups) - set(METHOD_GROUPS))
    if unknown or not groups:
        raise DataError(
            f"unknown --methods {', '.join(unknown) or '(none)'}; choose among {', '.join(METHOD_GROUPS)}"
        )
    p_error = _p_error_option(args.p_error)
    if args.permutations < 1:
        raise DataError(f"--permutations must be a positive integer, got {args.permutations}")
    data = load_cli_data(args.data, target=args.target, impute=args.impute)
    report = Report(
        title=f"widefs report: {data.name}",
        intro=(
            f"Generated by `widefs run` (widefs {widefs.__version__}, seed {args.seed}). Every accuracy "
            "below was measured with feature selection inside the evaluation folds."
        ),
    )
    _show(console, report.add(_summary(data)))
    steps = []
    if "chance" in groups:

        def chance(data, seed, progress):
            return chance_sections(
                data,
                seed=seed,
                progress=progress,
                p_error=p_error,
                null=args.null,
                n_permutations=args.permutations,
                quick=args.quick,
            )

        steps.append(("chance analysis and discriminative selection", chance))
    if "scm" in groups:
        steps.append(("Set Covering Machines", scm_sections))
    if "rules" in groups:
        steps.append(("CN2-POE rules", rules_sections))
    if "cefs" in groups:
        steps.append(("class-specific ensemble feature selection", cefs_sections))
    if "compare" in groups:
        folds, repeats = (3, 1) if args.quick else (5, 2)

        def compare(data, seed, progress):
            return comparison_section(
                data,
                candidates(groups, quick=args.quick),
                seed=seed,
                folds=folds,
                repeats=repeats,
                progress=progress,
            )

        steps.append(("method comparison", compare))
    with Progress(
        SpinnerColumn(),
        TextColumn("{task.description}"),
        BarColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=True,
    ) as progress:
        task = progress.add_task("analysing", total=len(steps))
        for description, build in steps:
            progress.update(task, description=description)
            for section in build(data, seed=args.seed, progress=progress):
                report.add(section)
                _show(progress.console, section)
            progress.advance(task)
    written = report.write(args.out)
    console.print(
        f"Report written to [bold]{args.out / 'report.html'}[/bold] and report.md "
        f"({len(written)} files, {time.perf_counter() - t0:.1f} s)."
    )
    return 0


def _datasets(console: Console) -> int:
    table = RichTable(title="Bundled datasets")
    for col in ("name", "samples", "features", "classes", "group"):
        table.add_column(col)
    for name, row in list_datasets().iterrows():
        table.add_row(name, str(row.n_samples), str(row.n_features), str(row.n_classes), row.group)
    console.print(table)
    return 0


def main(argv=None) -> int:
    """Entry point of the ``widefs`` console script; returns the exit status."""
    args = _parser().parse_args(argv)
    console = Console()
    try:
        if args.command == "run":
            return _run(args, console)
        if args.command == "reproduce":
            module = importlib.import_module(REPRODUCTIONS[args.paper])
            return module.main(args.args)
        return _datasets(console)
    except DataError as exc:
        # One line naming the problem, non-zero status, nothing written.
        print(f"widefs: error: {exc}", file=sys.stderr)
        return 2
