"""``widefs run``, the default analysis, on 100 x 200,000 and 100 x 1,000,000 features.

For each size: a CSV from ``make_wide_csv.py`` in a temporary directory (two balanced
classes, 20 informative features; nothing is committed), then
``/usr/bin/time -v widefs run DATA --out DIR --jobs J`` in a fresh process (for each ``--jobs``
value: 1, the default, runs the analysis in the one process; 2 adds two workers), while the
proportional set size (PSS: each shared page counted once) of the process and its workers
is sampled every second from ``/proc/<pid>/smaps_rollup``. Records the wall clock, the CPU
time (user + system, workers included), the peak PSS of the tree, and for each stage (from
the stage lines ``widefs run`` writes to a stderr that is not a terminal) its wall time, the
CPU time of the tree while it ran (from ``/proc/<pid>/stat``) and its peak PSS. Writes
the ``cli_scale_large`` section of docs/results/benchmarks_scale.md, each size against its
target: 100 x 200,000 at most 120 s of CPU and 1.7 GB; 100 x 1,000,000 at most 10 minutes
on 2 cores and 2 GB.

``--data-dir DIR`` writes the CSV files there (and reads one already there) and leaves them
for the caller to delete; ``--save FILE`` also stores the runs as JSON; ``--load FILE [FILE ...]`` writes the section
from stored runs (sizes run in separate processes, side by side) without running anything.

Usage::

    nice -n 10 python benchmarks/bench_cli_large.py [--sizes 200000 1000000] [--jobs 1 2]
    nice -n 10 python benchmarks/bench_cli_large.py --sizes 1000000 --save /tmp/run_1m.json
    python benchmarks/bench_cli_large.py --load /tmp/run_200k.json /tmp/run_1m.json
"""

from __future__ import annotations

import argparse
import json
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


def _cpu_seconds(pid: int, seen: dict) -> float:
    """User + system CPU of the tree: the last value read of every process it ever held
    (a worker that ended keeps its share)."""
    tick = os.sysconf("SC_CLK_TCK")
    for p in _tree(pid):
        with contextlib.suppress(OSError, IndexError, ValueError):
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
            seen[p] = (int(fields[11]) + int(fields[12])) / tick
    return sum(seen.values())


