"""Reproduce Tables 7-10 of Soares (2010): class-specific ensemble feature selection.

Usage::

    python experiments/soares2010/run.py            # full run, writes docs/results/soares2010.md
    python experiments/soares2010/run.py --quick    # seconds; used by the test suite

Protocol (Soares 2010, Sections 5.2.1-5.2.5): per dataset, 15 random train/test splits
with the training sizes of Table 6, training sets balanced across classes (arrhythmia:
111/111/13), the test set is the rest. Preprocessing is fitted on the training part:
continuous features are divided by their maximum absolute value (lymphoma: standardized,
as the dissertation did); missing values are imputed with the mean (continuous) or the
most frequent value (nominal; the dissertation says "median") for credit and
arrhythmia, and kept as their own category for breast cancer and voting ("left as
is"). kNN uses Euclidean distance on continuous and 0/1 mismatch on nominal features,
vote ties to the nearest neighbour's class, k tuned by leave-one-out on all features
from {1..10, 15, 25, n/4, n/2, 3n/4} for the overall model and from {1..10} for the
class-specific members. Naive Bayes is categorical (Laplace) on nominal and Gaussian on
continuous features. Searches: SBS and SFS stopping when the leave-one-out score stops
improving (ties to fewer features), and the GA with population 20, 40 generations,
crossover 0.6, mutation 0.001, elitism 0.8 (colon and lymphoma: population 40, elitism
0.9). Reported: mean test accuracy without selection, with traditional (overall)
selection, and with CEFS (unanimous members, else the overall-subset model).
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.stats import binomtest

from widefs.datasets import load_dataset
from widefs.ensemble import ClassSpecificEnsemble, subset_inclusiveness
from widefs.search import GeneticSelector, KNNModel, NaiveBayesModel, SequentialSelector
from widefs.utils import spawn_seeds

# Results go to docs/results under the working directory (the repository root when run
# from a checkout, as `widefs reproduce` and experiments/*/run.py are).
RESULTS = Path("docs") / "results"
MISSING = "?"


@dataclass
class Spec:
    """One dataset of Table 6."""

    bundled: str
    n_train: int
    prep: str  # "continuous", "nominal", "mixed", "standardize"
    impute: bool = False
    nominal_all: bool = False
    train_counts: dict | None = None
    relabel: dict | None = None
    note: str = ""
    ga: dict = field(default_factory=dict)


DATASETS = {
    "breast cancer": Spec("breast_cancer_ljubljana", 136, "nominal", nominal_all=True),
    "wine": Spec("wine", 114, "continuous"),
    "credit approval": Spec("credit_approval", 490, "mixed", impute=True),
    "congressional voting": Spec("congressional_voting", 268, "nominal"),
    "musk v1": Spec("musk1", 248, "continuous"),
    "arrhythmia": Spec(
        "arrhythmia",
        235,
        "continuous",
        impute=True,
        train_counts={"N": 111, "A": 111, "U": 13},
        relabel={"1": "N", "16": "U", **{str(c): "A" for c in range(2, 16)}},
    ),
    "madelon": Spec("madelon", 194, "continuous"),
    "colon cancer": Spec("colon", 36, "continuous", ga={"population_size": 40, "elitism": 0.9}),
    "lymphoma (substitute)": Spec(
        "lymphoma",
        34,
        "standardize",
        relabel={"DLBCL": "DLBCL", "FL": "other", "CLL": "other"},
        note="bundled 62 x 4026 Alizadeh data, DLBCL (42) vs FL+CLL (20); test = the other 28",
        ga={"population_size": 40, "elitism": 0.9},
    ),
}

METHODS = {
    "NB/SBS": ["breast cancer", "credit approval", "congressional voting"],
    "kNN/SBS": ["breast cancer", "wine", "credit approval", "congressional voting"],
    "kNN/SFS": ["breast cancer", "wine", "credit approval", "congressional voting"],
    "kNN/GA": list(DATASETS),
}
TABLE = {"NB/SBS": 7, "kNN/SBS": 8, "kNN/SFS": 9, "kNN/GA": 10}

# Tables 7-10 of the dissertation: no selection, traditional selection, CEFS.
PAPER = {
    "NB/SBS": {
        "breast cancer": (66.44, 68.89, 69.20),
        "credit approval": (85.33, 83.77, 84.23),
        "congressional voting": (89.74, 94.49, 94.61),
    },
    "kNN/SBS": {
        "breast cancer": (77.20, 78.44, 81.64),
        "wine": (94.06, 93.44, 93.75),
        "credit approval": (74.40, 84.47, 85.50),
        "congressional voting": (91.30, 94.01, 94.53),
        "Alabama county jails": (49.52, 62.37, 63.42),
    },
    "kNN/SFS": {
        "breast cancer": (77.20, 80.89, 83.64),
        "wine": (94.06, 91.56, 92.92),
        "credit approval": (74.40, 84.23, 85.20),
        "congressional voting": (91.30, 94.13, 94.49),
        "Alabama county jails": (49.52, 66.36, 67.50),
    },
    "kNN/GA": {
        "breast cancer": (77.20, 79.96, 81.24),
        "wine": (94.06, 94.69, 95.42),
        "credit approval": (74.40, 85.20, 85.50),
        "congressional voting": (91.30, 93.93, 94.09),
        "Alabama county jails": (49.52, 62.37, 64.17),
        "musk v1": (78.77, 80.06, 80.18),
        "arrhythmia": (67.10, 68.36, 69.59),
        "madelon": (61.32, 62.40, 62.82),
        "colon cancer": (65.90, 67.69, 68.97),
        "lymphoma (substitute)": (75.83, 75.00, 77.50),
    },
}

# Appendix B of the dissertation, parsed with ``parse_appendix_b`` (15 runs each):
# mean size of the overall subset, mean size per class-specific subset, mean size of
# their union, runs whose union holds features outside the overall subset (hypothesis
# part 3) and runs whose overall subset holds features outside the union (part 4).
PAPER_SUBSETS = {
    ("breast cancer", "NB/SBS"): (2.67, (1.07, 3.93), 4.53, 14, 8),
    ("breast cancer", "kNN/SBS"): (4.33, (3.67, 3.80), 6.27, 12, 9),
    ("breast cancer", "kNN/SFS"): (3.60, (3.33, 1.87), 4.40, 13, 8),
    ("breast cancer", "kNN/GA"): (4.20, (3.40, 1.87), 4.60, 14, 9),
    ("wine", "kNN/SBS"): (6.93, (3.93, 5.40, 3.13), 8.13, 15, 12),
    ("wine", "kNN/SFS"): (6.20, (13.0, 3.87, 13.0), 13.0, 15, 0),
    ("wine", "kNN/GA"): (7.73, (5.13, 6.47, 4.47), 10.4, 15, 8),
    ("credit approval", "NB/SBS"): (3.80, (1.00, 6.33), 6.33, 15, 12),
    ("credit approval", "kNN/SBS"): (6.27, (5.67, 7.53), 9.93, 15, 10),
    ("credit approval", "kNN/SFS"): (6.67, (5.40, 8.20), 10.6, 15, 9),
    ("credit approval", "kNN/GA"): (5.27, (6.33, 7.73), 11.07, 15, 11),
    ("congressional voting", "NB/SBS"): (2.33, (3.27, 1.13), 3.40, 13, 7),
    ("congressional voting", "kNN/SBS"): (5.20, (4.87, 4.20), 7.00, 14, 13),
    ("congressional voting", "kNN/SFS"): (4.13, (4.87, 3.87), 6.73, 14, 11),
    ("congressional voting", "kNN/GA"): (5.47, (6.13, 6.47), 9.67, 15, 13),
}


def parse_appendix_b(text: str) -> dict:
    """Subsets of Appendix B of the dissertation text: {(dataset, method): [runs]}.

    Each run is ``(overall, {class: subset})`` with 1-based feature indices. A list of
    p entries holds 0 or the feature's own index; page numbers (>= 100) inside the text
    are skipped. This is how ``PAPER_SUBSETS`` was computed.
    """
    text = text[text.index("Appendix B: Best found") :]
    toks = text.split()
    widths = {"Cancer": 9, "Wine": 13, "Approval": 15, "Voting": 16, "Jails": 16}
    runs: dict = {}
    ds = meth = cur = None
    i = 0
    while i < len(toks):
        t = toks[i]
        if t == "Dataset":
            ds = toks[i - 1]
        elif re.fullmatch(r"\((NBC|kNN)/(SBS|SFS|GA)\)", t):
            meth = t.strip("()").replace("NBC", "NB")
        elif t.endswith(":") and ds in widths and meth:
            vals: list[int] = []
            while len(vals) < widths[ds]:
                i += 1
                v = toks[i]
                if v in ("0", str(len(vals) + 1)):
                    vals.append(int(v))
                elif not (v.isdigit() and int(v) >= 100):
                    raise ValueError(f"unexpected token {v!r} in {ds} {meth}")
            subset = {k for k in vals if k}
            if t == "Overall:":
                cur = (subset, {})
                runs.setdefault((ds, meth), []).append(cur)
            else:
                cur[1][t[:-1]] = subset
        i += 1
    return runs


# ----------------------------------------------------------------------------- data


def load(spec: Spec):
    bunch = load_dataset(spec.bundled, as_frame=True)
    frame = bunch.data
    y = bunch.target.astype(str).to_numpy()
    if spec.relabel:
        y = np.array([spec.relabel[v] for v in y], dtype=object)
    if spec.nominal_all:
        nominal = np.ones(frame.shape[1], dtype=bool)
    else:
        nominal = np.array([not pd.api.types.is_numeric_dtype(dt) for dt in frame.dtypes])
    columns = []
    for j, col in enumerate(frame.columns):
        s = frame[col]
        if nominal[j]:
            columns.append(np.array([MISSING if v != v else str(v) for v in s], dtype=object))
        else:
            columns.append(s.to_numpy(dtype=float))
    return columns, nominal, y, list(frame.columns)


def split_indices(y, spec: Spec, rng):
    classes = np.unique(y)
    counts = spec.train_counts or {c: spec.n_train // classes.size for c in classes}
    train = np.concatenate(
        [rng.choice(np.flatnonzero(y == c), counts[c], replace=False) for c in classes]
    )
    train.sort()
    test = np.setdiff1d(np.arange(y.size), train)
    return train, test


def preprocess(columns, nominal, train, test, spec: Spec):
    """Fit imputation / scaling / category codes on the training rows.

    Nominal columns become category codes (training categories only; an unseen test
    category gets -1, which matches nothing); missing nominal values are a category of
    their own unless ``spec.impute`` (then the most frequent training value).
    """
    Xtr = np.empty((train.size, len(columns)))
    Xte = np.empty((test.size, len(columns)))
    n_categories = np.zeros(len(columns), dtype=np.int64)
    for j, col in enumerate(columns):
        tr, te = col[train], col[test]
        if nominal[j]:
            if spec.impute:
                seen = tr[tr != MISSING]
                values, counts = np.unique(seen, return_counts=True)
                mode = values[np.argmax(counts)]
                tr = np.where(tr == MISSING, mode, tr)
                te = np.where(te == MISSING, mode, te)
            cats = {c: i for i, c in enumerate(np.unique(tr))}
            Xtr[:, j] = [cats[v] for v in tr]
            Xte[:, j] = [cats.get(v, -1) for v in te]
            n_categories[j] = len(cats)
            continue
        tr, te = tr.astype(float), te.astype(float)
        mean = np.nanmean(tr) if np.isfinite(tr).any() else 0.0
        tr, te = np.where(np.isnan(tr), mean, tr), np.where(np.isnan(te), mean, te)
        if spec.prep == "standardize":
            sd = tr.std()
            tr, te = (tr - tr.mean()) / (sd or 1.0), (te - tr.mean()) / (sd or 1.0)
        else:
            scale = np.abs(tr).max() or 1.0
            tr, te = tr / scale, te / scale
        Xtr[:, j], Xte[:, j] = tr, te
    return Xtr, Xte, n_categories


# ------------------------------------------------------------------------- methods


def make_selector(method, spec: Spec, nominal, quick):
    estimator = "naive_bayes" if method.startswith("NB") else "knn"
    common = {"estimator": estimator, "categorical_features": nominal}
    if method.endswith("SBS"):
        return SequentialSelector("backward", **common)
    if method.endswith("SFS"):
        return SequentialSelector("forward", **common)
    ga = {"population_size": 20, "n_generations": 40, "elitism": 0.8, **spec.ga}
    if quick:
        ga.update(population_size=6, n_generations=3)
    return GeneticSelector(**ga, **common)


def run_split(method, spec, columns, nominal, y, train, test, seed, quick):
    Xtr, Xte, n_categories = preprocess(columns, nominal, train, test, spec)
    ytr, yte = y[train], y[test]
    classes, ytr_codes = np.unique(ytr, return_inverse=True)
    sel = make_selector(method, spec, nominal, quick)
    ens = ClassSpecificEnsemble(sel, categorical_features=nominal, random_state=int(seed))
    ens.fit(Xtr, ytr)
    all_cols = np.arange(Xtr.shape[1])
    if method.startswith("NB"):
        base = NaiveBayesModel(Xtr, ytr_codes, classes.size, nominal, n_categories, all_cols)
    else:
        k = ens.overall_selector_.n_neighbors_  # tuned on all features (Section 5.2.3)
        base = KNNModel(Xtr, ytr_codes, classes.size, nominal, all_cols, k)
    no_fs = classes[base.predict_codes(Xte)]
    trad = ens.predict_overall(Xte)
    cefs = ens.predict(Xte)
    members = ens.predict_members(Xte)
    decided = ens.decided_by_members(Xte)
    # Beyond the paper: the specialist combiner on the same members, and members scored by
    # the class-balanced criterion (both combiners).
    ens.set_params(combiner="specialist")
    specialist = ens.predict(Xte)
    ens.set_params(combiner="unanimous")
    bal = ClassSpecificEnsemble(
        sel, member_criterion="balanced", categorical_features=nominal, random_state=int(seed)
    ).fit(Xtr, ytr)
    bal_unanimous = bal.predict(Xte)
    bal.set_params(combiner="specialist")
    bal_specialist = bal.predict(Xte)
    recallers = [c for i, c in enumerate(ens.classes_) if np.mean(members[:, i] == c) >= 0.95]
    return {
        "acc": (np.mean(no_fs == yte), np.mean(trad == yte), np.mean(cefs == yte)),
        "variants": (
            np.mean(specialist == yte),
            np.mean(bal_unanimous == yte),
            np.mean(bal_specialist == yte),
        ),
        "bal_recallers": sum(
            np.mean(bal.predict_members(Xte)[:, i] == c) >= 0.95 for i, c in enumerate(bal.classes_)
        ),
        "overall": set(np.flatnonzero(ens.overall_support_).tolist()),
        "classes": {c: set(np.flatnonzero(m).tolist()) for c, m in ens.class_supports_.items()},
        "k": (
            ens.overall_selector_.n_neighbors_,
            [s.n_neighbors_ for s in ens.class_selectors_.values()],
        ),
        "decided": float(decided.mean()),
        "acc_decided": float(np.mean(cefs[decided] == yte[decided])) if decided.any() else np.nan,
        "acc_fallback": float(np.mean(cefs[~decided] == yte[~decided]))
        if (~decided).any()
        else np.nan,
        "trad_on_decided": float(np.mean(trad[decided] == yte[decided]))
        if decided.any()
        else np.nan,
        "recallers": recallers,
        "n_train": train.size,
        "n_test": test.size,
    }


def run(n_splits, quick, datasets=None, methods=None, log=print):
    results = {}
    loaded = {}
    for method, names in METHODS.items():
        if methods and method not in methods:
            continue
        for name in names:
            if datasets and name not in datasets:
                continue
            spec = DATASETS[name]
            if name not in loaded:
                loaded[name] = load(spec)
            columns, nominal, y, feature_names = loaded[name]
            split_seeds = spawn_seeds(list(DATASETS).index(name), n_splits)
            t0 = time.perf_counter()
            runs = []
            for s in range(n_splits):
                rng = np.random.RandomState(split_seeds[s])
                train, test = split_indices(y, spec, rng)
                runs.append(
                    run_split(method, spec, columns, nominal, y, train, test, split_seeds[s], quick)
                )
            elapsed = time.perf_counter() - t0
            acc = 100 * np.array([r["acc"] for r in runs])
            log(f"{method:8s} {name:22s} {acc.mean(0).round(2)}  ({elapsed:.1f} s)")
            results[(name, method)] = {"runs": runs, "time": elapsed, "names": feature_names}
    return results


# -------------------------------------------------------------------------- report


def fmt_pm(values):
    values = np.asarray(values, dtype=float)
    sd = values.std(ddof=1) if values.size > 1 else 0.0
    return f"{values.mean():.2f} ± {sd:.2f}"


def accuracy_tables(results, n_splits):
    out = []
    for method, table in TABLE.items():
        rows = [(n, r) for (n, m), r in results.items() if m == method]
        if not rows:
            continue
        out += [
            f"### Table {table}: {method}",
            "",
            "| dataset | paper: no FS / trad. / CEFS | ours: no FS | ours: trad. FS | ours: CEFS | "
            "CEFS - trad. (ours) | splits CEFS >, =, < trad. | sign test p | time |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        for name in list(PAPER[method]):
            paper = PAPER[method][name]
            paper_txt = " / ".join(f"{v:.2f}" for v in paper)
            hit = [r for n, r in rows if n == name]
            if not hit:
                why = "proprietary, unavailable" if "Alabama" in name else "not run"
                out.append(f"| {name} | {paper_txt} | {why} | | | | | | |")
                continue
            r = hit[0]
            acc = 100 * np.array([x["acc"] for x in r["runs"]])
            diff = acc[:, 2] - acc[:, 1]
            n_win, n_loss = int((diff > 0).sum()), int((diff < 0).sum())
            wins = f"{n_win}, {(diff == 0).sum()}, {n_loss}"
            # Two-sided sign test on the splits where CEFS and traditional selection differ.
            p = binomtest(n_win, n_win + n_loss).pvalue if n_win + n_loss else 1.0
            out.append(
                f"| {name} | {paper_txt} | {fmt_pm(acc[:, 0])} | {fmt_pm(acc[:, 1])} | "
                f"{fmt_pm(acc[:, 2])} | {diff.mean():+.2f} | {wins} | {p:.2g} | {r['time']:.0f} s |"
            )
        out.append("")
    return out


def inclusiveness_table(results):
    out = [
        "| dataset | method | overall size (paper / ours) | class-specific sizes (paper / ours) | "
        "union size (paper / ours) | runs: union has features outside overall, part 3 (paper / ours) | "
        "runs: overall has features outside union, part 4 (paper / ours) |",
        "|---|---|---|---|---|---|---|",
    ]
    for (name, method), r in results.items():
        runs = r["runs"]
        n = len(runs)
        inc = [subset_inclusiveness(x["classes"], x["overall"]) for x in runs]
        ov = np.mean([len(x["overall"]) for x in runs])
        classes = list(runs[0]["classes"])
        cls = [np.mean([len(x["classes"][c]) for x in runs]) for c in classes]
        union = np.mean([len(i["union"]) for i in inc])
        p3 = sum(not i["overall_covers_union"] for i in inc)
        p4 = sum(not i["union_covers_overall"] for i in inc)
        paper = PAPER_SUBSETS.get((name, method))
        ours_cls = ", ".join(f"{c}: {v:.1f}" for c, v in zip(classes, cls))
        if paper:
            pov, pcls, punion, pp3, pp4 = paper
            pcls_txt = ", ".join(f"{v:.1f}" for v in pcls)
            out.append(
                f"| {name} | {method} | {pov:.1f} / {ov:.1f} | {pcls_txt} / {ours_cls} | "
                f"{punion:.1f} / {union:.1f} | {pp3}/15 / {p3}/{n} | {pp4}/15 / {p4}/{n} |"
            )
        else:
            out.append(
                f"| {name} | {method} | n/a / {ov:.1f} | n/a / {ours_cls} | n/a / {union:.1f} | "
                f"n/a / {p3}/{n} | n/a / {p4}/{n} |"
            )
    return out


def members_table(results):
    out = [
        "| dataset | method | k overall (median) | k members (median) | test instances decided by "
        "members | CEFS acc. there | trad. acc. there | CEFS acc. on the rest (overall model) | "
        "splits with a recaller member |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for (name, method), r in results.items():
        runs = r["runs"]
        k_over = [x["k"][0] for x in runs if x["k"][0] is not None]
        k_mem = [k for x in runs for k in x["k"][1] if k is not None]
        kt = f"{np.median(k_over):.0f}" if k_over else "-"
        km = f"{np.median(k_mem):.0f}" if k_mem else "-"
        out.append(
            f"| {name} | {method} | {kt} | {km} | {100 * np.mean([x['decided'] for x in runs]):.1f}% | "
            f"{100 * np.nanmean([x['acc_decided'] for x in runs]):.1f} | "
            f"{100 * np.nanmean([x['trad_on_decided'] for x in runs]):.1f} | "
            f"{100 * np.nanmean([x['acc_fallback'] for x in runs]):.1f} | "
            f"{sum(bool(x['recallers']) for x in runs)}/{len(runs)} |"
        )
    return out


def table11(results):
    key = ("congressional voting", "kNN/SFS")
    if key not in results:
        return []
    r = results[key]
    run1 = r["runs"][0]
    names = r["names"]
    rows = [("Overall", run1["overall"]), *list(run1["classes"].items())]
    out = [
        "Our split 1 of voting, kNN/SFS, in the layout of the dissertation's Table 11 "
        "(paper, run 1: overall {4, 7, 12}, republican {4, 7}, democrat {4, 5, 11}; features "
        "numbered from 1):",
        "",
        "| subset | features (1-based) | names |",
        "|---|---|---|",
    ]
    for label, sub in rows:
        idx = sorted(sub)
        out.append(
            f"| {label} | {', '.join(str(i + 1) for i in idx)} | {', '.join(names[i] for i in idx)} |"
        )
    return out


def variants_table(results):
    out = [
        "| dataset | method | trad. FS | CEFS (paper: recall members, unanimous) | recall members, "
        "specialist combiner | balanced members, unanimous | balanced members, specialist | "
        "splits with a recaller (recall / balanced members) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for (name, method), r in results.items():
        runs = r["runs"]
        acc = 100 * np.array([x["acc"] for x in runs])
        var = 100 * np.array([x["variants"] for x in runs])
        rec = sum(bool(x["recallers"]) for x in runs)
        bal = sum(bool(x["bal_recallers"]) for x in runs)
        out.append(
            f"| {name} | {method} | {acc[:, 1].mean():.2f} | {acc[:, 2].mean():.2f} | "
            f"{var[:, 0].mean():.2f} | {var[:, 1].mean():.2f} | {var[:, 2].mean():.2f} | "
            f"{rec} / {bal} of {len(runs)} |"
        )
    return out


def summary_counts(results):
    better = worse = equal = 0
    beat_nofs = 0
    for r in results.values():
        # Means compared as reported (two decimals of a percentage).
        acc = np.round(100 * np.array([x["acc"] for x in r["runs"]]).mean(0), 2)
        better += acc[2] > acc[1]
        worse += acc[2] < acc[1]
        equal += acc[2] == acc[1]
        beat_nofs += acc[2] > acc[0]
    return better, equal, worse, beat_nofs


# Written after the full run (deterministic: splits and searches are seeded).
COMMENTARY = """\
**CEFS vs traditional selection.** CEFS beat traditional selection on 12 of the 20
dataset/method pairs we could run (all 3 NB/SBS, 3 of 4 kNN/SBS, 1 of 4 kNN/SFS, 5 of 9
kNN/GA), was level with it on musk (80.35 both) and lost on 7; the dissertation reports a
win on every pair. The margins are small next to the split-to-split spread (mean
differences between -3.2 and +1.4 points, standard deviations of 1.1 to 12 points). Four
pairs reach p < 0.05 in a two-sided sign test over the splits: three gains (voting NB/SBS
11 wins to 0 losses, credit NB/SBS 8 to 1, arrhythmia kNN/GA 14 to 1) and one loss (breast
kNN/SFS 2 to 10). The dissertation itself reports two-tailed t-test p-values between 0.04
and 0.91. The GA pairs are also sensitive to the GA's random draws: an earlier full run
that differed only in how the tournaments were drawn had CEFS ahead on 7 of the 9 GA
pairs (colon +1.0 and musk +0.5 instead of -1.3 and 0.0).

