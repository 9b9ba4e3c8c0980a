"""``widefs`` command line: ``widefs run [DATA]`` writes a report on a dataset.

Only the standard library and light widefs modules are imported here, so ``widefs --help``
answers before numpy, pandas, scikit-learn, numba or matplotlib load; each command imports
what it uses when it runs.

Every failure the user can cause ends the same way: one line ``widefs: error: ...`` on
stderr and exit status 2 (usage errors included), before any analysis starts; Ctrl-C ends
with one line and status 130.
"""

from __future__ import annotations

import contextlib
import gc
import os
import sys
import time
import warnings
from pathlib import Path
from typing import TYPE_CHECKING

import widefs
from widefs.cli import _cite, _reproduce
from widefs.cli._kernel_loads import light_kernel_loads
from widefs.cli._library_docs import library_docs_skipped
from widefs.cli._markup import visible
from widefs.cli._options import (
    UsageError,
    check_options,
    data_options,
    null_permutations,
    parser,
)
from widefs.cli._progress import RichProgress as _Progress
from widefs.cli._progress import StageLines, estimate_line
from widefs.cli._signals import Signals, check_signals
from widefs.exceptions import DataError

if TYPE_CHECKING:  # imported when a command runs, not on `widefs --help`
    from rich.console import Console

    from widefs.cli.io import LoadedData

__all__ = ["main"]

# Read by libraries when they are first imported, so set for a command's run (and restored).
_RUN_ENVIRONMENT = {
    # With colorama installed, numba colours the message of every overload its type inference
    # tries and rejects; the command line never shows them (a first run compiles ~1% fewer
    # instructions).
    "NUMBA_DISABLE_ERROR_MESSAGE_HIGHLIGHTING": "1",
    # pyarrow's default allocator (mimalloc) reserves 1 GiB of address space at its first
    # allocation, which pandas' arrow-backed strings trigger: under an address-space limit
    # (ulimit -v 2 GB) that alone would leave too little for the analysis.
    "ARROW_DEFAULT_MEMORY_POOL": "system",
    # glibc gives threads that allocate heaps of their own (arenas, up to 8 per core), where
    # freed pages stay resident: with two, a 100 x 10^6 run peaks ~100 MB lower and spends ~9%
    # less CPU (benchmarks_scale.md). Workers read it when they start; this process, _arenas.
    "MALLOC_ARENA_MAX": "2",
}
_M_ARENA_MAX = -8  # glibc's mallopt parameter (malloc.h)


def _run(args, console: Console) -> int:
    with _collector_skips_kept() as keep, library_docs_skipped(), light_kernel_loads():
        return _report(args, console, keep)


def _report(args, console: Console, keep) -> int:
    """``widefs run``: read, analyse, write the report (``keep``: see :func:`_analyse`)."""
    # soft_wrap: a long path stays one line (a pipe or log gets it whole, never broken mid-name).
    console.print(
        f"widefs run: {visible(args.data)}", markup=False, highlight=False, soft_wrap=True
    )
    with _loading(keep):
        from rich.text import Text

        from widefs.cli import render
        from widefs.cli._guard import check_disk_space, check_output_dir
        from widefs.cli.io import load_cli_data

    t0 = time.perf_counter()
    groups, p_error, max_memory = check_options(args)
    inputs = [Path(p) for p in (args.data, args.labels) if p is not None and Path(p).is_file()]
    # Checks that can fail run before any work: the options, the output place, then the data.
    check_output_dir(args.out, inputs)
    with warnings.catch_warnings(record=True) as caught:
        with console.status(f"reading {visible(args.data)}", spinner="dots"):
            data = load_cli_data(
                args.data,
                target=args.target,
                impute=args.impute,
                transpose=args.transpose,
                labels=args.labels,
                max_memory=max_memory,
                **data_options(args),
            )
        check_disk_space(args.out, data.X.shape[1])
        keep = _collecting_if_large(keep, data.X)
        keep()  # the modules and the data stay to the end
        report = _analyse(args, data, groups, p_error, console, t0, keep)
    section = render.warnings_section(caught)
    if section is not None:
        render.show(console, report.add(section))
    check_signals()  # nothing is written after a signal
    with _uncollected():
        written = report.write(args.out, inputs=inputs)
    console.print(
        Text.assemble(
            "Report written to ",
            (visible(str(args.out / "report.html")), "bold"),
            f" and report.md ({len(written)} files, {time.perf_counter() - t0:.1f} s).",
        )
    )
    return 0


