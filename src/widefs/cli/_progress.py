"""What a run says while it works: a rich progress display on a terminal, one line per
finished stage on a stderr that is not one (a log, a pipe, a batch job), and an estimate of a
long run's time and memory before it starts.

Only the standard library is imported here; rich is imported by the caller that shows it.
"""

from __future__ import annotations

import itertools
import math
import sys
import time
from dataclasses import dataclass

__all__ = ["RichProgress", "RunEstimate", "StageLines", "estimate_line", "estimate_run"]


class RichProgress:
    """Shows an analysis's progress events on a rich progress display, one task each."""

    def __init__(self, progress):
        self.progress = progress
        self.tasks: dict[str, object] = {}

    def __call__(self, event) -> None:
        task = self.tasks.get(event.task)
        if event.finished:
            if task is not None:
                self.progress.remove_task(self.tasks.pop(event.task))
            return
        if task is None:
            task = self.tasks[event.task] = self.progress.add_task(
                event.description, total=event.total
            )
        self.progress.update(task, description=event.description, completed=event.completed)


class StageLines:
    """One line on ``stream`` each time a stage of the analysis ends, as it ends (flushed).

    A stage is one description of a task (a part of the analysis, one method's nested
    cross-validation, one search certificate); it ends when its task moves on to another
    description or finishes. Each line gives the stage's own time and the run's total.
    """

    def __init__(self, stream=None, clock=time.perf_counter, start=None):
        self.stream = sys.stderr if stream is None else stream
        self.clock = clock
        self.start = clock() if start is None else start
        self.running: dict[str, tuple[str, float]] = {}  # task -> (description, started)
        self.held: list[tuple[str, float]] = []

    def hold(self, text: str, now: float) -> None:
        """A line written when the analysis starts (its first event): a run that fails its
        checks before then ends with its one error line only."""
        self.held.append((text, now))

    def line(self, text: str, now: float | None = None) -> None:
        """Write ``widefs: TEXT`` with the time since the run started, flushed at once."""
        now = self.clock() if now is None else now
        print(f"widefs: [{now - self.start:7.1f} s] {text}", file=self.stream, flush=True)

    def __call__(self, event) -> None:
        now = self.clock()
        for text, then in self.held:
            self.line(text, then)
        self.held.clear()
        current = self.running.get(event.task)
        if current is not None and (event.finished or current[0] != event.description):
            description, started = self.running.pop(event.task)
            self.line(f"done: {description} ({now - started:.1f} s)", now)
        if not event.finished and event.task not in self.running:
            self.running[event.task] = (event.description, now)


# Measured runs of the default analysis (`widefs run`, every part, --jobs 1), CPU seconds
# (user + system) and peak resident memory against the number of values n x p:
# colon 62 x 2,000 (33 s); benchmarks/bench_cli.py on 100 x 2,000 (38 s, 477 MB) and
# 100 x 20,000 (62 s, 983 MB); its CSV of 100 x 200,000 (283 s, 1,626 MB; the stage lines of
# that run are the acceptance check of this module). Between these points both are
# interpolated on log-log axes; beyond the
# largest, time and memory grow linearly with the number of values (above 20,000 features
# every stage but the chance screen works on a fixed pre-screen, so the screen's linear cost
# dominates). --quick took 35% of the default CPU time on colon (12 s against 33 s).
_CALIBRATION = (  # (values n x p, CPU seconds, peak MB)
    (62 * 2_000, 33.0, 450.0),
    (100 * 2_000, 38.0, 477.0),
    (100 * 20_000, 62.0, 983.0),
    (100 * 200_000, 283.0, 1626.0),
)
QUICK_SHARE = 0.35
# A run estimated longer than this gets the estimate printed before it starts.
LONG_RUN = 120.0


@dataclass(frozen=True)
class RunEstimate:
    """A run's estimated CPU time (seconds) and peak memory (bytes)."""

    seconds: float
    memory: float


def _interpolate(x: float, column: int) -> float:
    points = [(p[0], p[column]) for p in _CALIBRATION]
    if x <= points[0][0]:
        return points[0][1]
    for (x0, y0), (x1, y1) in itertools.pairwise(points):
        if x <= x1:
            t = (math.log(x) - math.log(x0)) / (math.log(x1) - math.log(x0))
            return math.exp(math.log(y0) + t * (math.log(y1) - math.log(y0)))
    (x0, y0), (x1, y1) = points[-2], points[-1]
    return y1 + (x - x1) * (y1 - y0) / (x1 - x0)


def estimate_run(n_samples: int, n_features: int, *, parts: int = 5, quick=False, jobs=1):
    """The estimated CPU time and peak memory of a run from the data's shape.

    ``parts`` of the five parts run (time scales with their share), ``quick`` for --quick,
    ``jobs`` worker processes (the time is divided by them; the memory is not).

    Examples
    --------
    >>> e = estimate_run(100, 200_000)
    >>> round(e.seconds), round(e.memory / 2**20)
    (283, 1626)
    >>> estimate_run(100, 200_000, quick=True).seconds < e.seconds
    True
    """
    values = float(n_samples) * float(n_features)
    seconds = _interpolate(values, 1) * min(max(parts, 1), 5) / 5
    if quick:
        seconds *= QUICK_SHARE
    return RunEstimate(seconds / max(jobs, 1), _interpolate(values, 2) * 2**20)


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} hours"


def estimate_line(n_samples: int, n_features: int, *, parts=5, quick=False, jobs=1) -> str | None:
    """The line printed before a long run (None for a short one), with what shortens it.

    Examples
    --------
    >>> estimate_line(62, 2000) is None
    True
    >>> print(estimate_line(200, 2_000_000))  # doctest: +NORMALIZE_WHITESPACE
    this run may take about 82 min and 14.8 GB of memory (a rough estimate from its
    200 x 2,000,000 values); shorter: --quick, --methods with fewer parts (e.g. --methods
    chance), --jobs N on N cores
    """
    est = estimate_run(n_samples, n_features, parts=parts, quick=quick, jobs=jobs)
    if est.seconds < LONG_RUN:
        return None
    shorter = [] if quick else ["--quick"]
    if parts > 1:
        shorter.append("--methods with fewer parts (e.g. --methods chance)")
    if jobs == 1:
        shorter.append("--jobs N on N cores")
    gb = est.memory / 2**30
    return (
        f"this run may take about {_duration(est.seconds)} and {gb:.1f} GB of memory (a rough "
        f"estimate from its {n_samples:,} x {n_features:,} values)"
        + (f"; shorter: {', '.join(shorter)}" if shorter else "")
    )
