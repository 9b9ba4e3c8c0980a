"""``widefs run``, the default analysis, on 100 x 200,000 and 100 x 1,000,000 features.

For each size: a CSV from ``make_wide_csv.py`` in a temporary directory (two balanced
classes, 20 informative features; nothing is committed), then
``/usr/bin/time -v widefs run DATA --out DIR --jobs J`` in a fresh process, while the
proportional set size (PSS: each shared page counted once) of the process and its workers
is sampled every second from ``/proc/<pid>/smaps_rollup``. Records the wall clock, the CPU
time (user + system, workers included), the peak PSS of the tree, and the wall time of each
stage from the stage lines ``widefs run`` writes to a stderr that is not a terminal. Writes
the ``cli_scale_large`` section of docs/results/benchmarks_scale.md, each size against its
target: 100 x 200,000 at most 120 s of CPU and 1.7 GB; 100 x 1,000,000 at most 10 minutes
on 2 cores and 2 GB.

Usage::

    nice -n 10 python benchmarks/bench_cli_large.py [--sizes 200000 1000000] [--jobs 2]
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import contextlib

from _report import machine_note, write_section
from bench_cli import _field, _seconds
from make_wide_csv import write_wide_csv

# (CPU seconds or None, wall seconds or None, peak GB) a run of this size must stay within.
TARGETS = {200_000: (120.0, None, 1.7), 1_000_000: (None, 600.0, 2.0)}


def _tree(pid: int) -> list[int]:
    """``pid`` and its descendants, from ``/proc/<pid>/task/*/children``."""
    found, todo = [], [pid]
    while todo:
        p = todo.pop()
        found.append(p)
        for task in Path(f"/proc/{p}/task").glob("*"):
            with contextlib.suppress(OSError):
                todo.extend(int(c) for c in (task / "children").read_text().split())
    return found


def _pss_mb(pid: int) -> float:
    total = 0
    for p in _tree(pid):
        try:
            text = Path(f"/proc/{p}/smaps_rollup").read_text()
        except OSError:
            continue
        match = re.search(r"^Pss:\s+(\d+) kB", text, flags=re.M)
        total += int(match.group(1)) if match else 0
    return total / 1024


def run_one(n_features: int, workdir: Path, jobs: int) -> dict:
    data = workdir / f"wide_{n_features}.csv"
    write_wide_csv(data, 100, n_features)
    cmd = ["/usr/bin/time", "-v", "widefs", "run", str(data), "--out", str(workdir / "report")]
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [*cmd, "--jobs", str(jobs)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "COLUMNS": "100"},
    )
    peak = {"pss": 0.0}

    def sample():
        while proc.poll() is None:
            peak["pss"] = max(peak["pss"], _pss_mb(proc.pid))
            time.sleep(1.0)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    err_lines, stages = [], []
    for line in proc.stderr:
        err_lines.append(line)
        match = re.match(r"widefs: \[\s*([\d.]+) s\] done: (.*) \(([\d.]+) s\)$", line.strip())
        if match and not match.group(2).startswith(("search certificate", "nested CV")):
            stages.append((match.group(2), float(match.group(3))))
    proc.wait()
    sampler.join()
    err = "".join(err_lines)
    data.unlink()
    return {
        "features": n_features,
        "status": proc.returncode,
        "wall": _seconds(_field(err, "Elapsed (wall clock) time (h:mm:ss or m:ss)")),
        "cpu": float(_field(err, "User time (seconds)") or 0)
        + float(_field(err, "System time (seconds)") or 0),
        "pss_mb": peak["pss"],
        "load": os.getloadavg()[0],
        "stages": stages,
        "elapsed": time.perf_counter() - t0,
    }


def _verdict(r: dict) -> str:
    cpu_max, wall_max, gb_max = TARGETS.get(r["features"], (None, None, None))
    checks = []
    if cpu_max is not None:
        checks.append(f"CPU {r['cpu']:.0f} s <= {cpu_max:.0f}: {r['cpu'] <= cpu_max}")
    if wall_max is not None:
        checks.append(f"wall {r['wall']:.0f} s <= {wall_max:.0f}: {r['wall'] <= wall_max}")
    if gb_max is not None:
        gb = r["pss_mb"] / 1024
        checks.append(f"peak {gb:.2f} GB <= {gb_max}: {gb <= gb_max}")
    return "; ".join(checks)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[200_000, 1_000_000])
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args(argv)
    machine = machine_note()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in args.sizes:
            r = run_one(n, Path(tmp), args.jobs)
            print(r, flush=True)
            rows.append(r)
    table = [
        "| features | wall clock (s) | CPU, user + system (s) | peak PSS of the tree (MB) "
        "| load at the end | exit | targets |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        table.append(
            f"| {r['features']:,} | {r['wall']:.0f} | {r['cpu']:.0f} | {r['pss_mb']:.0f} | "
            f"{r['load']:.1f} | {r['status']} | {_verdict(r)} |"
        )
    names = [name for name, _ in rows[0]["stages"]]
    stage_table = [
        "| stage | " + " | ".join(f"{r['features']:,} features, wall s" for r in rows) + " |",
        "|---|" + "---|" * len(rows),
    ]
    for i, name in enumerate(names):
        cells = [f"{r['stages'][i][1]:.1f}" if i < len(r["stages"]) else "" for r in rows]
        stage_table.append(f"| {name} | " + " | ".join(cells) + " |")
    sizes = " ".join(map(str, args.sizes))
    text = f"""## `widefs run`, the default analysis, on 100 x {" and ".join(f"{n:,}" for n in args.sizes)} features

Command: `nice -n 10 python benchmarks/bench_cli_large.py --sizes {sizes} --jobs {args.jobs}`: for
each size a CSV from `benchmarks/make_wide_csv.py` (two balanced classes, 20 informative
features), then `/usr/bin/time -v widefs run wide.csv --out report --jobs {args.jobs}` in a fresh
process, with the proportional set size (PSS: each shared page counted once) of the process and
its workers sampled every second. {machine} Targets: 100 x 200,000 at most 120 s of CPU and
1.7 GB; 100 x 1,000,000 at most 10 minutes on 2 cores and 2 GB.

{chr(10).join(table)}

Where the time goes: each stage's wall time, from the stage lines of the run (on a shared
machine the wall clock also measures the other jobs).

{chr(10).join(stage_table)}
"""
    headline = "`widefs run`'s default analysis of " + "; of ".join(
        f"100 x {r['features']:,} takes {r['wall'] / 60:.1f} min, {r['cpu']:.0f} s CPU and "
        f"{r['pss_mb'] / 1024:.1f} GB on 2 cores"
        for r in rows
    )
    write_section("cli_scale_large", text, headline=headline)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