def _analysis(args, data: LoadedData, groups, p_error, progress):
    """The library's analysis of ``data`` with the run's options (names escaped for text)."""
    import numpy as np

    from widefs.analysis import analyse

    labels = np.array([visible(str(v)) for v in data.y], dtype=object)
    # A store's names are looked up one at a time, already escaped.
    names = [visible(str(c)) for c in data.feature_names] if data.in_memory else data.feature_names
    return analyse(
        data.X,
        data.y if all(a == b for a, b in zip(labels, data.y, strict=True)) else labels,
        methods=groups,
        quick=args.quick,
        random_state=args.seed,
        n_jobs=args.jobs,
        progress=progress,
        feature_names=names,
        p_error=p_error,
        null=args.null,
        counts=data.counts,  # --counts / --no-counts, else "auto": the library's one rule
        n_permutations=args.permutations,
        n_null_permutations=null_permutations(args, data.X.shape[1]),
        covariates=data.design.covariates,
        groups=data.design.groups,
    )


_SHOWN_CLASSES = 12  # classes listed by name in the summary; the rest are counted


def _top_classes(classes, counts):
    """The classes to list (the largest when there are many) and the count of the rest."""
    if len(classes) <= _SHOWN_CLASSES:
        return list(classes), list(counts)
    order = sorted(range(len(classes)), key=lambda i: (-counts[i], str(classes[i])))
    top = order[: _SHOWN_CLASSES - 1]
    rest = len(classes) - len(top)
    names = [classes[i] for i in top] + [f"{rest} more classes"]
    return names, [counts[i] for i in top] + [sum(int(counts[i]) for i in order[len(top) :])]


def _analyse(args, data: LoadedData, groups, p_error, console: Console, t0: float, keep):
    """Analyse ``data`` and return the report (not yet written); ``keep()`` at the start and
    end of each part of the analysis (see :func:`_collector_skips_kept`)."""
    from widefs.cli import render
    from widefs.cli._markup import Markup
    from widefs.cli.io import shared_matrix
    from widefs.plotting import literal_text

    report = render.Report(
        title=f"widefs report: {data.name}",
        intro=Markup(
            "Generated by `widefs run` (widefs {version}, seed {seed}). Every accuracy below was "
            "measured with feature selection inside the evaluation folds.",
            version=widefs.__version__,
            seed=args.seed,
        ),
    )
    summary = render.summary_section(data, *_top_classes(*data.class_counts))
    render.show(console, report.add(summary))
    if not data.in_memory:  # a zarr store: only the SCMs read it where it lies
        groups = [g for g in groups if g == "scm"]
        if not groups:
            raise DataError("a zarr store runs the scm part only; use --methods scm")
    report.add(render.how_to_read(groups))
    n, p = data.X.shape
    read = f"done: reading {visible(args.data)} ({n:,} x {p:,})", time.perf_counter()
    long_run = estimate_line(n, p, parts=len(groups), quick=args.quick, jobs=_cores(args.jobs))
    with literal_text(), _display(console, t0, read, long_run) as (show, progress):
        # (one copy of X for every worker process; BLAS on at most --jobs cores)
        with shared_matrix(data, args.jobs), _blas_threads(args.jobs):
            analysis = _analysis(args, data, groups, p_error, _keeping(progress, keep))
        with _uncollected():  # the report: figures and text to the run's end
            for section in render.analysis_sections(analysis, data):
                report.add(section)
                render.show(show, section)
        report.add(render.citing_section(groups))
    return report


