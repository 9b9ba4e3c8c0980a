"""``widefs`` command line: ``widefs run [DATA]`` writes a report on a dataset.

Only the standard library and light widefs modules are imported here, so ``widefs --help``
answers before numpy, pandas, scikit-learn, numba or matplotlib load; each command imports
what it uses when it runs.

Every failure the user can cause ends the same way: one line ``widefs: error: ...`` on
stderr and exit status 2 (usage errors included), before any analysis starts; Ctrl-C ends
with one line and status 130.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
import warnings
from pathlib import Path
from typing import TYPE_CHECKING

import widefs
from widefs.cli import _cite, _reproduce
from widefs.cli._markup import visible
from widefs.cli._methods import METHOD_GROUPS
from widefs.exceptions import DataError

if TYPE_CHECKING:  # imported when a command runs, not on `widefs --help`
    from rich.console import Console

    from widefs.cli._data import LoadedData
    from widefs.cli._report import Section

__all__ = ["main"]

DEFAULT_DATA = "colon"
MAX_SEED = 2**32 - 1  # numpy's RandomState accepts seeds in [0, 2**32 - 1]
# Label permutations of the search certificates: p-values down to 1/30 while every method's
# whole search is re-run that often.
DEFAULT_PERMUTATIONS = 29
QUICK_PERMUTATIONS = 9
# At most this many label permutations for the chance screen's permutation null with --quick
# (the default, widefs.cli._chance.default_permutations, shrinks with the number of features).
QUICK_NULL_PERMUTATIONS = 100


class _UsageError(Exception):
    """A bad command line, reported in one line like a data error."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise _UsageError(f"{message} (see: {self.prog} --help)")


def _seed(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be an integer, got {text!r}") from None
    if not 0 <= value <= MAX_SEED:
        raise argparse.ArgumentTypeError(f"must be between 0 and {MAX_SEED}, got {value}")
    return value


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
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
        help="a data file (CSV/TSV/text with the delimiter detected, gzip, parquet, feather, xlsx; "
        "features in columns, one target column) or a bundled dataset name "
        f"(default: {DEFAULT_DATA})",
    )
    run.add_argument(
        "--target",
        default=None,
        help="name of the target column (the label row with --transpose; default: class)",
    )
    run.add_argument(
        "--transpose",
        action="store_true",
        help="features are in rows (e.g. genes x samples): the first column names them and "
        "the row named by --target holds the labels",
    )
    run.add_argument(
        "--out",
        type=Path,
        default=Path("widefs-report"),
        help="output directory (default: ./widefs-report); a report never replaces its input",
    )
    run.add_argument(
        "--impute", action="store_true", help="replace NaN/inf values by each column's median"
    )
    run.add_argument(
        "--seed", type=_seed, default=0, help="random seed of every split (default: 0)"
    )
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
        default=None,
        help="label permutations of each method's search certificate, drawn once from --seed "
        f"(default: {DEFAULT_PERMUTATIONS}; {QUICK_PERMUTATIONS} with --quick)",
    )
    run.add_argument(
        "--null-permutations",
        type=int,
        default=None,
        help="label permutations of the chance screen's permutation null (--null), drawn from "
        "--seed (default: 1000, fewer above 20,000 features so that features x permutations "
        f"stays near 2e7, at least 100; at most {QUICK_NULL_PERMUTATIONS} with --quick)",
    )
    run.add_argument(
        "--jobs",
        type=_jobs,
        default=1,
        help="worker processes for the method comparison's folds, the certificates' "
        "permutations and the chance screen's feature blocks (default: 1; -1: every core); "
        "the report is identical for any value",
    )
    rep = sub.add_parser(
        "reproduce",
        help="run a paper's reproduction; writes PAPER.md and its data to --out DIR",
        description="Run one of the papers' experiments; options after PAPER go to it: --quick "
        "(a fast pass), --out DIR (default: a new folder ./widefs-PAPER; the repository's "
        "docs/results pages are made with --out docs/results), and the paper's own options "
        "(widefs reproduce PAPER --help).",
    )
    rep.add_argument("paper", choices=_reproduce.INSTALLED, help="which paper")
    rep.add_argument(
        "args", nargs=argparse.REMAINDER, help="options of the reproduction, e.g. --quick"
    )
    sub.add_parser("datasets", help="list the bundled datasets")
    _cite.add_parser(sub)
    return parser


