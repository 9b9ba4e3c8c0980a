"""Reproduce Tables 7-10 of Soares (2010): class-specific ensemble feature selection.

Usage::

    widefs reproduce soares2010 --out DIR      # full run: DIR/soares2010.md, DIR/soares2010/
    widefs reproduce soares2010 --render-only --out DIR   # the page from stored results
    widefs reproduce soares2010 --quick        # seconds; ./widefs-soares2010/

Protocol (Soares 2010, Sections 5.2.1-5.2.5): per dataset, 15 random train/test splits
with the training sizes of Table 6, training sets balanced across classes (arrhythmia:
111/111/13), the test set is the rest. Preprocessing is fitted on the training part:
continuous features are divided by their maximum absolute value (lymphoma: standardized,
as the dissertation did); missing values are imputed with the mean (continuous) or the
most frequent value (nominal; the dissertation says "median") for credit and
arrhythmia, and kept as their own category for breast cancer and voting ("left as
is"). kNN uses Euclidean distance on continuous and 0/1 mismatch on nominal features,
vote ties to the nearest neighbour's class, k tuned by leave-one-out on all features
from {1..10, 15, 25, n/4, n/2, 3n/4} for the overall model and from {1..10} for the
class-specific members. Naive Bayes is categorical (Laplace) on nominal and Gaussian on
continuous features. Searches: SBS and SFS stopping when the leave-one-out score stops
improving (ties to fewer features), and the GA with population 20, 40 generations,
crossover 0.6, mutation 0.001, elitism 0.8 (colon and lymphoma: population 40, elitism
0.9). Reported: mean test accuracy without selection, with traditional (overall)
selection, and with CEFS (unanimous members, else the overall-subset model). Each
dataset / method pair (all its splits) and each probe is one task stored as JSON under
``DIR/soares2010/tasks/``.
"""

from __future__ import annotations

import argparse
import sys

from widefs_reproduce import _store
from widefs_reproduce._common import add_out_argument, command_line, output_paths
from widefs_reproduce.soares2010._data import METHODS, PAPER_NAME
from widefs_reproduce.soares2010._page import APPENDIX, render_appendix, render_page
from widefs_reproduce.soares2010._probes import coding_task, scaling_task
from widefs_reproduce.soares2010._runs import engine_fingerprint, from_stored, pair_task

__all__ = ["main"]

SMALL = ["breast cancer", "wine", "credit approval", "congressional voting"]
BREAST_KNN = ["kNN/SBS", "kNN/SFS", "kNN/GA"]


def _parser():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="tiny run for the test suite")
    parser.add_argument("--splits", type=int, default=None, help="splits per dataset (15)")
    parser.add_argument("--datasets", nargs="*", default=None)
    parser.add_argument("--methods", nargs="*", default=None)
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    parser.add_argument(
        "--render-only", action="store_true", help="compute nothing: the page from stored tasks"
    )
    add_out_argument(parser, PAPER_NAME)
    return parser


def _slug(text) -> str:
    return text.replace(" ", "_").replace("/", "-").replace("(", "").replace(")", "")


def _tasks(args, task_dir):
    datasets, methods = args.datasets, args.methods
    if args.quick:
        datasets = datasets or ["breast cancer", "wine", "credit approval", "colon cancer"]
        methods = methods or ["NB/SBS", "kNN/SFS", "kNN/GA"]
    engine = engine_fingerprint()

    def task(file, fn, *a):
        return (
            task_dir / f"{file}.json",
            _store.key(task=fn.__name__, args=a, engine=engine),
            fn,
            a,
        )

    pairs = [
        (name, method)
        for method, names in METHODS.items()
        if not methods or method in methods
        for name in names
        if not datasets or name in datasets
    ]
    tasks = {
        "pairs": [
            task(f"pair-{_slug(n)}-{_slug(m)}", pair_task, n, m, args.splits, args.quick)
            for n, m in pairs
        ],
        "scaling": [
            task(f"scaling-{_slug(n)}", scaling_task, n, args.splits)
            for n in SMALL
            if datasets is None or n in datasets
        ],
        "coding": [
            task(f"coding-breast-{_slug(m)}", coding_task, m, args.splits, args.quick)
            for m in BREAST_KNN
            if ("breast cancer", m) in pairs
        ],
    }
    return pairs, tasks


def _results(tasks, render_only, jobs, task_dir):
    flat = [t for group in tasks.values() for t in group]
    done = _store.results(flat, render_only=render_only, n_jobs=jobs, where=task_dir, partial=True)
    out, i = {}, 0
    for name, group in tasks.items():
        out[name], i = done[i : i + len(group)], i + len(group)
    return out


def main(argv=None) -> int:
    """Run (or resume) the reproduction and write the page; returns the exit status."""
    args = _parser().parse_args(argv)
    if args.splits is None:
        args.splits = 2 if args.quick else 15
    page, data_dir = output_paths(PAPER_NAME, args.out)
    task_dir = data_dir / "tasks"
    task_dir.mkdir(exist_ok=True)
    pairs, tasks = _tasks(args, task_dir)
    done = _results(tasks, args.render_only, args.jobs, task_dir)
    missing = [
        t[0].stem for g in tasks for t, r in zip(tasks[g], done[g], strict=True) if r is None
    ]
    results = {p: from_stored(t) for p, t in zip(pairs, done["pairs"], strict=True) if t}
    base = {t[3][0]: r for t, r in zip(tasks["scaling"], done["scaling"], strict=True) if r}
    coding = [c for c in done["coding"] if c]
    cpu = sum(r["cpu_seconds"] for r in [*done["pairs"], *coding] if r) / 60
    command = command_line(PAPER_NAME, argv if argv is not None else sys.argv[1:])
    text = render_page(
        results,
        {n: {h: [tuple(v) for v in runs] for h, runs in by.items()} for n, by in base.items()},
        coding,
        command=command,
        quick=args.quick,
        cpu_minutes=cpu,
        n_splits=args.splits,
        missing=missing,
    )
    page.write_text(text)
    page.with_name(APPENDIX).write_text(render_appendix(results, command=command))
    print(f"wrote {page} and {page.with_name(APPENDIX)}")
    return 0
