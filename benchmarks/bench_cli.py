"""Time and peak memory of ``widefs run`` (the default analysis): colon, and 100 x 2,000 .. 200,000.

For each size, writes a synthetic CSV with ``make_wide_csv.py`` into a temporary directory
(nothing is committed), runs ``/usr/bin/time -v widefs run DATA --out DIR`` in a fresh
process, and records the wall-clock time, the CPU time (user + system: on a shared machine
the wall-clock time also measures the other jobs) and the peak resident memory, plus how
long the terminal stayed silent (first line of output). Writes the ``cli_scale`` section of
docs/results/benchmarks_scale.md.

``--colon`` times instead ``widefs run`` on the bundled colon data with default options:
warm (numba's cache filled by a first run) and as the first run after install (an empty
``NUMBA_CACHE_DIR``), interleaved, median CPU of ``--repeat`` runs each, against the targets
(8 s warm, 15 s first run), and where one more warm run's CPU goes (in-process: the command
before the analysis, each part of the analysis at its progress events, the report; the parts
add up to the run); Python's modules byte-compiled as an install
leaves them (see ``installed_env``). Writes the ``cli_colon`` section. ``--compile-times``
prints the CPU time each numba kernel takes to compile in a first run on colon.

The stage lines ``widefs run`` writes to a stderr that is not a terminal are printed with the
time each arrived (they must arrive while the run works, not at its end).

Usage::

    nice -n 10 python benchmarks/bench_cli.py [--sizes 2000 20000 200000] [--note TEXT]
    nice -n 10 python benchmarks/bench_cli.py --colon [--repeat 3] [--before OLD/src]
    nice -n 10 python benchmarks/bench_cli.py --compile-times
    nice -n 10 python benchmarks/bench_cli.py --sizes 200000 --stages-only
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
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


# The colon run's targets, CPU seconds: warm (numba's cache filled) and first run after install.
COLON_TARGETS = {"warm": 8.0, "first run": 15.0}

# One warm `widefs run` on colon in-process: the CPU time (the process's, from its start) when
# the analysis starts, at each of its progress events (the command's own callback still gets
# them), when it ends and when the command returns, as JSON on stdout's last line.
_COMMAND = """
import json, sys, time
import widefs.analysis
from widefs.cli import main
events = []
analyse = widefs.analysis.analyse
def mark(task, description="", finished=False):
    events.append([time.process_time(), task, description, finished])
def timed(*args, progress=None, **kwargs):
    def tee(ev):
        mark(ev.task, ev.description, ev.finished)
        if progress is not None:
            progress(ev)
    mark("start")
    try:
        return analyse(*args, progress=tee, **kwargs)
    finally:
        mark("end")
