"""Study designs: widefs's design-aware screen beside limma with the same design.

Four simulated designs, each replicate seen by every method, Benjamini-Hochberg at q = 0.05:

- (a) batches confounded with the classes (12 cases + 4 controls in batch A, the reverse in
  batch B), a batch effect on 10 % of the genes, no class effect;
- (b) the same with a class effect on 5 % of the genes;
- (c) 10 subjects measured in both conditions (a subject effect on every gene), a condition
  effect on 5 % of the genes;
- (d) 12 patients x 3 samples (6 patients per class, a patient effect on every gene), no
  class effect; plus nested accuracy of a small pipeline and search-certificate p-values.

Methods: widefs's screen with the design (``ClassDifferenceScreen().fit(X, y, covariates=...)``
or ``groups=``, its ``pvalues_``); limma (inmoose's ``lmFit`` + ``eBayes``) with the same
design (batch as a covariate, subject as a blocking factor, patient means for (d): inmoose
has no ``duplicateCorrelation``); the screen ignoring the design (``.fit(X, y)``). Realized
FDR = mean of
V / max(R, 1); power = mean share of the true genes selected; +- one Monte Carlo SE.

Writes ``docs/results/designs.md`` and its data ``docs/results/designs.json``; with
``--render-only`` renders the page from the stored data alone.

Usage::

    nice -n 10 python benchmarks/bench_designs.py [--replicates 200] [--certificates 400] [--genes 2000]
    python benchmarks/bench_designs.py --render-only
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "results" / "designs.md"
DATA = PAGE.with_suffix(".json")
Q = 0.05
METHODS = ("widefs, design given", "limma, same design", "widefs, design ignored")
#: Nested evaluations of (d): (outer folds, groups given). With 6 folds every test fold
#: holds one patient of each class; with 4 it holds 2 of one class and 1 of the other.
NESTED = {
    "groups given, cv=6": (6, True),
    "groups ignored, cv=6": (6, False),
    "groups given, cv=4": (4, True),
    "groups ignored, cv=4": (4, False),
}
CELLS = {
    "a": "(a) batch confounded with class, no class effect",
    "b": "(b) batch confounded with class, class effect",
    "c": "(c) 10 subjects x 2 conditions (paired)",
    "d": "(d) 12 patients x 3 samples, no class effect",
}


def bh(p, q=Q) -> np.ndarray:
    from widefs.stats import benjamini_hochberg

    return benjamini_hochberg(p) <= q


def limma_pvalues(X, D, coef) -> np.ndarray:
    """limma's moderated t p-values of column ``coef`` of the design ``D`` (inmoose)."""
    import pandas as pd
    from inmoose.limma import eBayes, lmFit, squeezeVar
    from scipy.stats import t as student_t

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        names = [f"c{j}" for j in range(D.shape[1])]
        fit = lmFit(pd.DataFrame(X.T), pd.DataFrame(D, columns=names))
        try:
            return np.asarray(eBayes(fit).p_value)[:, coef]
        except KeyError:
            # inmoose's B-statistic fails when the prior df is infinite (pure noise), after
            # its p-values are computed: the same steps, from limma's squeezeVar.
            sq = squeezeVar(np.asarray(fit.sigma) ** 2, np.asarray(fit.df_residual))
    tstat = np.asarray(fit.coefficients)[:, coef] / np.asarray(fit.stdev_unscaled)[:, coef]
    tstat /= np.sqrt(np.asarray(sq["var_post"]))
    df = np.minimum(np.asarray(fit.df_residual) + sq["df_prior"], np.sum(fit.df_residual))
    return 2 * student_t.cdf(-np.abs(tstat), df)


def screen_pvalues(X, y, **design) -> np.ndarray:
    """The class-difference screen's p-values, with the design given in ``design`` (or none)."""
    from widefs.exceptions import NothingSelectedWarning
    from widefs.univariate import ClassDifferenceScreen

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NothingSelectedWarning)
        return ClassDifferenceScreen(random_state=0).fit(X, y, **design).pvalues_


