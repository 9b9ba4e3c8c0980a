"""Time and peak memory of ``widefs run`` (the default analysis) on 100 x 2,000 .. 200,000.

For each size, writes a synthetic CSV with ``make_wide_csv.py`` into a temporary directory
(nothing is committed), runs ``/usr/bin/time -v widefs run DATA --out DIR`` in a fresh
process, and records the wall-clock time, the CPU time (user + system: on a shared machine
the wall-clock time also measures the other jobs) and the peak resident memory, plus how
long the terminal stayed silent (first line of output). Writes the ``cli_scale`` section of
docs/results/benchmarks.md.

The stage lines ``widefs run`` writes to a stderr that is not a terminal are printed with the
time each arrived (they must arrive while the run works, not at its end).

Usage::

    nice -n 10 python benchmarks/bench_cli.py [--sizes 2000 20000 200000] [--note TEXT]
    nice -n 10 python benchmarks/bench_cli.py --sizes 200000 --stages-only
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

from _report import machine_note, write_section
from make_wide_csv import write_wide_csv


def _field(text: str, name: str) -> str:
    match = re.search(rf"^\s*{re.escape(name)}: (.*)$", text, flags=re.M)
    return match.group(1).strip() if match else ""


def _seconds(clock: str) -> float:
    parts = [float(p) for p in clock.split(":")]
    return sum(p * 60**i for i, p in enumerate(reversed(parts)))


def run_one(n_features: int, workdir: Path, jobs: int = 1) -> dict:
    data = workdir / f"wide_{n_features}.csv"
    write_wide_csv(data, 100, n_features)
    out = workdir / f"report_{n_features}"
    cmd = [
        "/usr/bin/time",
        "-v",
        "widefs",
        "run",
        str(data),
        "--out",
        str(out),
        "--jobs",
        str(jobs),
    ]
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        cmd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "COLUMNS": "100"},
    )
    first = {}

    def watch():
        line = proc.stdout.readline()
        first["t"] = time.perf_counter() - t0
        first["line"] = line
        proc.stdout.read()

    reader = threading.Thread(target=watch)
    reader.start()
    # stderr line by line as it arrives: the stage lines must come while the run works.
    err_lines, stages = [], []
    for line in proc.stderr:
        err_lines.append(line)
        if line.startswith("widefs: ["):
            stages.append((time.perf_counter() - t0, line.rstrip("\n")))
    proc.wait()
    reader.join()
    err = "".join(err_lines)
    return {
        "features": n_features,
        "csv_mb": data.stat().st_size / 2**20,
        "status": proc.returncode,
        "wall": _seconds(_field(err, "Elapsed (wall clock) time (h:mm:ss or m:ss)")),
        "cpu": float(_field(err, "User time (seconds)") or 0)
        + float(_field(err, "System time (seconds)") or 0),
        "rss_mb": int(_field(err, "Maximum resident set size (kbytes)") or 0) / 1024,
        "first_output": first.get("t", float("nan")),
        "load": os.getloadavg()[0],
        "stages": stages,  # (seconds after the start when it arrived, the line)
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[2000, 20000, 200000])
    parser.add_argument("--jobs", type=int, default=1, help="widefs run --jobs (default 1)")
    parser.add_argument("--note", default="", help="a sentence on the machine's load")
    parser.add_argument(
        "--stages-only",
        action="store_true",
        help="print the stage lines each run wrote to stderr (with when they arrived) and "
        "the run's totals; write no results page",
    )
    args = parser.parse_args(argv)
    machine = machine_note()  # the load before the runs start
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in args.sizes:
            res = run_one(n, Path(tmp), args.jobs)
            for arrived, line in res.pop("stages"):
                print(f"{arrived:8.1f} s  {line}", flush=True)
            print(res, flush=True)
            rows.append(res)
    if args.stages_only:
        return 0
    table = [
        "| features | CSV (MB) | wall clock (s) | CPU, user + system (s) | peak RSS (MB) | first output after (s) | load average at the end | exit |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        table.append(
            f"| {r['features']:,} | {r['csv_mb']:.0f} | {r['wall']:.0f} | {r['cpu']:.0f} | "
            f"{r['rss_mb']:.0f} | {r['first_output']:.1f} | {r['load']:.1f} | {r['status']} |"
        )
    sizes = " ".join(map(str, args.sizes))
    shown = " / ".join(f"{n:,}" for n in args.sizes)
    note = f"{machine} {args.note}".strip()
    text = f"""## `widefs run`, the default analysis, on 100 samples x {shown} features

Command: `nice -n 10 python benchmarks/bench_cli.py --sizes {sizes} --jobs {args.jobs}`: for each
size a CSV from `benchmarks/make_wide_csv.py` (two balanced classes, 20 informative features),
then `/usr/bin/time -v widefs run wide.csv --out report --jobs {args.jobs}` (every method, search
certificates, 2 x 5-fold comparison) in a fresh process. {note}

On a shared machine the wall clock also measures the other jobs: read the CPU time.

{chr(10).join(table)}
"""
    write_section("cli_scale", text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
