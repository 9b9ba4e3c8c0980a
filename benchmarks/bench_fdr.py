"""Realized false discovery rate and power of widefs's default screen beside limma.

Regimes with known truth (``benchmarks/_simulate_fdr.py``): microarray-like data (4v4, 6v6,
10v10, 4 classes x 8), RNA-seq counts (4v4, 6v6, 10v10), spread-only differences (15 and 30
per class), location, bimodal and null regimes with Gaussian or t3 noise and correlated
blocks, and global nulls mixing kinds of features. Each replicate is seen by every method:

- widefs default: ``DiscriminativeSelector("fdr")`` (on the raw counts for RNA-seq);
- limma: inmoose's ``lmFit`` + ``eBayes``, moderated t (two classes) or F (more);
- limma-voom (counts): voom weights, a weighted fit and inmoose's ``eBayes``;
- scikit-learn ``SelectFdr(f_classif)`` (on log-CPM for counts);
- on the location/bimodal/null regimes, the paper's protocol (validation errors of
  one-feature naive Bayes; binomial or per-feature permutation p-values).

The p-values of each method are adjusted by Benjamini-Hochberg at q = 0.05 and 0.10.
Realized FDR = mean of V / max(R, 1); power = mean share of the true features selected;
+- one Monte Carlo standard error over replicates. On the mixed global nulls, each kind's
rate of p <= 1e-3 and of BH rejections per feature.

Then the chance figures of the paper protocol: expected best chance errors on imbalanced
noise, features MGM keeps on balanced noise, E[X(1)] against correlation.

Results are stored under ``docs/results/fdr/`` (CSV and JSON); ``--render-only`` rewrites
``docs/results/fdr.md`` from them, computing nothing. ``--parts`` re-measures one part and
keeps the other's stored results.

Usage::

    nice -n 10 python benchmarks/bench_fdr.py [--quick] [--replicates 50] [--jobs 2]
        [--parts fdr chance] [--render-only]
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import csv  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _limma  # noqa: E402
from _fdr_page import render  # noqa: E402
from _report import ROOT, machine_note  # noqa: E402
from _simulate_fdr import KINDS, REGIMES, Regime, make_data  # noqa: E402

from widefs.exceptions import NothingSelectedWarning  # noqa: E402
from widefs.stats import benjamini_hochberg, expected_min_errors  # noqa: E402
from widefs.univariate import DiscriminativeSelector  # noqa: E402

QS = (0.05, 0.10)
DEFAULT, LIMMA, VOOM, FTEST = "widefs default", "limma", "limma-voom", "SelectFdr(f_classif)"
PAPER_A, PAPER_P = "paper protocol, analytic", "paper protocol, permutation"
METHODS = (DEFAULT, LIMMA, VOOM, FTEST, PAPER_A, PAPER_P)
OUT = ROOT / "docs" / "results"
OLD_DEFAULT_DESCRIPTION = (
    '`DiscriminativeSelector("fdr")` with its defaults: the class-difference statistic (F of '
    "the class means and of the absolute deviations, combined as a weighted smaller p-value) "
    "with two-stage pooled permutation p-values; Benjamini-Hochberg on its p-values"
)
SCREEN_DESCRIPTION = (
    "`ClassDifferenceScreen()` with its defaults (its `alpha` set to q): per-feature p-values "
    "by kind of feature (moderated F, with the spread test from 12 per class, its share 0.5 "
    "where the pooled variance is at least twice the median and 0.02 elsewhere; exact "
    "conditional tests for two-valued features; rank statistics with permutation nulls "
    "pooled within tie strata; voom on counts) and its own Benjamini-Hochberg selection over "
    "the testable features"
)


def _screen_class():
    """The default screen: ``ClassDifferenceScreen`` where it exists, else the pooled selector."""
    try:
        from widefs.univariate import ClassDifferenceScreen
    except ImportError:
        return None
    return ClassDifferenceScreen


def default_description() -> str:
    return OLD_DEFAULT_DESCRIPTION if _screen_class() is None else SCREEN_DESCRIPTION


def methods_for(regime: Regime) -> tuple:
    """The methods run on a regime: limma-voom on counts, the paper protocol on the small ones."""
    extra = {"rnaseq": (VOOM,), "existing": (PAPER_A, PAPER_P)}.get(regime.group, ())
    return (DEFAULT, LIMMA, *extra, FTEST)


def widefs_default(X, y, seed):
    """p-values of the default screen and its selection at each q (raw counts as they are)."""
    screen = _screen_class()
    if screen is None:
        p = DiscriminativeSelector("fdr", random_state=seed).fit(X, y).pvalues_
        return p, None
    fits = {q: screen(alpha=q, random_state=seed).fit(X, y) for q in QS}
    return fits[QS[0]].pvalues_, {q: fit.get_support() for q, fit in fits.items()}


def log_cpm(counts):
    """voom's log2 counts per million, samples x genes."""
    lib = counts.sum(axis=1, keepdims=True)
    return np.log2((counts + 0.5) / (lib + 1) * 1e6)