**Where CEFS loses, its members are often recallers.** Five of the seven losses are breast
cancer with kNN (all three searches) and credit with kNN/SFS and kNN/GA, the pairs where
the recall criterion most often produced members that call at least 95% of the test
instances their own class (breast kNN/SFS in 15 of 15 splits, breast kNN/GA 12, credit
kNN/SFS 15, credit kNN/GA 13; voting kNN/SFS, another loss, 5; breast kNN/SBS 3; every
other pair at most 1). Members then rarely agree (16.5%
of the breast kNN/SFS test instances) and, when they do, are less accurate than the
overall model on the same instances (34.7% vs 52.9%). This is the weakness the
dissertation names in its conclusion; its remedy, limiting members to k <= 10, does not
prevent it here, because the recallers come from the subset (one or two nominal features
on which most instances tie), not from k.

**Beyond the paper.** Scoring members by the class-balanced criterion removes the
recallers in every split and raises CEFS accuracy on 11 of the 20 pairs: the three kNN/SFS
pairs that had recallers (breast +1.1, credit +1.4, voting +0.3) and 8 of the 9 kNN/GA
pairs (breast +1.3, credit +0.5, madelon +1.3, musk +0.9, colon +0.5, ...; lymphoma -0.5).
It is worse on the other 9: all NB/SBS and kNN/SBS pairs (breast kNN/SBS by 7.6 points),
wine kNN/SFS and lymphoma, runs in which the recall-scored members were not recallers in
the first place. The specialist combiner equals the unanimous rule for two classes (the
two members agree exactly when exactly one of them claims its own class); on the
three-class data it helps arrhythmia (+0.4) and wine kNN/GA (+0.5) but not wine kNN/SFS
(-0.6); with balanced members it gives the best wine kNN/GA result (94.8).

