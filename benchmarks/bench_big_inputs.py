"""Big and hostile inputs of ``widefs run`` at full size, under an address-space limit.

Builds, in a scratch directory (deleted afterwards unless ``--keep``):

- ``bomb.csv.gz``: a few MB of gzip that expand to about 1 GB of valid numeric rows
  (100 features and a class);
- ``wide.tsv.gz``: 100 samples x 50,000 features;
- ``geno.csv``: 100 samples x 5,000,001 columns (genotypes 0/1/2, the target last; a 55 MB
  header and about 1 GB in all).

and runs each in a child process under ``ulimit -v`` (default 2,000,000 KB), printing the
exit status, the wall time, the peak resident memory and the last line on stderr. The wide
file is read with :func:`widefs.cli.io._data.load_cli_data` (``--full-run`` also runs
``widefs run --quick`` on it, about two minutes); the genotype file goes to ``widefs run``
under the limit and is read by ``load_cli_data`` without it (where it is refused or read
according to the machine's free memory: about 8 minutes and 4 GB of numbers).

Usage::

    python benchmarks/bench_big_inputs.py [--limit-kb 2000000] [--full-run] [--keep DIR]

Needs about 2.5 GB of disk in the scratch directory and a few minutes.
"""

from __future__ import annotations

import argparse
import gzip
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

LOAD = (
    "import sys; from widefs.cli.io._data import load_cli_data; "
    "d = load_cli_data(sys.argv[1]); print(d.X.shape, len(set(d.y)), 'classes')"
)


def make_bomb(path: Path) -> None:
    header = ",".join(f"g{j}" for j in range(100)) + ",class\n"
    block = (("0.5," * 100 + "a\n") + ("0.25," * 100 + "b\n")).encode() * 5000
    with gzip.open(path, "wb", compresslevel=9) as fh:
        fh.write(header.encode())
        for _ in range((1 << 30) // len(block)):
            fh.write(block)


def make_wide(path: Path) -> None:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(100, 50_000)).round(4)
    X[1::2, :20] += 1.0
    with gzip.open(path, "wt", compresslevel=1) as fh:
        fh.write("\t".join(f"g{j}" for j in range(50_000)) + "\tclass\n")
        for i in range(100):
            fh.write("\t".join(map(str, X[i])) + ("\ta\n" if i % 2 else "\tb\n"))


def make_geno(path: Path, p: int = 5_000_000) -> None:
    rng = np.random.default_rng(0)
    with open(path, "w") as fh:
        fh.write(",".join(f"rs{j}" for j in range(p)) + ",class\n")
        for i in range(100):
            line = np.full(2 * p, ord(","), np.uint8)
            line[0::2] = rng.integers(0, 3, size=p) + ord("0")
            fh.write(line.tobytes().decode() + ("a\n" if i % 2 else "b\n"))


def run(argv: list[str], limit_kb: int | None, cwd: Path) -> None:
    """Run ``argv`` under the limit; print its status, time, peak memory and last line."""

    def limited():
        if limit_kb is not None:
            resource.setrlimit(resource.RLIMIT_AS, (limit_kb << 10, limit_kb << 10))

    t0 = time.perf_counter()
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen(argv, cwd=cwd, stdout=out, stderr=err, preexec_fn=limited)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        seconds = time.perf_counter() - t0
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    last = (stderr.strip().splitlines() or stdout.strip().splitlines() or [""])[-1]
    shown = " ".join(a if len(a) < 60 else a[:57] + "..." for a in argv[1:])
    limit = f"ulimit -v {limit_kb}" if limit_kb else "no limit"
    print(
        f"- `{shown}` ({limit}): exit {proc.returncode}, {seconds:.1f} s, peak RSS "
        f"{usage.ru_maxrss >> 10} MB, {stderr.count(chr(10))} stderr line(s)"
    )
    print(f"  {last[:300]}", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit-kb", type=int, default=2_000_000)
    parser.add_argument("--full-run", action="store_true")
    parser.add_argument("--keep", type=Path, default=None, help="build the files here, keep them")
    args = parser.parse_args()
    scratch = args.keep or Path(tempfile.mkdtemp(prefix="widefs-big-"))
    scratch.mkdir(parents=True, exist_ok=True)
    try:
        for name, make in (
            ("bomb.csv.gz", make_bomb),
            ("wide.tsv.gz", make_wide),
            ("geno.csv", make_geno),
        ):
            if not (scratch / name).exists():
                make(scratch / name)
            print(f"{name}: {(scratch / name).stat().st_size / 2**20:.1f} MB on disk")
        widefs = [sys.executable, "-m", "widefs.cli", "run"]
        run([*widefs, "bomb.csv.gz", "--out", "bomb-report"], args.limit_kb, scratch)
        run([sys.executable, "-c", LOAD, "wide.tsv.gz"], args.limit_kb, scratch)
        if args.full_run:
            run([*widefs, "wide.tsv.gz", "--quick", "--out", "wide-report"], args.limit_kb, scratch)
        run([*widefs, "geno.csv", "--out", "geno-report"], args.limit_kb, scratch)
        run([sys.executable, "-c", LOAD, "geno.csv"], None, scratch)
    finally:
        if args.keep is None:
            shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
