"""Set Covering Machines on presence/absence data: 200 genomes x 10,000,000 k-mers.

The synthetic k-mer task of ``benchmarks/_kmers.py`` (two planted genes of 31 k-mers each in
runs of equivalent k-mers) is written chunk-wise to a zarr store (about 370 MB, never a dense
copy in memory); then, each fit in a fresh subprocess so that its peak resident memory
(``ru_maxrss`` of the process and its children) is its own:

- the three machines on all 10^7 k-mers, read from the store and packed in bits;
- the float path (``widefs.scm._bitpacked.float_path``: the out-of-core float engines) on
  slices of 10^5, 10^6 and 2.5 x 10^6 k-mers of the same store (starting at the storage
  chunk 50,000 k-mers or more before gene A), beside the packed path on the same slices, with every stump the greedy
  learns (``select="none"``) compared on each slice.

Writes the section ``scm_presence`` of docs/results/benchmarks.md (time and memory) and the
section ``kmer_task`` of docs/results/scm_multiclass.md (rules and equivalence groups).

Usage::

    nice -n 10 python benchmarks/bench_scm_presence.py [--store DIR] [--quick]

``--store PATH`` keeps the zarr store there (reused when present: the data are a
deterministic function of the seed); by default it goes to a temporary directory.
``--quick`` uses 10^6 k-mers (and slices of 10^5) and writes nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import _kmers  # noqa: E402
from _report import write_section  # noqa: E402

CHILD = r"""
import json, os, resource, sys, time, warnings
import numpy as np
import dask.array as da
import zarr
from widefs.scm import OccamSCM, PACBayesSCM, SampleCompressionSCM
from widefs.scm._bitpacked import float_path
path, start, n, machine, mode, select, p = sys.argv[1:8]
start, n = int(start), int(n)
group = zarr.open_group(path, mode="r")
X = group["X"] if n == group["X"].shape[1] else da.from_zarr(group["X"])[:, start : start + n]
y = np.array([str(v) for v in group["class"][:]])
make = {
    "sample-compression": lambda: SampleCompressionSCM(select=select, p=float(p)),
    "Occam": lambda: OccamSCM(feature_range=(0.0, 1.0), select=select),
    "PAC-Bayes": lambda: PACBayesSCM(feature_range=(0.0, 1.0), select=select),
}[machine]
load0 = os.getloadavg()[0]
t0, c0 = time.perf_counter(), time.process_time()
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    if mode == "float":
        with float_path():
            model = make().fit(X, y)
    else:
        model = make().fit(X, y)
seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
peak = max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
           resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