def _batch_data(rng, genes, class_effect):
    y = np.repeat([1, 0, 1, 0], [12, 4, 4, 12])
    batch = np.repeat([0, 1], 16)
    X = rng.normal(size=(32, genes))
    X[:, : genes // 10] += 1.5 * batch[:, None]  # batch genes
    true = np.zeros(genes, bool)
    if class_effect:
        true[-genes // 20 :] = True
        X[:, true] += class_effect * y[:, None]
    return X, y, batch, true


def cell_batch(rng, genes, class_effect):
    X, y, batch, true = _batch_data(rng, genes, class_effect)
    D = np.column_stack([np.ones(32), y, batch])
    return true, {
        METHODS[0]: screen_pvalues(X, y, covariates={"batch": batch.astype(str)}),
        METHODS[1]: limma_pvalues(X, D, 1),
        METHODS[2]: screen_pvalues(X, y),
    }


def cell_paired(rng, genes, effect=1.5):
    subject = np.repeat(np.arange(10), 2)
    y = np.tile([0, 1], 10)
    X = rng.normal(size=(20, genes)) + 1.5 * rng.normal(size=(10, genes))[subject]
    true = np.zeros(genes, bool)
    true[: genes // 20] = True
    X[:, true] += effect * y[:, None]
    D = np.column_stack([np.ones(20), y, (subject[:, None] == np.arange(1, 10)).astype(float)])
    return true, {
        METHODS[0]: screen_pvalues(X, y, groups=subject),
        METHODS[1]: limma_pvalues(X, D, 1),
        METHODS[2]: screen_pvalues(X, y),
    }


def _patient_data(rng, genes):
    patient = np.repeat(np.arange(12), 3)
    y = (patient >= 6).astype(int)
    X = rng.normal(size=(36, genes)) + rng.normal(size=(12, genes))[patient]
    return X, y, patient


def cell_patients(rng, genes):
    X, y, patient = _patient_data(rng, genes)
    means = X.reshape(12, 3, genes).mean(axis=1)
    yp = y[::3]
    return np.zeros(genes, bool), {
        METHODS[0]: screen_pvalues(X, y, groups=patient),
        METHODS[1]: limma_pvalues(means, np.column_stack([np.ones(12), yp]), 1),
        METHODS[2]: screen_pvalues(X, y),
    }


def rates(true, pvalues) -> dict:
    out = {}
    for name, p in pvalues.items():
        sel = bh(p)
        fdp = np.count_nonzero(sel & ~true) / max(int(sel.sum()), 1)
        power = np.count_nonzero(sel & true) / true.sum() if true.any() else float("nan")
        out[name] = (fdp, power)
    return out


def screen_part(replicates, genes, log) -> dict:
    cells = {
        "a": lambda r: cell_batch(r, genes, 0.0),
        "b": lambda r: cell_batch(r, genes, 1.5),
        "c": lambda r: cell_paired(r, genes),
        "d": lambda r: cell_patients(r, genes),
    }
    out = {}
    for key, make in cells.items():
        t0 = time.perf_counter()
        reps = [rates(*make(np.random.default_rng([42, ord(key), i]))) for i in range(replicates)]
        # NaN (power without true genes) is stored as null: the data stay standard JSON.
        out[key] = {
            m: [[None if v != v else v for v in row] for row in np.array([r[m] for r in reps]).T]
            for m in METHODS
        }
        log(f"cell {key}: {replicates} replicates in {time.perf_counter() - t0:.0f} s")
    return out


def nested_part(replicates, genes, log) -> dict:
    from sklearn.feature_selection import SelectKBest, f_classif
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.pipeline import make_pipeline

    from widefs.model_selection import nested_evaluate

    pipe = make_pipeline(SelectKBest(f_classif, k=50), KNeighborsClassifier(1))
    acc = {name: [] for name in NESTED}
    t0 = time.perf_counter()
    for i in range(replicates):
        X, y, patient = _patient_data(np.random.default_rng([43, i]), genes)
        for name, (cv, grouped) in NESTED.items():
            g = patient if grouped else None
            res = nested_evaluate(pipe, X, y, cv=cv, groups=g, random_state=i)
            acc[name].append(float(res["mean"]))
    log(f"nested: {replicates} replicates in {time.perf_counter() - t0:.0f} s")
    return acc


def certificate_part(replicates, log) -> dict:
    from widefs.model_selection import search_certificate
    from widefs.search import KNNEvaluator, SequentialSelector

    sfs = SequentialSelector(n_features=1, evaluator=KNNEvaluator(3))
    out = {"randomized": [], "pvalue": [], "case": None}
    t0 = time.perf_counter()
    for i in range(replicates):
        X, y, patient = _patient_data(np.random.default_rng([44, i]), 20)
        cert = search_certificate(
            sfs, X, y, score="search", groups=patient, n_permutations=19,
            stop_after=None, random_state=i,
        )  # fmt: skip
        out["randomized"].append(cert.randomized_pvalue(i))
        out["pvalue"].append(cert.pvalue)
        out["case"] = cert.design_case
    log(f"certificates: {replicates} in {time.perf_counter() - t0:.0f} s")
    return out


# ---------------------------------------------------------------- rendering (data only)


def _mse(values) -> tuple[float, float]:
    v = np.asarray(values, dtype=float)
    v = v[~np.isnan(v)]
    return float(v.mean()), float(v.std(ddof=1) / math.sqrt(v.size)) if v.size > 1 else 0.0


def _fmt(values) -> str:
    m, se = _mse(values)
    return f"{m:.3f} +- {se:.3f}"


def _ks_pvalue(p) -> float:
    from scipy.stats import kstest

    return float(kstest(np.asarray(p), "uniform").pvalue)


def _band(n: int, rate: float = Q) -> tuple[float, float]:
    from scipy.stats import binom

    return float(binom.ppf(0.025, n, rate) / n), float(binom.ppf(0.975, n, rate) / n)


def checks(data) -> list[tuple[str, bool, str]]:
    s = data["screen"]
    out = []
    for key in ("a", "d"):
        m, se = _mse(s[key][METHODS[0]][0])
        out.append((f"{key}: FDR with the design given <= q + 2 SE", m <= Q + 2 * se, f"{m:.3f}"))
    for key, peer in (("b", "limma with the batch"), ("c", "paired limma")):
        w, lim = _mse(s[key][METHODS[0]][1])[0], _mse(s[key][METHODS[1]][1])[0]
        out.append((f"{key}: power >= {peer}'s - 0.02", w >= lim - 0.02, f"{w:.3f} vs {lim:.3f}"))
    n = data["nested"]
    given, ignored = _mse(n["groups given, cv=6"]), _mse(n["groups ignored, cv=6"])
    out.append(
        (
            "d: nested accuracy with groups (cv=6) within 0.5 +- 3 SE",
            abs(given[0] - 0.5) <= 3 * given[1],
            f"{given[0]:.3f} +- {given[1]:.3f}",
        )
    )
    out.append(
        (
            "d: without groups (cv=6) the leak is shown (accuracy > 0.5 + 3 SE)",
            ignored[0] > 0.5 + 3 * ignored[1],
            f"{ignored[0]:.3f} +- {ignored[1]:.3f}",
        )
    )
    c = data["certificate"]
    ks = _ks_pvalue(c["randomized"])
    out.append(("d: certificate p-values uniform (KS p > 0.01)", ks > 0.01, f"KS p = {ks:.3f}"))
    lo, hi = _band(len(c["randomized"]))
    rate = float(np.mean(np.asarray(c["randomized"]) <= Q))
    out.append(
        (
            "d: certificate rejection rate at 0.05 within the 95 % binomial band",
            lo <= rate <= hi,
            f"{rate:.3f} in [{lo:.3f}, {hi:.3f}]",
        )
    )
    return out


def _screen_table(data) -> list[str]:
    rows = [
        "| design | method | realized FDR | power |",
        "|---|---|---|---|",
    ]
    for key, title in CELLS.items():
        for m in METHODS:
            fdp, power = data["screen"][key][m]
            none = np.all(np.isnan(np.asarray(power, dtype=float)))
            pw = "n/a (no true genes)" if none else _fmt(power)
            rows.append(f"| {title} | {m} | {_fmt(fdp)} | {pw} |")
    return rows


def _verdict(data, results) -> str:
    s, n = data["screen"], data["nested"]
    a_given, a_ignored = _mse(s["a"][METHODS[0]][0])[0], _mse(s["a"][METHODS[2]][0])[0]
    d_given, d_ignored = _mse(s["d"][METHODS[0]][0])[0], _mse(s["d"][METHODS[2]][0])[0]
    power = [_mse(s[k][m][1])[0] for k in ("b", "c") for m in METHODS[:2]]
    passed = sum(ok for _, ok, _ in results)
    return (
        f"**Verdict.** {passed} of {len(results)} acceptance checks pass. With the design "
        f"given, widefs's realized FDR is {a_given:.3f} (confounded batch) and {d_given:.3f} "
        f"(3 samples per patient), {a_ignored:.3f} and {d_ignored:.3f} ignoring the design;\n"
        f"its power is {power[0]:.3f} beside limma's {power[1]:.3f} with the same design "
        f"(batch) and {power[2]:.3f} beside paired limma's {power[3]:.3f}. Nested accuracy on "
        f"noise is {_mse(n['groups given, cv=6'])[0]:.2f} with groups and\n"
        f"{_mse(n['groups ignored, cv=6'])[0]:.2f} without; search-certificate p-values with "
        f"groups against uniform: KS p = {_ks_pvalue(data['certificate']['randomized']):.2f}."
    )


def _setup_lines(meta) -> list[str]:
    return [
        "## Setup",
        "",
        f"{meta['replicates']} replicates per cell, {meta['genes']} genes per replicate, "
        f"standard normal noise, Benjamini-Hochberg at q = {Q}. (a)/(b): 32 samples, batch A "
        "12 cases + 4 controls, batch B 4 cases + 12 controls, batch shift 1.5 SD on 10 % of "
        "the genes; (b) adds a class shift of 1.5 SD on 5 % of the genes. (c): 10 subjects in "
        "both conditions, subject effect 1.5 SD on every gene, condition shift 1.5 SD on 5 % "
        "of the genes. (d): 12 patients (6 per class) x 3 samples, patient effect 1 SD on "
        "every gene, no class effect.",
        "",
        "widefs, design given: the p-values (`pvalues_`) of "
        "`ClassDifferenceScreen(random_state=0).fit(X, y, covariates={'batch': batch})` in "
        "(a)/(b), `groups=subject` in (c) (subject blocks as fixed effects), `groups=patient` "
        "in (d) (patient means, patients as replicates); its gaussian features get the "
        "moderated F of the design, its few skewed ones design-respecting permutations. "
        "limma: inmoose `lmFit` + `eBayes` on "
        "the design `[1, class, batch]`, `[1, condition, subject indicators]`, and on the "
        "patient means for (d) (inmoose has no `duplicateCorrelation`). widefs, design "
        "ignored: the same screen's `.fit(X, y)`. Realized FDR = mean of V / max(R, 1) (with no "
        "class effect, the chance of any selection); power = mean share of the true genes "
        "selected; +- one Monte Carlo standard error.",
        "",
    ]


def _nested_lines(data) -> list[str]:
    meta, n = data["meta"], data["nested"]
    return [
        "## Evaluation and certificates with repeated samples (d)",
        "",
        f"Nested accuracy ({meta['replicates']} replicates, {meta['genes']} genes): "
        "`nested_evaluate(make_pipeline(SelectKBest(f_classif, k=50), "
        "KNeighborsClassifier(1)), X, y, cv=..., groups=...)`. With groups no patient is on "
        "both sides of a split; without, the nearest neighbour of a test sample is usually "
        "another sample of its patient, so the accuracy measures memory of the patient. With "
        "cv=6 every test fold holds one patient of each class; with cv=4 a test fold holds "
        "two patients of one class and one of the other, so its majority class is the "
        "training minority and the accuracy on noise falls below 0.5 (the known pessimism "
        "of cross-validation under the null, not a leak).",
        "",
        "| outer folds, groups | nested accuracy |",
        "|---|---|",
        *[f"| {name} | {_fmt(values)} |" for name, values in n.items()],
        "",
    ]


def _certificate_lines(data) -> list[str]:
    c = data["certificate"]
    randomized, reported = np.asarray(c["randomized"]), np.asarray(c["pvalue"])
    return [
        f"Search certificates ({randomized.size} noise data sets of 12 patients x 3 "
        "samples, 20 features): `search_certificate(SequentialSelector(n_features=1, "
        "evaluator=KNNEvaluator(3)), X, y, score='search', groups=patient, "
        f"n_permutations=19, stop_after=None)`; design case: {c['case']}. The relabellings "
        "exchange whole patients. Randomized p-values (ties broken at random) are exactly "
        "uniform under the null; the reported p-value counts ties against the search.",
        "",
        "| p-value | mean | share <= 0.05 | KS p (uniform) |",
        "|---|---|---|---|",
        f"| randomized | {randomized.mean():.3f} | {np.mean(randomized <= Q):.3f} | "
        f"{_ks_pvalue(randomized):.3f} |",
        f"| reported | {reported.mean():.3f} | {np.mean(reported <= Q):.3f} | "
        "(conservative by ties) |",
        "",
    ]


def render(data) -> str:
    meta = data["meta"]
    results = checks(data)
    lines = [
        "# Study designs: widefs beside limma with the same design",
        "",
        _verdict(data, results),
        "",
        f"Command: `{meta['command']}` (re-render from the stored data "
        "`docs/results/designs.json`: `python benchmarks/bench_designs.py --render-only`).",
        "",
        "## Acceptance checks",
        "",
        "| check | result | value |",
        "|---|---|---|",
        *[f"| {name} | {'pass' if ok else 'FAIL'} | {value} |" for name, ok, value in results],
        "",
        *_setup_lines(meta),
        "## Screens",
        "",
        *_screen_table(data),
        "",
        *_nested_lines(data),
        *_certificate_lines(data),
        f"Run time: {meta['seconds']:.0f} s on {meta['machine']}.",
        "",
    ]
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicates", type=int, default=200)
    parser.add_argument("--certificates", type=int, default=400)
    parser.add_argument("--genes", type=int, default=2000)
    parser.add_argument("--render-only", action="store_true")
    parser.add_argument("--out", type=Path, default=PAGE)
    args = parser.parse_args(argv)
    data_path = args.out.with_suffix(".json")
    if not args.render_only:
        import platform

        t0 = time.perf_counter()

        def log(message):
            print(f"[{time.perf_counter() - t0:6.0f} s] {message}", flush=True)

        command = "nice -n 10 python benchmarks/bench_designs.py"
        for flag, value, default in (
            ("--replicates", args.replicates, 200),
            ("--certificates", args.certificates, 400),
            ("--genes", args.genes, 2000),
        ):
            command += f" {flag} {value}" if value != default else ""
        data = {
            "screen": screen_part(args.replicates, args.genes, log),
            "nested": nested_part(args.replicates, args.genes, log),
            "certificate": certificate_part(args.certificates, log),
        }
        data["meta"] = {
            "command": command,
            "replicates": args.replicates,
            "genes": args.genes,
            "seconds": time.perf_counter() - t0,
            "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python "
            f"{platform.python_version()}",
        }
        data_path.write_text(json.dumps(data, indent=1, allow_nan=False) + "\n")
    data = json.loads(data_path.read_text())
    args.out.write_text(render(data), encoding="utf-8")
    for name, ok, value in checks(data):
        print(f"{'PASS' if ok else 'FAIL'}  {name}: {value}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
