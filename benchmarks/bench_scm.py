"""SampleCompressionSCM (widefs) against pyscm-ml's SetCoveringMachineClassifier.

Both fit the same saved data in separate processes (so peak memory is measured per side);
the script checks that they learn the same rules and records times and memory with
``write_section("scm", ...)``. pyscm-ml needs numpy < 2, so it runs in its own venv, which
this script creates when missing (``--venv``; needs PyPI access and a C++ compiler).

Usage::

    nice python benchmarks/bench_scm.py                   # 72x7129, 200x20000, 1000x100000
    python benchmarks/bench_scm.py --sizes 72x7129 --no-write
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _report import machine_note, write_section

HERE = Path(__file__).resolve().parent
WORKER = HERE / "bench_scm_worker.py"
PYSCM_REQUIREMENTS = [
    "numpy<2",
    "scipy<1.14",
    "scikit-learn<1.6",
    "six",
    "wheel",
    "setuptools<70",
]
PYSCM_VERSION = "1.1.2"


def ensure_pyscm_venv(venv: Path) -> Path:
    """Create ``venv`` with pyscm-ml (numpy 1.x) unless it already imports pyscm."""
    python = venv / "bin" / "python"
    if python.exists():
        ok = subprocess.run([str(python), "-c", "import pyscm"], capture_output=True)
        if ok.returncode == 0:
            return python
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    pip = [str(python), "-m", "pip", "install", "-q"]
    subprocess.run([*pip, *PYSCM_REQUIREMENTS], check=True)
    # Its setup.py imports numpy at build time: build against the venv's numpy 1.x.
    subprocess.run([*pip, "--no-build-isolation", f"pyscm-ml=={PYSCM_VERSION}"], check=True)
    return python


def make_data(m: int, n: int, seed: int, out: Path) -> None:
    """Microarray-like integer-valued data with a planted 2-gene conjunction and 10% label noise."""
    rng = np.random.default_rng(seed)
    X = np.empty((m, n))
    for start in range(0, n, 10000):  # fill in blocks to keep the temporary small
        stop = min(start + 10000, n)
        X[:, start:stop] = np.round(rng.normal(size=(m, stop - start)) * 1000.0)
    y = ((X[:, 0] > -300) & (X[:, 1] < 500)) ^ (rng.random(m) < 0.1)
    np.save(out / "X.npy", X)
    np.save(out / "y.npy", y.astype(np.int64))


def run_side(python: str, lib: str, data: Path, p: float, max_rules: int, repeat: int) -> dict:
    cmd = [
        python,
        str(WORKER),
        "--lib",
        lib,
        "--data",
        str(data),
        "--p",
        str(p),
        "--max-rules",
        str(max_rules),
        "--repeat",
        str(repeat),
    ]
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0:
        raise RuntimeError(f"{lib} worker failed:\n{res.stderr}")
    return json.loads(res.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="72x7129,200x20000,1000x100000")
    ap.add_argument("--p", default="1.0,2.0", help="comma-separated values of p")
    ap.add_argument("--max-rules", type=int, default=10)
    ap.add_argument("--repeat", type=int, default=3, help="timed fits per side (median)")
    ap.add_argument("--venv", default="/work/venvs/pyscm", help="venv holding pyscm-ml")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-write", action="store_true", help="print only; keep the results page")
    args = ap.parse_args(argv)
    pyscm_python = ensure_pyscm_venv(Path(args.venv))
    ps = [float(v) for v in args.p.split(",")]
    rows, all_same = [], True
    for size in args.sizes.split(","):
        m, n = (int(v) for v in size.lower().split("x"))
        with tempfile.TemporaryDirectory(prefix="bench_scm_") as tmp:
            make_data(m, n, args.seed, Path(tmp))
            for p in ps:
                ours = run_side(sys.executable, "widefs", Path(tmp), p, args.max_rules, args.repeat)
                peer = run_side(
                    str(pyscm_python), "pyscm", Path(tmp), p, args.max_rules, args.repeat
                )
                same = ours["rules"] == peer["rules"]
                all_same &= same
                row = {
                    "size": f"{m} x {n}",
                    "p": p,
                    "rules": len(ours["rules"]),
                    "same": same,
                    "t_widefs": ours["median"],
                    "t_pyscm": peer["median"],
                    "speedup": peer["median"] / ours["median"],
                    "peak_widefs": ours["fit_peak_mb"],
                    "peak_pyscm": peer["fit_peak_mb"],
                    "extra_widefs": ours["fit_extra_mb"],
                    "extra_pyscm": peer["fit_extra_mb"],
                    "threads": ours["threads"],
                }
                rows.append(row)
                print(
                    f"{row['size']:>14}  p={p:<4g} rules={row['rules']:<2d} same={same}  "
                    f"widefs {row['t_widefs']:.3f}s  pyscm {row['t_pyscm']:.3f}s  "
                    f"x{row['speedup']:.1f}  peak MB {row['peak_widefs']:.0f} vs "
                    f"{row['peak_pyscm']:.0f} (fit extra {row['extra_widefs']:.0f} vs "
                    f"{row['extra_pyscm']:.0f})",
                    flush=True,
                )
    cmd = "nice python benchmarks/bench_scm.py " + " ".join(argv or sys.argv[1:])
    lines = [
        "## Set Covering Machine: widefs `SampleCompressionSCM` vs pyscm-ml "
        f"{PYSCM_VERSION} `SetCoveringMachineClassifier`",
        "",
        f"Command: `{cmd.strip()}`. {machine_note()}",
        "",
        "Synthetic microarray-like data (integer values, round(1000 x normal), like Affymetrix intensities; planted conjunction of "
        f"two features, 10% label noise, seed {args.seed}), saved once and fitted by each "
        f"library in its own process; `max_rules={args.max_rules}`, `select='none'`, "
        f"median of {args.repeat} fits. pyscm is single-threaded; widefs's scan and presort "
        f"run over features on {rows[0]['threads'] if rows else '?'} numba thread(s) "
        "(`NUMBA_NUM_THREADS`). Peak RSS = highest resident memory "
        "during the first timed fit (VmHWM reset before it; includes the loaded data and the "
        "libraries), extra = that peak minus the RSS just before the fit.",
        "",
        "| data (m x n) | p | rules | same rules | widefs s | pyscm s | speed-up | "
        "peak RSS widefs MB | peak RSS pyscm MB | extra widefs MB | extra pyscm MB |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['size']} | {r['p']:g} | {r['rules']} | {'yes' if r['same'] else 'NO'} | "
            f"{r['t_widefs']:.3f} | {r['t_pyscm']:.3f} | {r['speedup']:.1f}x | "
            f"{r['peak_widefs']:.0f} | {r['peak_pyscm']:.0f} | {r['extra_widefs']:.0f} | "
            f"{r['extra_pyscm']:.0f} |"
        )
    lines += [
        "",
        "Both learn one stump per step with utility |Q| - p|R| over all features, both "
        "directions and thresholds at training values, with the same tie order (utility, then "
        "training-error decrease, then lowest feature index, then smallest threshold). pyscm may "
        "put several stumps on one feature, so widefs runs with `feature_reuse=True` here (its "
        "default is the paper's one stump per attribute). pyscm copies X and its argsort at every "
        "step and reads X with a stride of n features; widefs presorts once into a "
        "feature-major int32/float64 layout and streams it with a numba kernel, compacting "
        "removed examples lazily.",
    ]
    missed = [f"{r['size']} (p={r['p']:g}: {r['speedup']:.1f}x)" for r in rows if r["speedup"] < 3]
    heavier = [r["size"] for r in rows if r["peak_widefs"] >= r["peak_pyscm"]]
    lines += [
        "",
        "Targets (same rules, >= 3x faster, lower peak memory at every size): "
        + ("rules identical in every row; " if all_same else "rules DIFFER in some rows; ")
        + (
            "speed-up below 3x at " + ", ".join(missed) + "; "
            if missed
            else "at least 3x faster everywhere; "
        )
        + (
            "peak RSS not lower at " + ", ".join(sorted(set(heavier))) + "."
            if heavier
            else "lower peak RSS everywhere."
        ),
        "Where the time goes: per greedy step both libraries stream every (feature, example) "
        "entry once; pyscm's C++ loop costs about 10 ns per entry plus copies of X and its "
        "argsort, widefs's numba kernel about 3-6 ns (value ties make its cut test "
        "unpredictable). At 72 x 7129 and 200 x 20000 a fit is 2-6 steps and the one-off "
        "presort (packed-key integer sort, about as fast as numpy's argsort that pyscm uses) is "
        "a large share, so the gain there is 1.4-2x; at 1000 x 100000 the per-step copies and "
        "strided reads of pyscm dominate. widefs's extra process memory at small sizes is "
        "numba/LLVM (about 170 MB resident once loaded); the memory used by the fit itself "
        "(extra column) is the same or lower: int32 order + float64 values instead of pyscm's "
        "int64 argsort plus per-step copies of X and the argsort.",
    ]
    if not args.no_write:
        write_section("scm", "\n".join(lines))
    return 0 if all_same else 1


if __name__ == "__main__":
    raise SystemExit(main())