**Levels vs the paper.** NB/SBS and kNN on voting and wine are within about 1-2 points of
the dissertation. Our kNN without selection is much better on credit (85.7 vs 74.4):
after division by the maximum absolute value, credit's heavy-tailed continuous features
(A14 and A15 reach 2,000 and 100,000 against medians of 160 and 5) are near zero for most
applicants, so the nominal
features, including the strong A9, dominate the distance; the dissertation's 74.4 points
to a different effective weighting that its text does not pin down. On breast cancer,
kNN without selection is 2 points below the paper and traditional selection lowers it
further: k is tuned once on all features (34 = n/4, as the dissertation's procedure
prescribes) and kept for subsets of one to three nominal features, where such a k mostly
counts ties. Colon without selection is 73.6 vs the paper's 65.9. The lymphoma substitute
is a different and easier task (DLBCL vs FL + CLL, 95-96% for every method), so only the
direction of its differences compares.

**Class-specific vs overall subsets (hypothesis parts 3 and 4).** As in the
dissertation, the union of the class-specific subsets holds features outside the overall
subset in almost every run (11-15 of 15 on the small datasets, 15 of 15 on the large
ones), and the overall subset holds features that no class-specific subset has in most
runs (8-15 of 15). Our split 1 of voting kNN/SFS has the shape of the dissertation's
Table 11: physician-fee-freeze in every subset, one feature only class-specific and one
only overall. Subset sizes differ systematically: our SBS keeps more features than the
dissertation's (it stops at the first removal that lowers the leave-one-out score) and
our SFS fewer (it stops at the first addition that does not raise it). The dissertation
does not state its stopping rules; its wine kNN/SFS members for classes 1 and 3 hold all
13 features in every run, which suggests that its SFS continued through ties.