@contextlib.contextmanager
def _collector_skips_kept():
    """A function that moves every object alive now out of the cyclic garbage collector's
    reach (:func:`gc.freeze`), for the run; undone at its end (:func:`gc.unfreeze`).

    A run keeps what it builds to its end: the modules, the data, each part's results. Each
    full collection walks every tracked object, and numba's compiles on a first run trigger
    many; left out of them, what the run keeps costs nothing more. Garbage is collected
    first (walking only what is not frozen yet), so no dead cycle is frozen with a large
    array in it (``keep(collect=False)`` skips that walk where only modules loaded since, see
    :func:`_loading`); an object kept that later becomes part of a garbage cycle waits for the
    run's end. Nothing is frozen when the caller (``main()`` called from Python) has frozen
    objects of its own.
    """
    if gc.get_freeze_count():
        yield lambda collect=True: None
        return

    def keep(collect=True):
        if collect:
            gc.collect()
        gc.freeze()

    try:
        yield keep
    finally:
        gc.unfreeze()


# Data below this size leaves dead cycles too small to matter when frozen until the run's end,
# so ``keep()`` skips the collection before freezing (on colon, 7 walks of ~10 ms each).
_COLLECT_ABOVE_BYTES = 64 * 2**20


def _collecting_if_large(keep, X):
    """``keep`` for a run on ``X``: collecting garbage before freezing only when ``X`` holds at
    least :data:`_COLLECT_ABOVE_BYTES` (a store whose size is unknown counts as large)."""
    collect = getattr(X, "nbytes", _COLLECT_ABOVE_BYTES) >= _COLLECT_ABOVE_BYTES
    return lambda: keep(collect=collect)