def method_pvalues(regime: Regime, X, y, seed: int, n_permutations: int, times: dict) -> dict:
    """Each method's per-feature p-values on one replicate and, where the method selects by
    its own rule, its selection at each q (else None: Benjamini-Hochberg on the p-values);
    the time each took."""
    from sklearn.feature_selection import f_classif

    counts = regime.kind == "rnaseq"
    E = log_cpm(X) if counts else X

    def paper(null, **kw):
        sel = DiscriminativeSelector(
            "fdr", statistic="errors", null=null, cv=regime.cv, random_state=seed, **kw
        )
        return sel.fit(X, y).pvalues_

    calls = {
        DEFAULT: lambda: widefs_default(X, y, seed),
        LIMMA: lambda: (_limma.limma_pvalues(E.T, y), None),
        VOOM: lambda: (_limma.limma_voom_pvalues(X.T, y), None),
        FTEST: lambda: (f_classif(E, y)[1], None),
        PAPER_A: lambda: (paper("analytic"), None),
        PAPER_P: lambda: (paper("permutation", n_permutations=n_permutations), None),
    }
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for method in methods_for(regime):
            t0 = time.perf_counter()
            p, selections = calls[method]()
            p = np.nan_to_num(np.asarray(p, dtype=float), nan=1.0)
            if selections is None:
                adjusted = benjamini_hochberg(p)
                selections = {q: adjusted <= q for q in QS}
            out[method] = (p, selections)
            times[method] = time.perf_counter() - t0
    return out


def one_replicate(index: int, seed: int, n_permutations: int):
    """Records of one replicate of regime ``index``: per (method, q), and per kind on mixed nulls."""
    regime = REGIMES[index]
    X, y, truth = make_data(regime, seed)
    mixed = regime.kind == "mixed"
    kind, truth = (truth, np.zeros(truth.size, bool)) if mixed else (None, truth)
    times: dict = {}
    cells, kinds = {}, {}
    for method, (p, selections) in method_pvalues(
        regime, X, y, seed, n_permutations, times
    ).items():
        if mixed:
            kinds[method] = [
                (
                    float(np.mean(p[kind == k] <= 1e-3)),
                    *(float(np.mean(selections[q][kind == k])) for q in QS),
                )
                for k in range(len(KINDS))
            ]
        for q in QS:
            selected = selections[q]
            fdp = (selected & ~truth).sum() / max(selected.sum(), 1)
            power = (selected & truth).sum() / truth.sum() if truth.any() else np.nan
            cells[method, q] = (fdp, power)
    return index, cells, kinds, times


def _mean_se(values):
    values = np.asarray(values, dtype=float)
    if values.size == 0 or np.isnan(values).all():
        return float("nan"), float("nan")
    se = values.std(ddof=1) / np.sqrt(values.size) if values.size > 1 else 0.0
    return float(values.mean()), float(se)