**Cost.** The whole run, including the refits with balanced members, takes about two
minutes on two shared cores; SBS and SFS on the high-dimensional datasets, which the dissertation
calls infeasible, would be too (forward selection of 10 colon genes takes about 0.2 s,
see docs/results/benchmarks.md), but they are not part of its tables.
"""


def write_report(results, args, elapsed, out):
    n_splits = args.splits
    better, equal, worse, beat_nofs = summary_counts(results)
    lines = [
        "# Soares (2010): class-specific ensemble feature selection (CEFS), Tables 7-10",
        "",
        f"Command: `{' '.join(['python', 'experiments/soares2010/run.py', *sys.argv[1:]])}` "
        f"({elapsed / 60:.1f} min; {n_splits} splits per dataset{', QUICK MODE' if args.quick else ''}).",
        "",
        "Protocol as in the dissertation (Sections 5.2.1-5.2.5): random balanced training "
        "sets of the Table 6 sizes (arrhythmia 111/111/13), test = all remaining instances; "
        "preprocessing fitted on the training part (continuous features divided by their "
        "maximum absolute value, lymphoma standardized; credit and arrhythmia: mean / most "
        "frequent value imputation; breast cancer and voting keep missing values as a "
        "category); kNN with Euclidean + 0/1 mismatch distance, vote ties to the nearest "
        "neighbour, k tuned by leave-one-out on all features (overall grid "
        "{1..10, 15, 25, n/4, n/2, 3n/4}, members {1..10}); naive Bayes categorical + "
        "Gaussian; SFS/SBS stop when the leave-one-out score stops improving (ties to fewer "
        "features); GA population 20, 40 generations, crossover 0.6, mutation 0.001, "
        "elitism 0.8 (colon, lymphoma: 40 and 0.9). CEFS = unanimous class-specific members, "
        "else the overall-subset model. Accuracies are percentages, mean ± sd over splits.",
        "",
        "Deviations: the proprietary Alabama (Montgomery) county jails data is not available "
        "(its rows show the paper only). The two-class lymphoma set (42 x 4026, GC-B-like vs "
        "activated-B-like) is not available either; the substitute is the bundled 62 x 4026 "
        "Alizadeh data as DLBCL (42) vs FL + CLL (20), 17 + 17 training instances and the "
        "other 28 for testing (the paper tested on 8). Nominal missing values in credit are "
        "imputed with the most frequent value (the dissertation says median, which is not "
        "defined for unordered categories). Arrhythmia's features are all treated as "
        "continuous (its binary features give the same 0/1 distance after max-abs scaling).",
        "",
        f"Summary: CEFS beat traditional selection on {better} of {len(results)} "
        f"dataset/method pairs (mean over splits, to two decimals), tied on {equal}, lost on "
        f"{worse}; it beat no "
        f"selection on {beat_nofs}. The dissertation reports CEFS ahead of traditional "
        "selection on every pair.",
        "",
        "## Accuracy (Tables 7-10)",
        "",
        *accuracy_tables(results, n_splits),
        "## Class-specific vs overall subsets (inclusiveness, Section 5.2.6.2)",
        "",
        "Paper numbers are computed from the subsets listed in the dissertation's Appendix B "
        "(15 runs; none are listed for the five large datasets). Class-specific sizes are in "
        "the order of the sorted class labels (paper numbers reordered to match).",
        "",
        *inclusiveness_table(results),
        "",
        *table11(results),
        "",
        "## How the ensemble decides",
        "",
        "Share of test instances on which all members agree (decided by the members, else "
        "by the overall-subset model), accuracy of CEFS and of traditional selection on those "
        "instances, and splits in which some member predicted its own class for at least 95% "
        'of the test instances (a "recaller", the weakness named in the dissertation\'s '
        "conclusion).",
        "",
        *members_table(results),
        "",
        "## Beyond the paper: balanced member criterion and specialist combiner",
        "",
        "Mean test accuracy of CEFS variants on the same splits (the overall subset and its "
        "model are the same in all columns). *Balanced members*: each class-specific search "
        "scores the mean of the class recall and the specificity, so a member that predicts "
        "its class for everything scores 1/2 instead of 1. *Specialist combiner*: member c "
        'only says "c" or "not c"; exactly one claim decides, otherwise the overall model.',
        "",
        *variants_table(results),
        "",
        "## Commentary",
        "",
        COMMENTARY if not args.quick else "(quick mode: no commentary; see the full run.)",
    ]
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines) + "\n")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="tiny run for the test suite")
    parser.add_argument("--splits", type=int, default=None, help="splits per dataset (15)")
    parser.add_argument("--datasets", nargs="*", default=None)
    parser.add_argument("--methods", nargs="*", default=None)
    parser.add_argument("--out", type=Path, default=RESULTS / "soares2010.md")
    args = parser.parse_args(argv)
    if args.splits is None:
        args.splits = 2 if args.quick else 15
    datasets, methods = args.datasets, args.methods
    if args.quick:
        datasets = datasets or ["breast cancer", "wine", "credit approval", "colon cancer"]
        methods = methods or ["NB/SBS", "kNN/SFS", "kNN/GA"]
    t0 = time.perf_counter()
    results = run(args.splits, args.quick, datasets, methods)
    write_report(results, args, time.perf_counter() - t0, args.out)
    print(f"wrote {args.out}")
    return 0