@contextlib.contextmanager
def _uncollected():
    """No automatic garbage collection in the block (the collector's state restored after).

    For blocks that build what the run keeps to its end and leave little cyclic garbage, all
    of it small: every collection there would walk what it builds for nothing.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


@contextlib.contextmanager
def _loading(keep):
    """No automatic collection while the block loads modules, then what loaded is kept
    (``keep(collect=False)``: frozen as it is, see :func:`_collector_skips_kept`).

    Importing creates objects by the hundred thousand, and every full collection that the
    growth triggers walks all of them (pandas' import alone set off two). Only modules load
    in the block: its garbage is what imports leave, small, and no data is frozen with it.
    """
    with _uncollected():
        try:
            yield
        finally:
            keep(collect=False)


def _keeping(progress, keep):
    """``progress``, calling ``keep()`` first at the start and end of each part (and raising
    a signal received first, see :mod:`widefs.cli._signals`)."""

    def note(event):
        check_signals()  # a signal whose exception was swallowed ends the run here
        if event.task == "analysis":  # (the last one: before the report is drawn)
            keep()
        progress(event)

    return note


def _cores(jobs: int) -> int:
    return (os.cpu_count() or 1) if jobs == -1 else jobs


@contextlib.contextmanager
def _display(console: Console, t0: float, read: tuple[str, float], long_run: str | None):
    """(console to print sections on, progress callback): a rich progress display where a
    terminal shows it (stdout's, else stderr's), else one line per finished stage on stderr,
    the reading and the estimate of a long run first."""
    from rich.console import Console as RichConsole
    from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    where = console if console.is_terminal else RichConsole(stderr=True)
    if not where.is_terminal:
        lines = StageLines(start=t0)
        lines.hold(*read)
        if long_run is not None:
            lines.hold(long_run, read[1])
        yield console, lines
        return
    if long_run is not None:
        where.print(f"widefs: {long_run}", markup=False, highlight=False)
    columns = (SpinnerColumn(), TextColumn("{task.description}", markup=False), BarColumn())
    with Progress(*columns, TimeElapsedColumn(), console=where, transient=True) as progress:
        yield (progress.console if where is console else console), _Progress(progress)


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
        unusable data, detected before any analysis), 130 on Ctrl-C and 143 on SIGTERM.

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
    signals = Signals()
    try:
        args = parser().parse_args(argv)
        # The caller's own MALLOC_ARENA_MAX applied when this process started: kept.
        arenas = None if "MALLOC_ARENA_MAX" in os.environ else _RUN_ENVIRONMENT["MALLOC_ARENA_MAX"]
        environment = {**_RUN_ENVIRONMENT, **_one_blas_thread(getattr(args, "jobs", None))}
        with _environment(environment), _arenas(arenas), signals:
            return _command(args)
    except BaseException as exc:
        # After a signal, the signal's status, whatever exception the unwinding ended with.
        status = signals.ended(exc)
        if status is not None:
            return status
        if isinstance(exc, (DataError, UsageError)):
            # One line naming the problem, non-zero status, nothing written.
            print(f"widefs: error: {visible(str(exc))}", file=sys.stderr)
            return 2
        if isinstance(exc, MemoryError):
            print(
                "widefs: error: out of memory: the data and the analysis need more than this "
                "process may use (the machine's free memory, ulimit -v, the container's limit); "
                "nothing was written",
                file=sys.stderr,
            )
            return 2
        raise


def _command(args) -> int:
    from rich.console import Console

    console = Console()
    if args.command == "run":
        return _run(args, console)
    if args.command == "reproduce":
        return _reproduce.run(args.paper, args.args)
    if args.command == "cite":
        return _cite.run(args)
    return _datasets(console)


@contextlib.contextmanager
def _arenas(limit: str | None):
    """This process's glibc arenas limited to ``limit`` for the command (glibc read
    ``MALLOC_ARENA_MAX`` at start-up, before :data:`_RUN_ENVIRONMENT` set it), then unlimited
    again; ``None``: left alone."""
    try:  # (ctypes here, not widefs._utils' libc: a command that needs no numpy loads none)
        import ctypes

        mallopt = None if limit is None else ctypes.CDLL("libc.so.6").mallopt
    except (OSError, AttributeError):
        mallopt = None
    if mallopt is None:
        yield
        return
    mallopt(_M_ARENA_MAX, int(limit))
    try:
        yield
    finally:
        mallopt(_M_ARENA_MAX, 0)  # 0: no limit, glibc's default


def _one_blas_thread(jobs) -> dict[str, str]:
    """The environment that starts a ``--jobs 1`` command's BLAS libraries with one thread.

    Each OpenBLAS loaded with more (numpy's and scipy's: two on two cores) spins its idle
    thread ~0.1 s of CPU at load, before any work and before :func:`_blas_threads` can limit
    it: 0.2 s of a warm colon run's ~8.5 s (the analysis's own BLAS calls spun no more). Read
    when numpy and scipy load, so it reaches the console script (which loads them during
    the command), not a process that loaded them before calling :func:`main`. Workers
    (``--jobs`` above 1) get joblib's own limit, which a value here would override.
    """
    if jobs != 1:
        return {}
    return dict.fromkeys(("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS"), "1")


@contextlib.contextmanager
def _blas_threads(jobs: int):
    """numpy's and scipy's BLAS limited to ``jobs`` threads while the analysis runs, as many
    as the workers ``--jobs`` gives the run (-1, every core: left alone). The report is the
    same for any ``--jobs`` (tests/cli/test_run.py)."""
    if jobs == -1:
        yield
        return
    import scipy.linalg  # noqa: F401  (loads scipy's BLAS now: the limit reaches loaded ones)
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=jobs, user_api="blas"):
        yield


@contextlib.contextmanager
def _environment(values: dict[str, str]):
    """``values`` set in ``os.environ`` (where not set already) and restored afterwards, so
    that ``main()`` called from Python leaves the caller's environment as it was."""
    saved = {name: os.environ.get(name) for name in values}
    for name, value in values.items():
        os.environ.setdefault(name, value)
    try:
        yield
    finally:
        for name, old in saved.items():
            if old is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = old