print(json.dumps({
    "load": (load0 + os.getloadavg()[0]) / 2,
    "seconds": seconds, "cpu_seconds": cpu, "peak_mb": peak / 1024,
    "rules": [str(r) for r in model.rules_],
    "features": [start + int(r.feature) for r in model.rules_],
    "equivalent": [[start + int(g) for g, _ in r.equivalent] for r in model.rules_],
    "risk_bound": float(model.risk_bound_),
    "training_risk": float(getattr(model, model._training_risk_attribute)),
}))
"""

MACHINES = ("sample-compression", "Occam", "PAC-Bayes")
# Sample compression again with p = 3: with p = 1 it prefers a rare noise k-mer whose
# absence covers more negatives (see the text); pyscm-ml's users tune p by cross-validation.
FULL_RUNS = (*((m, 1.0) for m in MACHINES), ("sample-compression", 3.0))


def _fit(store: Path, n: int, machine: str, mode: str, start=0, select="bound", p=1.0) -> dict:
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    args = [str(store), str(start), str(n), machine, mode, select, str(p)]
    out = subprocess.run(
        [sys.executable, "-c", CHILD, *args],
        capture_output=True, text=True, env=env, check=True,
    )  # fmt: skip
    return json.loads(out.stdout.strip().splitlines()[-1])


def _store(store: Path, n: int) -> float:
    """Write the store unless it is there; the seconds its writing took (kept beside it)."""
    stamp = store / "widefs-bench.json"
    if not (store / "X").exists():
        t0 = time.perf_counter()
        _kmers.write_store(store, n_kmers=n)
        stamp.write_text(json.dumps({"seconds": time.perf_counter() - t0}))
    return json.loads(stamp.read_text())["seconds"]


def _timing_markdown(full, slices, n: int, write_s: float, cpus: int) -> str:
    """The compact section of docs/results/benchmarks.md: time and memory of every fit."""
    lines = [
        "## Set Covering Machines on presence/absence data (200 x 10^7 k-mers)",
        "",
        "`nice -n 10 python benchmarks/bench_scm_presence.py`: the synthetic k-mer task of "
        f"`benchmarks/_kmers.py` ({_kmers.N_SAMPLES} genomes x {n:,} k-mers) in a zarr store "
        f"(written in {write_s:.0f} s). Each fit in a fresh process on {cpus} "
        f"cores ({platform.machine()}, Python {platform.python_version()}): time = wall clock "
        "including reading and packing the store; CPU = over all threads; peak = resident "
        "memory of the process tree; load = the 1-minute load average meanwhile. Float = the "
        "out-of-core float engines on slices of the same store. Rules: "
        "[scm_multiclass.md](scm_multiclass.md).",
        "",
        "| learner | k-mers | path | time (s) | CPU (s) | peak (MB) | load | stumps | bound |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in full + slices:
        lines.append(
            f"| {r['machine']} | {r['n']:,} | {r['mode']} | {r['seconds']:.1f} | "
            f"{r['cpu_seconds']:.1f} | {r['peak_mb']:.0f} | {r['load']:.1f} | {len(r['rules'])} | "
            f"{r['risk_bound']:.3f} |"
        )
    same = all(
        a["rules"] == b["rules"]
        for a in slices
        for b in slices
        if a["machine"] == b["machine"] and a["n"] == b["n"]
    )
    lines += [
        "",
        "Packed and float paths learn the same stumps on every slice (every stump the greedy "
        f'adds, `select="none"`; slices start at gene A\'s storage chunk): **{same}**.',
    ]
    return "\n".join(lines) + "\n"


def _kmer_markdown(full, n: int) -> str:
    """The k-mer section of docs/results/scm_multiclass.md: rules and equivalence groups."""
    lines = [
        "## A synthetic k-mer task: planted genes among 10^7 k-mers",
        "",
        "`nice -n 10 python benchmarks/bench_scm_presence.py`: "
        f"{_kmers.N_SAMPLES} genomes x {n:,} k-mers (`benchmarks/_kmers.py`): neighbouring "
        "k-mers of a locus are present together (runs of 1 to 8 identical columns), two "
        f"genes of {_kmers.GENE_KMERS} k-mers each are planted, and a genome is resistant "
        "where gene A is present and gene B absent (5% of labels flipped). Each learner is "
        "fitted on all k-mers, packed in bits (time and memory: "
        "[benchmarks at scale](benchmarks_scale.md)); each rule is shown with the k-mers equivalent to it "
        "on the training genomes (the same split of the 200 genomes) and the planted gene "
        "they belong to.",
        "",
        "| learner | rule | equivalent k-mers | planted gene | bound |",
        "|---|---|---|---|---|",
    ]
    for r in full:
        for rule, f, eq in zip(r["rules"], r["features"], r["equivalent"], strict=True):
            genes = sorted({g for g in (_kmers.gene_of(k, n) for k in [f, *eq]) if g})
            group = f"{len(eq)} (x{min([f, *eq])} .. x{max([f, *eq])})" if eq else "0"
            lines.append(
                f"| {r['machine']} | `{rule}` | {group} | {', '.join(genes) or 'none (noise)'} | "
                f"{r['risk_bound']:.3f} |"
            )
    noisy = [r["machine"] for r in full if any(_kmers.gene_of(f, n) is None for f in r["features"])]
    if noisy:
        lines += [
            "",
            f"Rules on noise k-mers ({', '.join(noisy)}): the sample-compression utility "
            "|Q| - p|R| with p = 1 prefers a rare k-mer whose absence covers more negatives, "
            "at the cost of many positives, over a gene that covers fewer negatives cleanly; "
            "its bound says so. The normalised utilities of Occam and PAC-Bayes weigh the "
            "positives by their share and find both genes, each with its 30 other k-mers, as "
            "sample compression does with p = 3.",
        ]
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", type=Path, default=None, help="the zarr store (kept, reused)")
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    n = 1_000_000 if args.quick else _kmers.N_KMERS
    sizes = [100_000] if args.quick else [100_000, 1_000_000, 2_500_000]
    with tempfile.TemporaryDirectory() as tmp:
        store = args.store or Path(tmp) / "kmers.zarr"
        write_s = _store(store, n)
        full = []
        for mach, p in FULL_RUNS:
            name = mach if p == 1.0 else f"{mach} (p = {p:g})"
            res = _fit(store, n, mach, "packed", p=p)
            full.append({"machine": name, "n": n, "mode": "packed", **res})
            print(json.dumps(full[-1])[:300], flush=True)
        slices = []
        # Slices start at a storage chunk, 50,000 k-mers or more before gene A.
        start = (_kmers.gene_starts(n)["A"] - 50_000) // _kmers.CHUNK * _kmers.CHUNK
        for size in sizes:
            machines = MACHINES if size == sizes[0] else MACHINES[:1]
            for mach in machines:
                for mode in ("packed", "float"):
                    res = _fit(store, size, mach, mode, start=start, select="none")
                    slices.append({"machine": mach, "n": size, "mode": mode, **res})
                    print(
                        mach,
                        size,
                        mode,
                        f"{res['seconds']:.1f}s",
                        f"{res['peak_mb']:.0f}MB",
                        flush=True,
                    )
    timing = _timing_markdown(full, slices, n, write_s, len(os.sched_getaffinity(0)))
    kmers = _kmer_markdown(full, n)
    print(timing, kmers, sep="\n")
    if not args.quick:
        cpu = [r["cpu_seconds"] for r in full]
        headline = (
            f"Set Covering Machines fit {_kmers.N_SAMPLES} genomes x {n:,} k-mers in "
            f"{min(cpu):.0f}-{max(cpu):.0f} CPU seconds and at most "
            f"{max(r['peak_mb'] for r in full) / 1024:.1f} GB"
        )
        write_section("scm_presence", timing, headline=headline)
        from scm_multiclass import write_page_section

        planted = sum(all(_kmers.gene_of(f, n) for f in r["features"]) for r in full)
        write_page_section(
            "kmer_task",
            kmers,
            f"on a synthetic k-mer task the rules of {planted} of {len(full)} learners lie on the "
            "planted genes, each rule with its equivalent k-mers",
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
