"""Shared helpers for benchmark scripts: timing, peak memory and the results page.

Every benchmark writes its own section of ``docs/results/benchmarks.md`` between
``<!-- section: NAME -->`` markers, so scripts can be re-run independently.
"""

from __future__ import annotations

import fcntl
import os
import platform
import re
import statistics
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "docs" / "results" / "benchmarks.md"
HEADER = (
    "# Benchmarks\n\n"
    "widefs timed against peer libraries side by side in one run (median wall-clock "
    "times, ratio = peer / widefs). Each section names the command that produced it; "
    "re-running a script rewrites only its own section.\n"
)


def machine_note() -> str:
    """One line describing where the numbers were measured."""
    threads = os.environ.get("OMP_NUM_THREADS", "unset")
    # Other jobs on the machine inflate wall and CPU times alike (shared caches and
    # memory bandwidth): the load at the start says how busy it was.
    load = os.getloadavg()[0]
    return (
        f"Measured on {platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}, OMP_NUM_THREADS={threads}, load average "
        f"{load:.1f} at the start."
    )


def median_time(fn: Callable[[], object], repeat: int = 3) -> tuple[float, object]:
    """Median wall-clock seconds of ``fn()`` over ``repeat`` calls, and the last result."""
    times, result = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), result


def write_section(name: str, markdown: str, path: Path = RESULTS) -> None:
    """Replace (or append) section ``name`` of the benchmarks page, under a file lock."""
    path.parent.mkdir(parents=True, exist_ok=True)
    begin, end = f"<!-- section: {name} -->", f"<!-- end section: {name} -->"
    block = f"{begin}\n{markdown.strip()}\n{end}"
    with open(path.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        text = path.read_text() if path.exists() else HEADER
        pattern = re.compile(re.escape(begin) + r".*?" + re.escape(end), flags=re.S)
        text = (
            pattern.sub(lambda _: block, text)
            if pattern.search(text)
            else text.rstrip() + "\n\n" + block + "\n"
        )
        path.write_text(text)
