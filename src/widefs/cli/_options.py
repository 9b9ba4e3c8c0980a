"""The command line's options: the parser and the checks of the values given.

Only the standard library and light widefs modules are imported here, so ``widefs --help``
answers before numpy, pandas, scikit-learn, numba or matplotlib load.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import widefs
from widefs.analysis import METHODS as METHOD_GROUPS
from widefs.analysis import QUICK_NULL_PERMUTATIONS, certificate_permutations
from widefs.cli import _cite, _reproduce
from widefs.exceptions import DataError

__all__ = [
    "DEFAULT_PERMUTATIONS",
    "QUICK_PERMUTATIONS",
    "UsageError",
    "check_options",
    "data_options",
    "null_permutations",
    "parser",
]

DEFAULT_DATA = "colon"
MAX_SEED = 2**32 - 1  # numpy's RandomState accepts seeds in [0, 2**32 - 1]
# The analysis's defaults, stated in --help.
DEFAULT_PERMUTATIONS = certificate_permutations(quick=False)
QUICK_PERMUTATIONS = certificate_permutations(quick=True)


class UsageError(Exception):
    """A bad command line, reported in one line like a data error."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise UsageError(f"{message} (see: {self.prog} --help)")


def _seed(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be an integer, got {text!r}") from None
    if not 0 <= value <= MAX_SEED:
        raise argparse.ArgumentTypeError(f"must be between 0 and {MAX_SEED}, got {value}")
    return value


def parser() -> argparse.ArgumentParser:
    main_parser = _Parser(
        prog="widefs",
        description="Feature selection for wide data that accounts for how much searching was done.",
    )
    main_parser.add_argument("--version", action="version", version=f"widefs {widefs.__version__}")
    sub = main_parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="analyse a dataset and write a report")
    _data_arguments(run)
    _analysis_arguments(run)
    rep = sub.add_parser(
        "reproduce",
        help="run a paper's reproduction; writes PAPER.md and its data to --out DIR",
        description="Run one of the papers' experiments; options after PAPER go to it: --quick "
        "(a fast pass), --out DIR (default: a new folder ./widefs-PAPER; the repository's "
        "docs/results pages are made with --out docs/results), and the paper's own options "
        "(widefs reproduce PAPER --help).",
    )
    paper = rep.add_argument("paper", help="which paper")
    # Set after add_argument, which would list the choices (a scan of every installed
    # package's entry points) for any command; help and parsing read them where needed.
    paper.choices = _reproduce.INSTALLED
    rep.add_argument(
        "args", nargs=argparse.REMAINDER, help="options of the reproduction, e.g. --quick"
    )
    sub.add_parser("datasets", help="list the bundled datasets")
    _cite.add_parser(sub)
    return main_parser


def _data_arguments(run: argparse.ArgumentParser) -> None:
    """``widefs run``'s options on what to read and where to write."""
    run.add_argument(
        "data",
        nargs="?",
        default=DEFAULT_DATA,
        help="a data file (CSV/TSV/text with the delimiter detected, gzip, bz2, xz, parquet, "
        "feather, xlsx, AnnData .h5ad; "
        "features in columns, one target column), a zarr store of presence/absence data "
        "(arrays X, class and optionally feature_names; only the SCMs run) or a bundled dataset name "
        f"(default: {DEFAULT_DATA})",
    )
    run.add_argument(
        "--target",
        default=None,
        help="name of the target column (the label row with --transpose, the labels' column "
        "with --labels, the obs column of an .h5ad file; for a GEO series matrix a sample "
        "characteristic such as 'disease state', or title or source_name; default: class)",
    )
    run.add_argument(
        "--transpose",
        action="store_true",
        help="features are in rows (e.g. genes x samples): the first column names them and "
        "the row named by --target holds the labels",
    )
    run.add_argument(
        "--labels",
        metavar="FILE",
        default=None,
        help="the labels in a file of their own (a sample sheet): a table with a column of "
        "sample ids (any column; case and R's X prefix forgiven, with a note) and the classes in "
        "the column --target (or the second of two); joined to the data by sample id, samples "
        "in rows or in columns; its other columns never become features",
    )
    run.add_argument(
        "--out",
        type=Path,
        default=Path("widefs-report"),
        help="output directory (default: ./widefs-report); a report never replaces its input, "
        "and replaces the files of an earlier report there",
    )
    run.add_argument(
        "--impute",
        action="store_true",
        help="replace missing (empty, NA, null, #N/A, ...) and infinite values by each "
        "column's median",
    )
    run.add_argument(
        "--max-memory",
        metavar="SIZE",
        default=None,
        help="memory the data may take, e.g. 8G (default: what the machine, its address-space "
        "limit and its container leave free): a file whose numbers, estimated from its shape "
        "before it is read at 4 copies of the matrix plus the names, would need more is refused. "
        "It does not limit the process: the analysis adds its own working memory (about 0.5 GB, "
        "more on wide data: a long run prints its estimate); ulimit -v bounds the process",
    )
    _reading_arguments(run)