def summarize(results) -> tuple[list, list, dict]:
    """Rows of the cells and kinds tables, and the median seconds per method and group."""
    fdp, power, kinds, times = {}, {}, {}, {}
    for index, cells, kind_rows, t in results:
        for (method, q), (f, p) in cells.items():
            fdp.setdefault((index, method, q), []).append(f)
            power.setdefault((index, method, q), []).append(p)
        for method, rows in kind_rows.items():
            kinds.setdefault((index, method), []).append(rows)
        for method, s in t.items():
            times.setdefault((REGIMES[index].group, method), []).append(s)
    cell_rows = []
    for (index, method, q), f in fdp.items():
        fm, fs = _mean_se(f)
        pm, ps = _mean_se(power[index, method, q])
        cell_rows.append(
            dict(
                regime=REGIMES[index].label,
                method=method,
                q=q,
                replicates=len(f),
                fdr=fm,
                fdr_se=fs,
                power=pm,
                power_se=ps,
            )
        )
    kind_rows = []
    for (index, method), reps in kinds.items():
        arr = np.asarray(reps)  # replicates x kinds x (p001, bh per q)
        for k, name in enumerate(KINDS):
            row = dict(
                regime=REGIMES[index].label,
                method=method,
                kind=name,
                features=REGIMES[index].kind_sizes[k],
                replicates=arr.shape[0],
            )
            for j, col in enumerate(("p001", "bh05", "bh10")):
                row[col], row[col + "_se"] = _mean_se(arr[:, k, j])
            kind_rows.append(row)
    seconds = {f"{g}|{m}": float(np.median(s)) for (g, m), s in times.items()}
    return cell_rows, kind_rows, seconds


def fdr_part(replicates: int, n_permutations: int, jobs: int, log) -> tuple:
    from joblib import Parallel, delayed

    # The 10,000-gene regimes first, so the two workers finish together.
    order = sorted(range(len(REGIMES)), key=lambda i: -REGIMES[i].n_features)
    tasks = [(i, seed) for i in order for seed in range(replicates)]
    results = []
    gen = Parallel(n_jobs=jobs, return_as="generator")(
        delayed(one_replicate)(i, seed, n_permutations) for i, seed in tasks
    )
    for done, result in enumerate(gen, start=1):
        results.append(result)
        if done % 50 == 0:
            log(f"{done}/{len(tasks)} replicates")
    return summarize(results)


def self_check_part() -> dict:
    """The limma path against the independent moderated statistics, on one replicate each."""
    by = {r.label: r for r in REGIMES}
    E, y, _ = make_data(by["microarray 4v4"], 0)
    Em, ym, _ = make_data(by["microarray 4 classes x 8"], 0)
    C, yc, _ = make_data(by["RNA-seq 6v6"], 0)
    return _limma.self_check(E.T, y, Em.T, ym, C.T, yc)


# --- the paper protocol's chance figures -----------------------------------------------


def _noise_data(classes, n_features, seed):
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(len(classes)), classes)
    return rng.standard_normal((y.size, n_features)), y


def chance_part(seeds: int, fresh: int, log) -> list[dict]:
    """Shown expected best chance errors vs the mean best errors of fresh noise data sets."""
    rows = []
    for classes in ((48, 12), (40, 15, 5)):
        for s in range(seeds):
            X, y = _noise_data(classes, 2000, seed=s)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", NothingSelectedWarning)
                sel = DiscriminativeSelector(random_state=s).fit(X, y)
                best = [
                    DiscriminativeSelector(
                        "all", statistic="errors", null="analytic", random_state=k
                    )
                    .fit(*_noise_data(classes, 2000, seed=10_000 + 100 * s + k))
                    .n_errors_.min()
                    for k in range(fresh)
                ]
            rows.append(
                dict(
                    classes=list(classes),
                    seed=s,
                    null=sel.null_,
                    shown=float(sel.expected_min_errors_),
                    analytic=float(sel.chance_nulls_["analytic"].expected_min_errors),
                    fresh=float(np.mean(best)),
                    fresh_se=float(np.std(best, ddof=1) / np.sqrt(fresh)),
                )
            )
            log(f"chance {classes} seed {s}: shown {rows[-1]['shown']:.2f}")
    return rows


