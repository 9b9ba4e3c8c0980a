"""Reading delimited text at disk speed: widefs's reader beside the read floor and pandas.

Files written by ``make_wide_csv.py`` under ``--data`` (default ``/tmp/widefs-read``), kept
between runs: 200 x 2,000,000 whole numbers (0, 1, 2: a genotype table) with the samples in
rows, the same with the features in rows (``--transpose``), and 100 x 200,000 numbers with 4
decimals. Each reader runs in a fresh child process on the same file, one after the other:

- the read floor: the file's bytes read in 16 MB chunks, nothing parsed;
- widefs: the command line's delimited reader (``read_delimited``: numbers, labels, names);
- pandas: ``pandas.read_csv(engine="pyarrow")`` and ``engine="c"``, the numbers as float64
  (stopped after ``--timeout`` seconds or at ``--peer-memory`` bytes of address space).

Each child reports wall time, CPU time (user + system, its threads included) and peak
resident memory (``ru_maxrss`` from ``wait4``); the ratios are widefs's time over the floor's
and widefs's peak over the float32 matrix (4 bytes per number). Targets: 200 x 2,000,000 read
in at most 60 s, peak at most 1.5x the float32 matrix. ``--before SRC`` adds a widefs run
with another source tree on ``PYTHONPATH`` (an earlier commit's reader).

Usage::

    nice -n 5 python benchmarks/bench_read.py [--quick] [--before /path/to/src]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _report import machine_note, write_section

CHILD = r"""
import json, resource, sys
from pathlib import Path
kind, path, transpose, limit = sys.argv[1], sys.argv[2], sys.argv[3] == "1", int(sys.argv[4])
if limit:
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
out = {}
if kind == "floor":
    with open(path, "rb", buffering=0) as fh:
        out["bytes"] = sum(len(b) for b in iter(lambda: fh.read(1 << 24), b""))
elif kind == "widefs":
    from widefs.cli.io._delimited import read_delimited
    from widefs.cli.io._memory import Budget
    table = read_delimited(Path(path), "class", compressed=False, transpose=transpose,
                           budget=Budget(1 << 45, "benchmark", ""))
    out["shape"], out["dtype"] = list(table.X.shape), str(table.X.dtype)
else:
    import pandas as pd
    engine = kind.split("_")[1]
    frame = pd.read_csv(path, engine=engine, index_col=0 if transpose else None)
    out["shape"] = list(frame.shape)
print(json.dumps(out))
"""

CASES = {
    # name: (samples, features, integers, transpose)
    "200 x 2,000,000 integers, samples in rows": (200, 2_000_000, True, False),
    "200 x 2,000,000 integers, features in rows": (200, 2_000_000, True, True),
    "100 x 200,000 decimals, samples in rows": (100, 200_000, False, False),
}
QUICK = {
    "20 x 200,000 integers, samples in rows": (20, 200_000, True, False),
    "20 x 200,000 integers, features in rows": (20, 200_000, True, True),
    "20 x 20,000 decimals, samples in rows": (20, 20_000, False, False),
}
READERS = ("floor", "widefs", "pandas_pyarrow", "pandas_c")


def run_child(kind, path, transpose, *, env=None, timeout=None, limit=0) -> dict:
    """One reader in a fresh process: wall, CPU (s), peak RSS (bytes) and what it read.

    ``wait4`` gives the child's own CPU time (its threads included) and peak RSS."""
    cmd = [sys.executable, "-c", CHILD, kind, str(path), str(int(transpose)), str(limit)]
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, env=env)
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            wall = time.perf_counter() - start
            if pid:
                break
            if timeout is not None and wall > timeout:
                proc.kill()
                os.wait4(proc.pid, 0)
                return {"failed": f"stopped after {timeout:.0f} s"}
            time.sleep(0.1)
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read().decode(), err.read().decode(errors="replace")
    result = {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "peak": usage.ru_maxrss << 10}
    if proc.returncode != 0:
        last = (stderr.strip().splitlines() or ["killed"])[-1]
        return {**result, "failed": last[:120]}
    return {**result, **json.loads(stdout.strip().splitlines()[-1])}


def make_file(data: Path, name: str, case) -> Path:
    """The case's file under ``data``, written once."""
    samples, features, integers, transpose = case
    kind = ("int" if integers else "dec") + ("_t" if transpose else "")
    path = data / f"{kind}_{samples}x{features}.csv"
    if not path.exists():
        print(f"writing {path} ({name})", flush=True)
        part = path.with_suffix(".part")
        # In a child: a child's peak RSS (wait4) counts its parent's peak at the fork, so the
        # parent must stay small for the readers' peaks to be theirs.
        code = (
            "import sys; sys.path.insert(0, sys.argv[1]); from make_wide_csv import write_wide_csv;"
            " write_wide_csv(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]),"
            " integers=sys.argv[5] == '1', transpose=sys.argv[6] == '1')"
        )
        here = str(Path(__file__).resolve().parent)
        args = [part, samples, features, int(integers), int(transpose)]
        subprocess.run([sys.executable, "-c", code, here, *map(str, args)], check=True)
        part.rename(path)
    return path