# The report step after which each group's search certificates are shown.
STEP_GROUPS = {
    "chance analysis and discriminative selection": "chance",
    "Set Covering Machines": "scm",
    "CN2-POE rules": "rules",
    "class-specific ensemble feature selection": "cefs",
}


def _jobs(text: str) -> int:
    """``--jobs``: a positive integer, or -1 for every core (joblib's convention)."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1 and value != -1:
        raise argparse.ArgumentTypeError(f"must be a positive integer or -1, got {text!r}")
    return value


def _method_groups(text: str) -> list[str]:
    groups = [g.strip() for g in text.split(",") if g.strip()]
    unknown = sorted(set(groups) - set(METHOD_GROUPS))
    if unknown or not groups:
        raise DataError(
            f"unknown --methods {', '.join(unknown) or '(none)'}; choose among {', '.join(METHOD_GROUPS)}"
        )
    return groups


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

    from widefs.cli._report import Note, Section, Table

    classes, counts = np.unique(data.y, return_counts=True)
    rows = [
        ("source", data.source),
        ("target column", data.target),
        ("samples", str(data.X.shape[0])),
        ("features", str(data.X.shape[1])),
        ("classes", ", ".join(f"{c} ({k})" for c, k in zip(classes, counts, strict=True))),
    ]
    if data.imputed_columns:
        rows.append(("imputed columns", f"{len(data.imputed_columns)} (median)"))
    section = Section("Dataset")
    section.add(Table(["", ""], rows, title=f"Dataset: {data.name}"))
    for note in data.notes:
        section.add(Note(note))
    return section


def _show(console: Console, section: Section) -> None:
    for block in section.blocks:
        renderable = block.rich() if hasattr(block, "rich") else None
        if renderable is not None:
            console.print(renderable)


def _run(args, console: Console) -> int:
    console.print(f"widefs run: {visible(args.data)}", markup=False, highlight=False)
    from rich.text import Text

    from widefs.cli._data import load_cli_data
    from widefs.cli._report import check_output_dir

    t0 = time.perf_counter()
    groups = _method_groups(args.methods)
    p_error = _p_error_option(args.p_error)
    if args.permutations is None:
        args.permutations = QUICK_PERMUTATIONS if args.quick else DEFAULT_PERMUTATIONS
    for option, value in (
        ("--permutations", args.permutations),
        ("--null-permutations", args.null_permutations),
    ):
        if value is not None and value < 1:
            raise DataError(f"{option} must be a positive integer, got {value}")
    data_path = Path(args.data)
    inputs = [data_path] if data_path.is_file() else []
    # Checks that can fail run before any work: the options, the output place, then the data.
    check_output_dir(args.out, inputs)
    with warnings.catch_warnings(record=True) as caught:
        with console.status(f"reading {visible(args.data)}", spinner="dots"):
            data = load_cli_data(
                args.data, target=args.target, impute=args.impute, transpose=args.transpose
            )
        report = _analyse(args, data, groups, p_error, console)
    section = _warnings_section(caught)
    if section is not None:
        _show(console, report.add(section))
    written = report.write(args.out, inputs=inputs)
    console.print(
        Text.assemble(
            "Report written to ",
            (visible(str(args.out / "report.html")), "bold"),
            f" and report.md ({len(written)} files, {time.perf_counter() - t0:.1f} s).",
        )
    )
    return 0


def _null_permutations(args, n_features: int) -> int:
    """The chance screen's permutation count: the option, else the size-aware default."""
    from widefs.cli._chance import default_permutations

    if args.null_permutations is not None:
        return args.null_permutations
    n = default_permutations(n_features)
    return min(n, QUICK_NULL_PERMUTATIONS) if args.quick else n