def mgm_noise_part(datasets: int) -> dict:
    """Features MGM keeps on balanced pure noise (30/30, 2000 features), by null."""
    kept = {"analytic": [], "permutation": []}
    for d in range(datasets):
        X, y = _noise_data((30, 30), 2000, seed=30_000 + d)
        for null in kept:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", NothingSelectedWarning)
                sel = DiscriminativeSelector(null=null, n_permutations=200, random_state=d)
                kept[null].append(int(sel.fit(X, y).get_support().sum()))
    return kept


def _min_errors_row(classes, rho, datasets, relabellings, n_permutations):
    regime = Regime("", "existing", classes, 1000, 0, "null", rho=rho)
    perm_e, emp_e, analytic_e = [], [], []
    for d in range(datasets):
        X, y, _ = make_data(regime, seed=10_000 + d)
        sel = DiscriminativeSelector(
            "all",
            statistic="errors",
            null="permutation",
            n_permutations=n_permutations,
            random_state=d,
        ).fit(X, y)
        rng = np.random.default_rng(20_000 + d)
        minima = [
            DiscriminativeSelector("all", statistic="errors", null="analytic", random_state=k)
            .fit(X, rng.permutation(y))
            .n_errors_.min()
            for k in range(relabellings)
        ]
        perm_e.append(sel.expected_min_errors_)
        emp_e.append(np.mean(minima))
        analytic_e.append(
            float(expected_min_errors(sel.n_scored_, sel.n_validation_, sel.p_error_))
        )
    perm_e, emp_e, analytic_e = map(np.array, (perm_e, emp_e, analytic_e))
    gap = np.abs(perm_e - emp_e)
    return dict(
        classes=list(classes),
        rho=rho,
        analytic=analytic_e.mean(),
        permutation=perm_e.mean(),
        empirical=emp_e.mean(),
        perm_gap_mean=gap.mean(),
        perm_gap_max=gap.max(),
        analytic_gap=(analytic_e - emp_e).mean(),
        empirical_se=emp_e.std(ddof=1) / np.sqrt(datasets) if datasets > 1 else 0.0,
    )


def min_errors_part(rhos, datasets, relabellings, n_permutations, log) -> list[dict]:
    """Analytic and permutation E[X_(1)] vs the mean minimum errors of relabelled refits."""
    rows = []
    for classes in ((30, 30), (48, 12)):
        for rho in rhos:
            row = _min_errors_row(classes, rho, datasets, relabellings, n_permutations)
            rows.append(
                {k: (float(v) if isinstance(v, np.floating) else v) for k, v in row.items()}
            )
            log(f"E[X(1)] {classes} rho={rho}: permutation {row['permutation']:.2f}")
    return rows


def plot_min_errors(rows, path: Path) -> None:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(9, 3.6), layout="constrained")
    axes = fig.subplots(1, 2, sharey=False)
    for ax, classes in zip(axes, ([30, 30], [48, 12]), strict=True):
        sub = [r for r in rows if r["classes"] == classes]
        rho = [r["rho"] for r in sub]
        ax.plot(rho, [r["analytic"] for r in sub], "s--", label="analytic (Theorem 4.1)")
        ax.plot(rho, [r["permutation"] for r in sub], "o-", label="permutation null")
        ax.errorbar(
            rho,
            [r["empirical"] for r in sub],
            yerr=[2 * r["empirical_se"] for r in sub],
            fmt="k^:",
            capsize=3,
            label="mean min errors, relabelled refits",
        )
        ax.set_xlabel("within-block correlation (blocks of 50)")
        ax.set_ylabel("E[X(1)] (validation errors)")
        ax.set_title(f"pure noise, 60 x 1000, classes {classes[0]}/{classes[1]}", fontsize="small")
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize="small")
    fig.savefig(path, dpi=110)


# --- stored results -----------------------------------------------------------------------