def measure(args, cases) -> dict:
    """Every reader on every case's file, in that order."""
    results = {}
    for name, case in cases.items():
        path = make_file(args.data, name, case)
        transpose = case[3]
        runs = {"size": path.stat().st_size, "matrix32": case[0] * case[1] * 4}
        for kind in READERS:
            peer = kind.startswith("pandas")
            runs[kind] = run_child(
                kind,
                path,
                transpose,
                timeout=args.timeout if peer else None,
                limit=args.peer_memory if peer else 0,
            )
            print(name, kind, runs[kind], flush=True)
        if args.before:
            env = {**os.environ, "PYTHONPATH": str(args.before)}
            runs["before"] = run_child("widefs", path, transpose, env=env, timeout=args.timeout)
            print(name, "before", runs["before"], flush=True)
        results[name] = runs
    return results


_LABELS = {
    "floor": "read floor (the bytes)",
    "widefs": "widefs",
    "before": "widefs, earlier reader (np.fromstring per line)",
    "pandas_pyarrow": 'pandas.read_csv(engine="pyarrow")',
    "pandas_c": 'pandas.read_csv(engine="c")',
}


def _failure(text: str) -> str:
    """Why a reader did not finish, in a few words."""
    if "allocate" in text or "MemoryError" in text:
        return "failed: out of memory under its address-space limit (--peer-memory)"
    if "Empty CSV file or block" in text:
        return "failed: pyarrow refuses a header line longer than its read block"
    return text if text.startswith("stopped") else f"failed: {text}"


def _row(name: str, kind: str, run: dict, floor: dict, matrix32: int) -> list[str]:
    if "failed" in run:
        return [name, _LABELS[kind], "-", "-", "-", "-", "-", _failure(run["failed"])]
    note = run.get("dtype", "")
    return [
        name,
        _LABELS[kind],
        f"{run['wall']:.1f}",
        f"{run['cpu']:.1f}",
        f"{run['peak'] / 2**20:,.0f}",
        f"{run['wall'] / floor['wall']:.1f}x" if kind != "floor" else "1x",
        f"{run['peak'] / matrix32:.2f}x",
        note,
    ]


def section(args, results: dict) -> str:
    results = dict(results)
    note = results.pop("_machine", None) or machine_note()
    rows = []
    for name, runs in results.items():
        for kind in (*READERS, "before"):
            if kind in runs:
                rows.append(_row(name, kind, runs[kind], runs["floor"], runs["matrix32"]))
    columns = [
        "file",
        "reader",
        "wall (s)",
        "CPU (s)",
        "peak RSS (MB)",
        "wall / floor",
        "peak / float32 matrix",
        "note",
    ]
    table = "\n".join("| " + " | ".join(r) + " |" for r in [columns, ["---"] * len(columns), *rows])
    sizes = ", ".join(f"{n}: {r['size'] / 2**20:,.0f} MB" for n, r in results.items())
    before = f" --before {args.before}" if args.before else ""
    return "\n".join(
        [
            "## Reading delimited text",
            "",
            f"Command: `nice -n 5 python benchmarks/bench_read.py{before}`. Files from "
            f"`benchmarks/make_wide_csv.py` ({sizes}); each reader in a fresh process, one "
            "after the other on the same file (page cache warm after the first); peak = peak "
            "resident set size; the float32 matrix is 4 bytes per number. widefs reads with "
            "pyarrow's CSV parser in blocks into a float32 matrix while every number is one "
            "exactly (whole numbers), float64 otherwise. Targets: 200 x 2,000,000 read in at "
            "most 60 s, peak at most 1.5x the float32 matrix. Wall time includes the waits of "
            "a shared machine; CPU time (user + system, every thread) is the work. " + note,
            "",
            table,
        ]
    )


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="files 10x smaller, not stored")
    parser.add_argument("--data", type=Path, default=Path("/tmp/widefs-read"))
    parser.add_argument("--before", type=Path, help="a source tree with an earlier reader")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds for the peers")
    parser.add_argument("--peer-memory", type=int, default=8 << 30, help="bytes for pandas")
    parser.add_argument("--json", type=Path, help="also write the raw numbers here")
    parser.add_argument("--from-json", type=Path, help="render a run's raw numbers (--json)")
    args = parser.parse_args(argv)
    if args.from_json:  # render the section again from a run's raw numbers
        results = json.loads(args.from_json.read_text())
    else:
        args.data.mkdir(parents=True, exist_ok=True)
        note = machine_note()  # the load at the start
        results = {"_machine": note, **measure(args, QUICK if args.quick else CASES)}
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    text = section(args, results)
    print(text)
    if not args.quick:
        first = results[next(iter(CASES))]
        big = first["widefs"]
        headline = (
            f"widefs reads 200 x 2,000,000 integers in {big['wall']:.0f} s wall, "
            f"{big['cpu']:.0f} s CPU, with a peak of {big['peak'] / first['matrix32']:.2f}x "
            "the float32 matrix"
        )
        write_section("read", text, headline=headline)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
