"""First ``widefs run`` in a fresh environment, side by side with an older commit.

A first run's CPU time depends on the machine's speed at the time (on a shared virtual
machine the same work has taken 20 s in one hour and 35 s in another), so a number measured
on its own says little. This script measures the checkout and a baseline commit in the same
hour, alternately, and prints their ratio; with ``--baseline-seconds`` (what the baseline
took where it was first measured) it also prints what the checkout would take there.

For each commit and pair: a wheel (built once per commit, the baseline from ``git archive``),
a new virtual environment with the wheel installed and byte-compiled (``pip install
--no-compile``, then ``compileall -j 0``, as ``.ci/run`` does), then ``widefs run --out r1``
and ``--out r2`` from an empty scratch directory: the first run compiles the numba kernels,
the second loads them from numba's cache. CPU = user + system seconds of the run's process
(``os.wait4``). Pairs alternate which commit goes first. A pure-Python calibration loop
before each pair shows how fast the machine was.

Usage::

    python benchmarks/bench_cold_start.py [--baseline COMMIT] [--baseline-seconds 43] [--pairs 3]

Defaults: the baseline is the code before the compile-time work, whose first run took about
43 s on the machine where it was first measured (the target there: at most 25 s). Needs git, network access to the package
registry (the environments' dependencies) and about four minutes per pair. Nothing is
written outside a temporary directory.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def calibration_seconds() -> float:
    """CPU seconds of a fixed pure-Python loop: compare it between runs of this script."""
    start = time.process_time()
    total = 0
    for i in range(20_000_000):
        total += i * i % 7
    return time.process_time() - start


def build_wheel(source: Path, outdir: Path) -> Path:
    done = subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--outdir", str(outdir), str(source)],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise RuntimeError(f"building a wheel of {source} failed:\n{done.stderr[-2000:]}")
    (wheel,) = outdir.glob("widefs-*.whl")
    return wheel


def baseline_source(rev: str, workdir: Path) -> Path:
    """The tree of ``rev`` (``git archive``: no worktree left behind)."""
    dest = workdir / "baseline-src"
    dest.mkdir()
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", "--format=tar", rev],
        check=True,
        capture_output=True,
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
    return dest


def _environment() -> dict[str, str]:
    """This process's environment without what would change a fresh install's first run
    (no byte-compiled files; another numba cache)."""
    drop = ("PYTHONDONTWRITEBYTECODE", "NUMBA_CACHE_DIR")
    return {k: v for k, v in os.environ.items() if k not in drop}


def fresh_environment(wheel: Path, venv: Path) -> Path:
    env = _environment()
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    subprocess.run(
        [python, "-m", "pip", "install", "--quiet", "--no-compile", str(wheel)],
        check=True,
        env=env,
    )
    # (files that do not byte-compile are skipped, as pip skips them)
    subprocess.run(
        [python, "-m", "compileall", "-q", "-j", "0", str(venv / "lib")],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    return venv / "bin" / "widefs"


def cpu_seconds_of(cmd: list[str], cwd: Path) -> float:
    """User + system CPU seconds of one process (its children included)."""
    proc = subprocess.Popen(
        cmd, cwd=cwd, env=_environment(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited with {proc.returncode}")
    return usage.ru_utime + usage.ru_stime


def first_and_second_run(wheel: Path, workdir: Path, label: str) -> tuple[float, float]:
    widefs = fresh_environment(wheel, workdir / f"venv-{label}")
    scratch = workdir / f"scratch-{label}"
    scratch.mkdir()
    first = cpu_seconds_of([str(widefs), "run", "--out", "r1"], scratch)
    second = cpu_seconds_of([str(widefs), "run", "--out", "r2"], scratch)
    return first, second


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", default="760b706", help="commit to compare with")
    parser.add_argument(
        "--baseline-seconds",
        type=float,
        default=43.0,
        help="the baseline's first run where it was first measured (default: about 43 s)",
    )
    parser.add_argument("--pairs", type=int, default=3)
    args = parser.parse_args(argv)
    if args.pairs < 1:
        parser.error("--pairs must be at least 1")

    results: dict[str, list[tuple[float, float]]] = {"checkout": [], "baseline": []}
    with tempfile.TemporaryDirectory(prefix="widefs-cold-") as tmp:
        workdir = Path(tmp)
        wheels = {
            "checkout": build_wheel(ROOT, workdir / "wheel-checkout"),
            "baseline": build_wheel(
                baseline_source(args.baseline, workdir), workdir / "wheel-baseline"
            ),
        }
        for pair in range(args.pairs):
            calib = calibration_seconds()
            order = ("checkout", "baseline") if pair % 2 == 0 else ("baseline", "checkout")
            for label in order:
                first, second = first_and_second_run(wheels[label], workdir, f"{label}-{pair}")
                results[label].append((first, second))
                print(
                    f"pair {pair + 1} (calibration {calib:.2f} s) {label:8s} "
                    f"first run {first:6.2f} s, second run {second:6.2f} s",
                    flush=True,
                )

    firsts = {label: [r[0] for r in runs] for label, runs in results.items()}
    seconds = {label: [r[1] for r in runs] for label, runs in results.items()}
    ratio = statistics.median(firsts["checkout"]) / statistics.median(firsts["baseline"])
    pair_ratios = [c / b for c, b in zip(firsts["checkout"], firsts["baseline"])]
    print()
    for label in ("checkout", "baseline"):
        print(
            f"{label:8s} first run median {statistics.median(firsts[label]):6.2f} s, "
            f"second run median {statistics.median(seconds[label]):6.2f} s"
        )
    print(
        f"first run, checkout / {args.baseline}: {ratio:.3f} (medians; pairs "
        + ", ".join(f"{r:.3f}" for r in pair_ratios)
        + ")"
    )
    print(
        f"on the machine where {args.baseline} took {args.baseline_seconds:g} s: "
        f"{args.baseline_seconds * ratio:.1f} s (pairs "
        + ", ".join(f"{args.baseline_seconds * r:.1f}" for r in pair_ratios)
        + ")"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