def write_csv(path: Path, rows: list[dict]) -> None:
    with open(path, "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        for row in rows:
            writer.writerow(
                {k: (f"{v:.6g}" if isinstance(v, float) else v) for k, v in row.items()}
            )


def read_csv(path: Path) -> list[dict]:
    """Rows with numbers parsed (every field but the names is numeric)."""
    text = {"regime", "method", "kind"}
    with open(path, newline="") as fh:
        return [
            {k: (v if k in text else float(v)) for k, v in row.items()}
            for row in csv.DictReader(fh)
        ]


def store(data: Path, parts: dict) -> None:
    data.mkdir(parents=True, exist_ok=True)
    run = json.loads((data / "run.json").read_text()) if (data / "run.json").exists() else {}
    if "fdr" in parts:
        fdr = dict(parts["fdr"])
        write_csv(data / "cells.csv", fdr.pop("cells"))
        write_csv(data / "kinds.csv", fdr.pop("kinds"))
        run["fdr"] = fdr
    if "chance" in parts:
        run["chance"] = parts["chance"]
    (data / "run.json").write_text(json.dumps(run, indent=1, sort_keys=True) + "\n")


def load(data: Path) -> dict:
    run = json.loads((data / "run.json").read_text())
    if "fdr" in run:
        run["fdr"]["cells"] = read_csv(data / "cells.csv")
        run["fdr"]["kinds"] = read_csv(data / "kinds.csv")
    return run


def command_line(args, part: str) -> str:
    cmd = "nice -n 10 python benchmarks/bench_fdr.py"
    cmd += " --quick" if args.quick else ""
    cmd += f" --replicates {args.replicates}" if args.replicates else ""
    cmd += f" --permutations {args.permutations}" if args.permutations != 1000 else ""
    cmd += f" --jobs {args.jobs}" if args.jobs != 1 else ""
    cmd += f" --parts {part}" if args.parts != ["fdr", "chance"] else ""
    return cmd


def run_parts(args, log) -> dict:
    parts = {}
    quick = args.quick
    if "fdr" in args.parts:
        replicates = args.replicates or (2 if quick else 50)
        check = self_check_part()
        log(f"self-check: {check}")
        cells, kinds, seconds = fdr_part(replicates, args.permutations, args.jobs, log)
        parts["fdr"] = dict(
            command=command_line(args, "fdr"),
            machine=machine_note(),
            replicates=replicates,
            permutations=args.permutations,
            self_check=check,
            seconds=seconds,
            default=default_description(),
            cells=cells,
            kinds=kinds,
        )
    if "chance" in args.parts:
        rhos = (0.0, 0.8) if quick else (0.0, 0.4, 0.6, 0.8, 0.95)
        min_rows = min_errors_part(
            rhos, 1 if quick else 5, 5 if quick else 30, 200 if quick else args.permutations, log
        )
        parts["chance"] = dict(
            command=command_line(args, "chance"),
            machine=machine_note(),
            chance=chance_part(2 if quick else 5, 5 if quick else 30, log),
            kept=mgm_noise_part(2 if quick else 20),
            min_errors=min_rows,
        )
    return parts


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a few replicates, a scratch folder")
    parser.add_argument("--replicates", type=int, default=None)
    parser.add_argument("--permutations", type=int, default=1000)
    parser.add_argument("--jobs", type=int, default=1, help="replicates run in parallel")
    parser.add_argument("--parts", nargs="+", choices=("fdr", "chance"), default=["fdr", "chance"])
    parser.add_argument("--render-only", action="store_true", help="the page from stored results")
    parser.add_argument("--out", type=Path, default=OUT, help="folder of fdr.md and fdr/")
    args = parser.parse_args(argv)
    t_start = time.perf_counter()

    def log(message):
        print(f"[{time.perf_counter() - t_start:7.0f} s] {message}", flush=True)

    if args.quick and args.out == OUT:  # a quick run never overwrites the stored results
        import tempfile

        args.out = Path(tempfile.mkdtemp(prefix="bench_fdr_"))
    data = args.out / "fdr"
    if not args.render_only:
        parts = run_parts(args, log)
        store(data, parts)
        if "chance" in parts:
            plot_min_errors(parts["chance"]["min_errors"], args.out / "fdr_min_errors.png")
    text = render(load(data))
    (args.out / "fdr.md").write_text(text)
    print(text)
    log("done")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
