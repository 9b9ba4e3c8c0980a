"""The class-difference screen on a sparse count matrix, beside f_classif on the same CSR.

A single-cell-sized matrix: 100,000 cells x 30,000 genes, float32 CSR with 5% non-zeros
(about 1.5e8 stored values, 1.2 GB), raw counts (1 + Poisson around a gamma-distributed gene
mean), two classes 50/50, 100 true genes whose counts are drawn around three times their
mean in one class (half of them in each, so that library sizes do not differ).
``ClassDifferenceScreen(counts=True)`` reads it as counts (voom, then the weighted moderated
F) a block of columns at a time, after one conversion to CSC; scikit-learn's ``f_classif``,
which accepts sparse input, is timed on the same CSR.

Each fit runs in its own fresh process that first loads the matrix and warms up on 2,000
genes: wall time, CPU time and the extra peak memory (peak resident set size minus the
resident size with the matrix loaded and the code warmed up), against the size of the dense
float32 matrix (12 GB). The matrix is generated once under ``--data`` (default
``/tmp/widefs-sparse``), a block of rows at a time. Writes the section ``sparse_screen`` of
``docs/results/benchmarks_scale.md`` (``--quick``: 10,000 x 3,000, printed only).

Usage::

    nice -n 10 python benchmarks/bench_sparse_screen.py [--quick]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _report import machine_note, write_section

DENSITY = 0.05
N_TRUE = 100
ROW_BLOCK = 5_000

CHILD = r"""
import json, resource, sys, time, warnings
import numpy as np
import scipy.sparse as sp
path, method = sys.argv[1], sys.argv[2]
X = sp.load_npz(path)
assert X.format == "csr" and X.dtype == np.float32
y = np.arange(X.shape[0]) % 2
def rss():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
warnings.simplefilter("ignore")
if method == "screen":
    from widefs.univariate import ClassDifferenceScreen
    ClassDifferenceScreen(counts=True, random_state=0).fit(X[:, :2000], y)  # imports, caches
    base = rss()
    t0, c0 = time.perf_counter(), time.process_time()
    sel = ClassDifferenceScreen(counts=True, random_state=0).fit(X, y)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    out = {"selected": np.flatnonzero(sel.get_support()).tolist(), "counts": bool(sel.counts_)}