widefs.analysis.analyse = timed
main(["run", "--out", sys.argv[1]])
mark("done")
print(json.dumps(events))
"""


def colon_parts(workdir: Path) -> list[tuple[str, float, float]]:
    """``(part, CPU s, of which search certificates CPU s)`` of one warm ``widefs run`` on
    colon: the command before the analysis (Python's start, the modules, reading), each part
    of the analysis (timed at its progress events, in the same process), and the report. The
    parts add up to the run's CPU time."""
    out = subprocess.run(
        [sys.executable, "-c", _COMMAND, str(workdir / "report_parts")],
        capture_output=True,
        text=True,
        check=True,
        env=installed_env(workdir),
    ).stdout
    events = json.loads(out.strip().splitlines()[-1])
    start = events[0][0]  # the "start" mark: the analysis is called
    parts = [
        ["command, before the analysis: Python, modules, reading", start, 0.0],
        ["analysis, before its first part: inputs checked", 0.0, 0.0],
    ]
    opened, since = {}, start
    for t, task, description, finished in events[1:]:
        if task in ("analysis", "end"):
            if since is not None:  # the part that was running ends here
                parts[-1][1], since = t - since, None
            if task == "analysis" and description != "done":
                parts.append([description, 0.0, 0.0])
                since = t
        elif task.startswith("search certificate"):
            if finished:
                parts[-1][2] += t - opened.pop(task)
            else:
                opened[task] = t
    end = next(t for t, task, _, _ in events if task == "end")
    report = events[-1][0] - end  # the "done" mark: the command returned
    parts.append(["command, after it: the report (sections, figures, files)", report, 0.0])
    return [(name, cpu, cert) for name, cpu, cert in parts]


def timed_process(cmd: list[str], env: dict | None = None) -> tuple[float, float, float]:
    """``(CPU seconds, wall seconds, peak MB)`` of one process, from the operating system."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed")
    return usage.ru_utime + usage.ru_stime, time.perf_counter() - t0, usage.ru_maxrss / 1024


def installed_env(workdir: Path) -> dict[str, str]:
    """The environment with Python's modules byte-compiled, as an install leaves them: an
    editable checkout under ``PYTHONDONTWRITEBYTECODE`` compiles widefs's ~160 modules from
    source in every process (written under ``workdir``, never beside the sources)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return {**env, "PYTHONPYCACHEPREFIX": str(workdir / "pycache")}


def colon_runs(repeat: int, workdir: Path, before: str | None = None) -> dict[str, list]:
    """Warm and first-run-after-install ``widefs run`` on colon, interleaved; with ``before``
    (the ``src`` directory of an earlier checkout), that code's warm runs between them: on a
    shared machine only runs side by side compare two versions."""
    cmd = ["widefs", "run", "--out", str(workdir / "report")]
    base = installed_env(workdir)
    timed_process(cmd, base)  # fills numba's cache for the warm runs (and the bytecode)
    runs = {"warm": [], "first run": []}
    if before:
        earlier = {**base, "PYTHONPATH": before, "NUMBA_CACHE_DIR": str(workdir / "before")}
        timed_process(cmd, earlier)
        runs["warm, earlier code"] = []
    for _ in range(repeat):
        if before:
            runs["warm, earlier code"].append(timed_process(cmd, earlier))
        runs["warm"].append(timed_process(cmd, base))
        with tempfile.TemporaryDirectory(prefix="bench_cli_numba_") as cache:
            env = {**base, "NUMBA_CACHE_DIR": cache}
            runs["first run"].append(timed_process(cmd, env))
    return runs


# A first run of ``widefs run`` on colon in-process, with the CPU time of each kernel's
# compilation (numba's Dispatcher.compile, outermost calls only: a kernel's time includes the
# helpers it compiles); writes JSON to argv[2].
_COMPILES = """
import json, sys, time
import numba.core.dispatcher as dispatcher
compile_one = dispatcher.Dispatcher.compile
depth, seconds = [0], {}
def timed(self, sig):
    depth[0] += 1
    t0 = time.process_time()
    try:
        return compile_one(self, sig)
    finally:
        depth[0] -= 1
        if depth[0] == 0:
            name = f"{self.py_func.__module__}.{self.py_func.__qualname__}"
            seconds[name] = seconds.get(name, 0.0) + time.process_time() - t0
dispatcher.Dispatcher.compile = timed
from widefs.cli import main
t0 = time.process_time()
main(["run", "--out", sys.argv[1]])
with open(sys.argv[2], "w") as fh:
    json.dump({"run": time.process_time() - t0, "kernels": seconds}, fh)
"""


def colon_compiles() -> None:
    """Print the CPU seconds each numba kernel takes to compile in a first run on colon."""
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        env = {**installed_env(work), "NUMBA_CACHE_DIR": str(work / "numba")}
        cmd = [sys.executable, "-c", _COMPILES, str(work / "report"), str(work / "out.json")]
        subprocess.run(cmd, env=env, check=True, capture_output=True)
        found = json.loads((work / "out.json").read_text())
    kernels = sorted(found["kernels"].items(), key=lambda kv: -kv[1])
    total = sum(s for _, s in kernels)
    print(f"first run on colon: {found['run']:.1f} s CPU in-process, {total:.1f} s compiling")
    print(f"(load average {os.getloadavg()[0]:.1f})")
    for name, sec in kernels:
        print(f"{sec:6.2f} s  {name}")


def colon_section(repeat: int, before: str | None = None) -> None:
    machine = machine_note()
    with tempfile.TemporaryDirectory() as tmp:
        runs = colon_runs(repeat, Path(tmp), before)
        stages = colon_parts(Path(tmp))
    load = os.getloadavg()[0]
    medians = {k: [statistics.median(r[i] for r in v) for i in range(3)] for k, v in runs.items()}
    rows, verdicts = [], []
    earlier = medians.pop("warm, earlier code", None)
    for kind, (cpu, wall, mb) in medians.items():
        every = ", ".join(f"{r[0]:.1f}" for r in runs[kind])
        target = COLON_TARGETS[kind]
        rows.append(
            f"| {kind} | {cpu:.1f} | {every} | {target:.0f} | {cpu / target:.2f} | {wall:.0f} | "
            f"{mb:.0f} |"
        )
        verdicts.append(f"{kind} {cpu:.1f} s ({'met' if cpu <= target else 'NOT met'})")
        print(
            f"colon {kind}: CPU {cpu:.1f} s (runs {every}), {cpu / target:.2f} x the target, "
            f"load average {load:.1f} at the end"
        )
    # (the page names no local path: the earlier checkout is the reader's own)
    side_by_side, flag = "", " --before EARLIER/src" if before else ""
    if earlier is not None:
        every = ", ".join(f"{r[0]:.1f}" for r in runs["warm, earlier code"])
        side_by_side = (
            f"\nThe earlier code's warm runs, between these: {earlier[0]:.1f} s ({every});"
            f" this code {medians['warm'][0] / earlier[0]:.2f}x.\n"
        )
        print(side_by_side.strip())
    total = sum(cpu for _, cpu, _ in stages)
    stage_rows = [
        f"| {name} | {cpu:.1f} | {cert:.1f} | {100 * cpu / total:.0f}% |"
        for name, cpu, cert in stages
    ]
    for row in stage_rows:
        print(row)
    text = f"""## `widefs run` on colon (62 x 2,000), default options

Command: `nice -n 10 python benchmarks/bench_cli.py --colon --repeat {repeat}{flag}`. {machine}
Load average {load:.1f} at the end. `widefs run --out report` (the bundled colon data: every
part, search certificates, the 2 x 5-fold comparison, the report and its figures) in a fresh
process with byte-compiled modules; CPU time (user + system) and peak resident set from the
operating system, median of {repeat} runs. *Warm*: numba's cache filled by an earlier run;
*first run*: an empty `NUMBA_CACHE_DIR` (the first run after install). Kinds alternate.

| run | CPU s (median) | CPU s (each run) | target CPU s | CPU / target | wall s | peak MB |
|---|---|---|---|---|---|---|
{chr(10).join(rows)}
{side_by_side}
Where the CPU goes: one more warm `widefs run` in a fresh process, timed before its analysis,
at the analysis's progress events and after it (the rows add up to that run's {total:.1f} s);
each part's time includes its search certificates.

| part | CPU s | of which search certificates, CPU s | share |
|---|---|---|---|
{chr(10).join(stage_rows)}
"""
    headline = "the colon default run takes " + " and ".join(verdicts) + " of CPU"
    write_section("cli_colon", text, headline=headline)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[2000, 20000, 200000])
    parser.add_argument("--jobs", type=int, default=1, help="widefs run --jobs (default 1)")
    parser.add_argument("--note", default="", help="a sentence on the machine's load")
    parser.add_argument("--colon", action="store_true", help="the colon run (see above)")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each kind (--colon)")
    parser.add_argument(
        "--before", help="--colon: the src directory of an earlier checkout, timed side by side"
    )
    parser.add_argument(
        "--compile-times",
        action="store_true",
        help="print each numba kernel's compile CPU time in a first run on colon; write nothing",
    )
    parser.add_argument(
        "--stages-only",
        action="store_true",
        help="print the stage lines each run wrote to stderr (with when they arrived) and "
        "the run's totals; write no results page",
    )
    args = parser.parse_args(argv)
    if args.compile_times:
        colon_compiles()
        return 0
    if args.colon:
        colon_section(args.repeat, args.before)
        return 0
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