def _how_to_read(groups) -> Section:
    """The report's reading guide: what each kind of number means and what to compare it with."""
    from widefs.cli._markup import Markup
    from widefs.cli._report import Section, Text

    section = Section("How to read this report")
    section.add(
        Text(
            Markup(
                "- **Accuracy** (%) is the share of examples classified correctly on data that "
                "neither selected the features nor trained the classifier. Compare it with the "
                "**majority-class** accuracy (always predicting the most frequent class), "
                "stated in each section: a method is useful only above it.\n"
                "- **Chance level**: with thousands of features, the best of many useless "
                "features looks good by luck. The chance analysis says how good; a feature's "
                "accuracy means something only beyond it.\n"
                "- **95% intervals** show how much an accuracy could move with other samples. "
                "Wide intervals (few samples, few folds) are flagged; methods whose intervals "
                "overlap cannot be told apart on these data.\n"
                "- **Fallback** rows: when a threshold keeps no feature, the classifier predicts "
                "the class proportions of its training data; such rows are marked, with the "
                "reason.\n"
                "- **Risk bounds** are guarantees: the true error is below the bound with 95% "
                "probability. A bound at or above the majority-class error guarantees nothing "
                "useful and is marked **vacuous**.\n"
                "- **Long tables** show their top rows; every feature, in the same order and "
                "with the same column names, is in `features.csv` (and, in the HTML report, "
                "under the table's full list)."
            )
        )
    )
    return section


def _warnings_section(caught) -> Section | None:
    """Warnings raised by libraries during the analysis, once each with a count, no paths."""
    if not caught:
        return None
    from widefs.cli._markup import Markup
    from widefs.cli._report import Note, Section, Table

    counts: dict[tuple[str, str], int] = {}
    examples: dict[tuple[str, str], str] = {}
    for w in caught:
        text = str(w.message).strip().splitlines()[0] if str(w.message).strip() else ""
        key = (w.category.__name__, re.sub(r"\d+", "#", text))
        counts[key] = counts.get(key, 0) + 1
        examples.setdefault(key, text)
    rows = [(cat, examples[key], n) for key, n in counts.items() for cat in [key[0]]]
    section = Section("Warnings from libraries")
    section.add(
        Note(
            Markup(
                "{n} warnings were raised by the libraries during the analysis ({k} kinds); each "
                "kind is listed once with an example and its count. They did not stop the analysis.",
                n=len(caught),
                k=len(counts),
            )
        )
    )
    section.add(Table(["warning", "example", "times"], rows, title="Library warnings"))
    return section


def _analyse(args, data: LoadedData, groups, p_error, console: Console):
    """Run every chosen part on ``data`` and return the report (not yet written)."""
    from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    from widefs.cli._certificates import CertificateRun
    from widefs.cli._chance import chance_sections
    from widefs.cli._compare import comparison_section
    from widefs.cli._markup import Markup
    from widefs.cli._methods import candidates
    from widefs.cli._models import cefs_sections, rules_sections, scm_sections
    from widefs.cli._report import Report
    from widefs.plotting import literal_text

    report = Report(
        title=f"widefs report: {data.name}",
        intro=Markup(
            "Generated by `widefs run` (widefs {version}, seed {seed}). Every accuracy below was "
            "measured with feature selection inside the evaluation folds.",
            version=widefs.__version__,
            seed=args.seed,
        ),
    )
    _show(console, report.add(_summary(data)))
    report.add(_how_to_read(groups))
    certificates = CertificateRun(
        data, seed=args.seed, n_permutations=args.permutations, n_jobs=args.jobs
    )
    steps = []
    if "chance" in groups:

        def chance(data, seed, progress):
            return chance_sections(
                data,
                seed=seed,
                progress=progress,
                p_error=p_error,
                null=args.null,
                n_permutations=_null_permutations(args, data.X.shape[1]),
                quick=args.quick,
                n_jobs=args.jobs,
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
                candidates(groups, quick=args.quick, n_features=data.X.shape[1]),
                seed=seed,
                folds=folds,
                repeats=repeats,
                progress=progress,
                search_pvalues=certificates.pvalue_column(groups, progress),
                n_jobs=args.jobs,
            )

        steps.append(("method comparison", compare))
    with (
        literal_text(),
        Progress(
            SpinnerColumn(),
            TextColumn("{task.description}", markup=False),
            BarColumn(),
            TimeElapsedColumn(),
            console=console,
            transient=True,
        ) as progress,
    ):
        task = progress.add_task("analysing", total=len(steps))
        for description, build in steps:
            progress.update(task, description=description)
            for section in build(data, seed=args.seed, progress=progress):
                report.add(section)
                _show(progress.console, section)
            group = STEP_GROUPS.get(description)
            for section in certificates.sections(group, progress) if group else ():
                report.add(section)
                _show(progress.console, section)
            progress.advance(task)
        report.add(_citing(groups))
    return report