else:
    from sklearn.feature_selection import f_classif
    f_classif(X[:, :2000], y)  # imports and first-call work, as for widefs
    base = rss()
    t0, c0 = time.perf_counter(), time.process_time()
    F, p = f_classif(X, y)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    out = {"top": np.argsort(-np.nan_to_num(F), kind="stable")[:100].tolist()}
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
out.update(wall=wall, cpu=cpu, peak=peak, base=base, nnz=int(X.nnz), shape=list(X.shape))
print(json.dumps(out))
"""


def make_counts(path: Path, n: int, m: int) -> None:
    """CSR float32 counts at about DENSITY, the first N_TRUE genes raised in one class."""
    import scipy.sparse as sp

    if path.exists():
        return
    rng = np.random.default_rng(0)
    mu = rng.gamma(0.5, 4.0, size=m)
    half = N_TRUE // 2
    mu[half:N_TRUE] = mu[:half]  # the genes up in class 0 mirror those up in class 1
    # Draws with replacement; duplicates merge, so draw enough for DENSITY distinct genes.
    draws = round(-m * np.log1p(-DENSITY))
    blocks = []
    for start in range(0, n, ROW_BLOCK):
        rows = np.arange(start, min(start + ROW_BLOCK, n))
        r = np.repeat(rows - start, draws)
        c = rng.integers(0, m, size=r.size)
        # Half the true genes up in class 1, half in class 0: equal library sizes, so the
        # other genes' counts per million do not differ between the classes.
        up = (c < N_TRUE) & (rows[r] % 2 == (c < half))
        rate = np.where(up, 3.0 * mu[c] + 1.0, mu[c])
        v = (1.0 + rng.poisson(rate)).astype(np.float32)
        blocks.append(sp.coo_matrix((v, (r, c)), shape=(rows.size, m)).tocsr())  # sums repeats
    X = sp.vstack(blocks, format="csr").astype(np.float32)
    X.indices = X.indices.astype(np.int32)
    X.indptr = X.indptr.astype(np.int64 if X.nnz > 2**31 - 1 else np.int32)
    sp.save_npz(path, X, compressed=False)


def run_child(path: Path, method: str) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(path), method], check=True, capture_output=True, text=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def section(args, runs: dict) -> str:
    s, f = runs["screen"], runs["f_classif"]
    gb = 2**30
    n, m = s["shape"]
    dense = n * m * 4
    stored = s["nnz"] * 8 + (n + 1) * 8
    found = sum(1 for j in s["selected"] if j < N_TRUE)
    top = sum(1 for j in f["top"] if j < N_TRUE)
    flags = " --quick" if args.quick else ""
    return "\n".join(
        [
            "## The class-difference screen on a sparse count matrix",
            "",
            f"Command: `nice -n 10 python benchmarks/bench_sparse_screen.py{flags}`. "
            f"{machine_note()}",
            "",
            f"{n:,} cells x {m:,} genes, float32 CSR with {s['nnz'] / (n * m):.1%} non-zeros "
            f"({s['nnz']:,} stored values, {stored / gb:.2f} GiB with their indices; dense "
            f"float32 it would be {dense / gb:.1f} GiB), raw counts, classes 50/50, "
            f"{N_TRUE} true genes (counts about three times higher in one class, half of them in "
            "each). Each fit in "
            "a fresh process after loading the CSR and warming up on 2,000 genes; the extra "
            "peak memory is the peak resident size minus the resident size at that point. "
            "`ClassDifferenceScreen(counts=True)` reads the matrix as counts (voom, then the "
            "weighted moderated F; the automatic rule also asks for a count of at least "
            "1,000, which these counts do not reach): one conversion to CSC (a copy of the "
            "stored values and indices), then dense blocks of columns, never the whole "
            "matrix. scikit-learn's `f_classif` takes the same CSR (F-statistics and "
            "p-values only, no counts model).",
            "",
            "| method | wall s | CPU s | extra peak memory (GiB) | share of the dense matrix |",
            "|---|---|---|---|---|",
            f"| widefs ClassDifferenceScreen | {s['wall']:.1f} | {s['cpu']:.1f} | "
            f"{(s['peak'] - s['base']) / gb:.2f} | {(s['peak'] - s['base']) / dense:.1%} |",
            f"| sklearn f_classif | {f['wall']:.1f} | {f['cpu']:.1f} | "
            f"{(f['peak'] - f['base']) / gb:.2f} | {(f['peak'] - f['base']) / dense:.1%} |",
            "",
            f"The screen read the matrix as counts: {s['counts']}; it selected "
            f"{len(s['selected'])} genes at q = 0.05, {found} of them true; f_classif's 100 "
            f"largest F hold {top} true genes.",
        ]
    )


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10,000 x 3,000, printed only")
    parser.add_argument("--data", type=Path, default=Path("/tmp/widefs-sparse"))
    args = parser.parse_args(argv)
    args.data.mkdir(parents=True, exist_ok=True)
    n, m = (10_000, 3_000) if args.quick else (100_000, 30_000)
    path = args.data / f"counts_{n}x{m}.npz"
    make_counts(path, n, m)
    runs = {}
    for method in ("screen", "f_classif"):
        runs[method] = run_child(path, method)
        print(method, {k: v for k, v in runs[method].items() if k not in ("selected", "top")})
    text = section(args, runs)
    print(text)
    if not args.quick:
        s = runs["screen"]
        n, m = s["shape"]
        headline = (
            f"the class-difference screen on a {n:,} x {m:,} CSR count matrix (5% non-zeros) "
            f"peaks at {(s['peak'] - s['base']) / (n * m * 4):.0%} of the dense matrix's size "
            "beyond its input"
        )
        write_section("sparse_screen", text, headline=headline)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