def run_one(n_features: int, workdir: Path, jobs: int, data_dir: Path | None = None) -> dict:
    data = (data_dir or workdir) / f"wide_{n_features}.csv"
    if data_dir is None or not data.exists():  # the same seed writes the same file
        write_wide_csv(data, 100, n_features)
    cmd = ["/usr/bin/time", "-v", "widefs", "run", str(data), "--out", str(workdir / "report")]
    t0, load_start = time.perf_counter(), os.getloadavg()[0]
    proc = subprocess.Popen(
        [*cmd, "--jobs", str(jobs)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "COLUMNS": "100"},
    )
    peak = {"pss": 0.0, "stage": 0.0}
    cpu_seen: dict = {}
    lock = threading.Lock()

    def sample():
        while proc.poll() is None:
            pss = _pss_mb(proc.pid)
            with lock:
                peak["pss"] = max(peak["pss"], pss)
                peak["stage"] = max(peak["stage"], pss)
                _cpu_seconds(proc.pid, cpu_seen)
            time.sleep(1.0)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    err_lines, stages, cpu_before = [], [], 0.0
    for line in proc.stderr:
        err_lines.append(line)
        if line.startswith("widefs: "):  # as it arrives: a run stopped early still tells
            print(f"{n_features}: {line.rstrip()}", flush=True)
        match = re.match(r"widefs: \[\s*([\d.]+) s\] done: (.*) \(([\d.]+) s\)$", line.strip())
        read = re.match(r"widefs: \[\s*([\d.]+) s\] done: reading ", line.strip())
        if read:  # this line gives the time since the start; the stage is reading + imports
            match = (None, None, "reading the CSV, modules loaded", read.group(1))
        if match and not match[2].startswith(("search certificate", "nested CV")):
            with lock:
                cpu = _cpu_seconds(proc.pid, cpu_seen)
                stage_peak, peak["stage"] = peak["stage"], 0.0
            stages.append((match[2], float(match[3]), cpu - cpu_before, stage_peak))
            cpu_before = cpu
    proc.wait()
    sampler.join()
    err = "".join(err_lines)
    if data_dir is None:
        data.unlink()
    return {
        "features": n_features,
        "status": proc.returncode,
        "wall": _seconds(_field(err, "Elapsed (wall clock) time (h:mm:ss or m:ss)")),
        "cpu": float(_field(err, "User time (seconds)") or 0)
        + float(_field(err, "System time (seconds)") or 0),
        "pss_mb": peak["pss"],
        "load": os.getloadavg()[0],
        "load_start": load_start,
        "stages": stages,
        "elapsed": time.perf_counter() - t0,
        "jobs": jobs,
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


def _stage_cells(stage) -> str:
    _, wall, cpu, pss = stage
    return f"{wall:.1f} | {cpu:.1f} | {pss:.0f}"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[200_000, 1_000_000])
    parser.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--save", type=Path, help="also store the runs as JSON here")
    parser.add_argument("--note", default="", help="a sentence added below the tables")
    parser.add_argument(
        "--data-dir", type=Path, help="keep (and reuse) the CSV files here; delete them after"
    )
    parser.add_argument("--load", type=Path, nargs="+", help="write the section from stored runs")
    args = parser.parse_args(argv)
    machine = machine_note()
    rows = []
    if args.load:
        for path in args.load:
            stored = json.loads(path.read_text())
            rows.extend(stored["runs"])
            machine = stored["machine"]
        args.sizes = list(dict.fromkeys(r["features"] for r in rows))
        args.jobs = list(dict.fromkeys(r.get("jobs", 2) for r in rows))
    else:
        with tempfile.TemporaryDirectory() as tmp:
            for n in args.sizes:
                for jobs in args.jobs:
                    r = run_one(n, Path(tmp), jobs, args.data_dir or Path(tmp))
                    print(r, flush=True)
                    rows.append(r)
        if args.save:
            args.save.write_text(json.dumps({"machine": machine, "runs": rows}))
            return 0
    table = [
        "| features | --jobs | wall clock (s) | CPU, user + system (s) | peak PSS of the tree (MiB) "
        "| load average, start / end | exit | targets |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        table.append(
            f"| {r['features']:,} | {r.get('jobs', 2)} | {r['wall']:.0f} | {r['cpu']:.0f} | {r['pss_mb']:.0f} | "
            f"{r.get('load_start', float('nan')):.1f} / {r['load']:.1f} | {r['status']} | "
            f"{_verdict(r)} |"
        )
    largest = [r for r in rows if r["features"] == max(args.sizes)]  # the split of the largest
    names = [stage[0] for stage in largest[0]["stages"]]
    stage_table = [
        "| stage | "
        + " | ".join(f"--jobs {r.get('jobs', 2)}: wall s | CPU s | peak PSS MiB" for r in largest)
        + " |",
        "|---|" + "---|---|---|" * len(largest),
    ]
    for i, name in enumerate(names):
        cells = [_stage_cells(r["stages"][i]) if i < len(r["stages"]) else "" for r in largest]
        stage_table.append(f"| {name} | " + " | ".join(cells) + " |")
    sizes = " ".join(map(str, args.sizes))
    jobs = " ".join(map(str, args.jobs))
    text = f"""## `widefs run`, the default analysis, on 100 x {" and ".join(f"{n:,}" for n in args.sizes)} features

Command: `nice -n 10 python benchmarks/bench_cli_large.py --sizes {sizes} --jobs {jobs}`: for
each size a CSV from `benchmarks/make_wide_csv.py` (two balanced classes, 20 informative
features), then `/usr/bin/time -v widefs run wide.csv --out report --jobs J` in a fresh
process (`--jobs 1` is the default; 2 adds two workers), with the proportional set size (PSS:
shared pages counted once) of the process tree sampled every second. {machine} Targets: 100 x 200,000 at most 120 s of CPU and
1.7 GB; 100 x 1,000,000 at most 10 minutes on 2 cores and 2 GB (GiB: PSS in KiB / 1024^2).

{chr(10).join(table)}

Stages at 100 x {max(args.sizes):,} (from the run's stage lines; the first includes the imports;
the report's writing is in the total only):

{chr(10).join(stage_table)}
"""
    if args.note:
        text += f"\n{args.note}\n"
    by_size = {}
    for r in rows:
        by_size.setdefault(r["features"], []).append(r)
    headline = (
        "`widefs run`'s default analysis with --jobs "
        + "/".join(str(r.get("jobs", 2)) for r in by_size[args.sizes[0]])
        + " on 2 cores: "
        + "; ".join(
            f"100 x {n:,} "
            + "/".join(f"{r['wall'] / 60:.1f}" for r in runs)
            + " min, "
            + "/".join(f"{r['cpu']:.0f}" for r in runs)
            + " s CPU, "
            + "/".join(f"{r['pss_mb'] / 1024:.2f}" for r in runs)
            + " GB"
            for n, runs in by_size.items()
        )
    )
    write_section("cli_scale_large", text, headline=headline)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