def _citing(groups) -> Section:
    """The report's last section: CITATION.bib with widefs and the papers of the methods run."""
    from widefs.cli._markup import Markup
    from widefs.cli._report import Section, Text

    section = Section("Citing")
    section.add(
        Text(
            Markup(
                "`CITATION.bib` holds the BibTeX of widefs and of the papers behind the methods "
                "of this report; `widefs cite --methods {methods}` prints the same entries.",
                methods=",".join(groups),
            )
        )
    )
    section.files["CITATION.bib"] = _cite.bibtex(groups)
    return section


def _datasets(console: Console) -> int:
    from rich.table import Table as RichTable
    from rich.text import Text

    from widefs.datasets import list_datasets

    table = RichTable(title="Bundled datasets")
    for col in ("name", "samples", "features", "classes", "group"):
        table.add_column(col)
    for name, row in list_datasets().iterrows():
        cells = (name, row.n_samples, row.n_features, row.n_classes, row.group)
        table.add_row(*(Text(visible(str(c))) for c in cells))
    console.print(table)
    return 0


def main(argv=None) -> int:
    """Entry point of the ``widefs`` console script; returns the exit status.

    Commands: ``run [DATA]`` writes a report, ``reproduce PAPER`` re-runs a paper's
    experiment, ``datasets`` lists the bundled datasets, ``cite`` prints BibTeX.

    Parameters
    ----------
    argv : sequence of str, optional
        The arguments after the program name; ``sys.argv[1:]`` when None.

    Returns
    -------
    int
        0 on success, 2 after a one-line ``widefs: error: ...`` on stderr (bad arguments or
        unusable data, detected before any analysis) and 130 on Ctrl-C.

    See Also
    --------
    widefs.datasets.list_datasets : What ``widefs datasets`` shows.
    widefs.model_selection.nested_evaluate : The leakage-free evaluation behind the report.

    Examples
    --------
    >>> status = main(["cite", "--methods", "chance"])  # doctest: +ELLIPSIS
    @misc{widefs,
      author  = {{widefs developers}},
    ...
    @inproceedings{palatucci2008chance,
      author    = {Palatucci, Mark and Carlson, Andrew},
    ...
    >>> status
    0
    >>> main(["cite", "--methods", "bogus"])  # one line on stderr, nothing else
    2
    """
    try:
        args = _parser().parse_args(argv)
        # With colorama installed, numba colours the message of every overload its type
        # inference tries and rejects; the command line never shows them (a first run
        # compiles ~1% fewer instructions). Only before numba is first imported; kept if set.
        os.environ.setdefault("NUMBA_DISABLE_ERROR_MESSAGE_HIGHLIGHTING", "1")
        from rich.console import Console

        console = Console()
        if args.command == "run":
            return _run(args, console)
        if args.command == "reproduce":
            return _reproduce.run(args.paper, args.args)
        if args.command == "cite":
            return _cite.run(args)
        return _datasets(console)
    except (DataError, _UsageError) as exc:
        # One line naming the problem, non-zero status, nothing written.
        print(f"widefs: error: {visible(str(exc))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("widefs: interrupted", file=sys.stderr)
        return 130