def _reading_arguments(run: argparse.ArgumentParser) -> None:
    """``widefs run``'s options on which parts of a file are features."""
    run.add_argument(
        "--layer",
        metavar="NAME",
        default=None,
        help='for an AnnData .h5ad file (pip install "widefs[anndata]"): the layer to analyse '
        "instead of X; the labels are the obs column --target, the features var_names",
    )
    run.add_argument(
        "--exclude",
        metavar="COL[,COL...]",
        default=None,
        help="columns that are not features (e.g. age,batch,os_time): left out of the analysis "
        "(rows, for a file with its features in rows)",
    )
    run.add_argument(
        "--counts",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="read the values as counts (e.g. RNA-seq reads) or not (--no-counts); default: "
        "counts when every value is a non-negative integer, with zeros, and the largest is at "
        "least 1000; the report says which",
    )
    _design_arguments(run)


def data_options(args) -> dict:
    """The reading options passed to :func:`~widefs.cli.io.load_cli_data` as keywords."""
    return dict(
        layer=args.layer,
        exclude=args.exclude,
        counts=args.counts,
        covariates=args.covariates,
        groups=args.groups,
    )


def _design_arguments(run: argparse.ArgumentParser) -> None:
    """``widefs run``'s options on the study design (columns of the --labels sample sheet)."""
    run.add_argument(
        "--covariates",
        metavar="COL[,COL...]",
        default=None,
        help="columns of the sample sheet (--labels) to adjust for, e.g. age,batch,sex: a "
        "column of numbers is a number (a linear effect), any other column (or COL:cat) a set "
        "of categories; the class-difference screen puts them in its linear model, and the "
        "report says what each method did with them",
    )
    run.add_argument(
        "--groups",
        metavar="COL",
        default=None,
        help="the sample sheet's column of subjects, pairs or patients: samples of a group are "
        "not independent; splits keep each group on one side, permutations exchange labels "
        "within groups (pairs) or whole groups (repeated samples of a patient)",
    )


def _analysis_arguments(run: argparse.ArgumentParser) -> None:
    """``widefs run``'s options on what to compute."""
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
        help="which null the chance thresholds use (both are reported; auto: the analytic null "
        "on balanced classes, the label-permutation null on imbalanced ones, where the analytic "
        "one is only a bound)",
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
        "permutations and the chance screen's feature blocks, and BLAS threads (default: 1; "
        "-1: every core); the report is identical for any value",
    )


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


def check_options(args) -> tuple[list[str], object, int | None]:
    """The run's options that can be wrong: (method groups, --p-error, --max-memory bytes)."""
    from widefs.cli.io import parse_size

    groups = _method_groups(args.methods)
    p_error = _p_error_option(args.p_error)
    if args.groups and args.null == "analytic":
        raise DataError("--null analytic assumes independent samples; with --groups use auto")
    if args.permutations is None:
        args.permutations = QUICK_PERMUTATIONS if args.quick else DEFAULT_PERMUTATIONS
    for option, value in (
        ("--permutations", args.permutations),
        ("--null-permutations", args.null_permutations),
    ):
        if value is not None and value < 1:
            raise DataError(f"{option} must be a positive integer, got {value}")
    max_memory = None if args.max_memory is None else parse_size(args.max_memory)
    return groups, p_error, max_memory


def null_permutations(args, n_features: int) -> int:
    """The chance screen's permutation count: the option, else the analysis's default."""
    from widefs.analysis import null_permutations as default

    if args.null_permutations is not None:
        return args.null_permutations
    return default(n_features, args.quick)
