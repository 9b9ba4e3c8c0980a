"""Reproduce Tables I-V of Shah, Marchand & Corbeil (2010) on the bundled microarray data.

Protocol (Section VII): repeated 5-fold cross-validation (a random permutation of the data
per repetition, the same folds for every algorithm); every learning parameter (and gene
subset size) is chosen by a nested 5-fold CV on the training part only. Errors are the
number of misclassified examples over the 5 test folds, mean +- sd over repetitions.

Algorithms: linear SVM; SVM on the top 2^i genes of Golub's signal-to-noise ranking
(SVM+gs); SVM with recursive feature elimination inside the folds (SVM+rfe, halving);
AdaBoost with decision stumps; the Occam, sample-compression (SC) and PAC-Bayes Set
Covering Machines of widefs.scm, each also with *bound-based* selection (the parameters
and number of stumps minimising the risk bound on the training part; no nested CV);
the PAC-Bayes fixed-margin heuristic (Table IV) and the bound illustration (Table V) on
one repetition.

Usage::

    nice python experiments/shah2010/run.py            # full run (writes docs/results/shah2010.md)
    python experiments/shah2010/run.py --quick --out /tmp/shah.md
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import warnings
from collections import Counter
from pathlib import Path

# Results go to docs/results under the working directory (the repository root when run
# from a checkout, as `widefs reproduce` and experiments/*/run.py are).
DEFAULT_OUT = Path("docs") / "results" / "shah2010.md"

DATASETS = ["colon", "medulloblastoma_b", "medulloblastoma_c", "leukemia", "breast_er"]
PAPER_NAMES = {
    "colon": "Colon",
    "medulloblastoma_b": "B_MD",
    "medulloblastoma_c": "C_MD",
    "leukemia": "Leuk",
    "breast_er": "BreastER",
}
# Paper's numbers (Tables I-V). Errors over 5 test folds, mean +- sd over 20 permutations.
PAPER = {
    "table1": {  # SVM, SVM+gs (errs, S), SVM+rfe (errs, S), AdaBoost (itrs, errs)
        "colon": ("12.8±1.4", "14.4±3.5", 256, "15.4±4.8", 128, 20, "15.2±2.1"),
        "medulloblastoma_b": ("13.2±1", "7.2±2.6", 32, "10.4±2.4", 64, 20, "9.8±1.1"),
        "medulloblastoma_c": ("28.2±2.2", "23.1±2.8", 1024, "28.2±2.2", 7129, 50, "21.2±2.4"),
        "leukemia": ("21.3±1.4", "14±2.8", 64, "21±3.2", 256, 20, "17.8±1.8"),
        "breast_er": ("15.3±2.4", "10.3±2.7", 256, "11.2±2.8", 256, 50, "9.8±1.7"),
    },
    "table2": {  # Occam (errs, S, bits), SC (errs, S)
        "colon": ("23.6±1.2", "1.8±.6", 6, "18.2±1.8", "1.2±.6"),
        "medulloblastoma_b": ("17.2±1.8", "1.2±.8", 3, "17.2±1.3", "1.4±.8"),
        "medulloblastoma_c": ("28.6±1.8", "2.6±1.1", 4, "29.2±1.1", "1.2±.6"),
        "leukemia": ("27.8±1.7", "2.2±.8", 6, "27.3±1.7", "1.4±.7"),
        "breast_er": ("25.4±1.2", "3.2±.6", 2, "21.2±1.5", "1.4±.5"),
    },
    "table3": {  # PAC-Bayes S, G-errs, B-errs
        "colon": ("1.53±.28", "14.68±1.8", "14.65±1.8"),
        "medulloblastoma_b": ("1.2±.25", "8.89±1.65", "8.6±1.4"),
        "medulloblastoma_c": ("3.4±1.8", "23.8±1.7", "22.9±1.65"),
        "leukemia": ("3.2±1.4", "24.4±1.5", "23.6±1.6"),
        "breast_er": ("2.6±1.1", "12.8±.8", "12.4±.78"),
    },
    "table4": {  # fixed margin: size, errors, bound (x m)
        "colon": (1, 14, 34),
        "medulloblastoma_b": (1, 7, 20),
        "medulloblastoma_c": (3, 28, 48),
        "leukemia": (2, 21, 46),
        "breast_er": (3, 11, 31),
    },
    "table5": {  # ratio, size, G-errs, B-errs, bound (x m)
        "colon": (0.42, 1, 12, 11, 33),
        "medulloblastoma_b": (0.10, 1, 7, 7, 20),
        "medulloblastoma_c": (0.08, 5, 21, 20, 45),
        "leukemia": (0.002, 3, 22, 21, 48),
        "breast_er": (0.09, 2, 11, 11, 29),
    },
    "shape": {
        "colon": "62 x 2000",
        "medulloblastoma_b": "34 x 7129",
        "medulloblastoma_c": "60 x 7129",
        "leukemia": "72 x 7129",
        "breast_er": "49 x 7129",
    },
}
MAJORITY = {"colon": 22, "medulloblastoma_b": 9, "medulloblastoma_c": 21, "leukemia": 25}


def grids(quick: bool) -> dict:
    """Parameter grids searched by the nested CV (and by bound-based selection)."""
    if quick:
        return {
            "svm_C": [1.0],
            "gs_i": [0, 2, 4],
            "gs_C": [1.0],
            "rfe_i": [0, 2, 4],
            "ada_rounds": [1, 5],
            "sc": {"p": [1.0, 2.0], "model_type": ["conjunction"], "v": 3},
            "occam": {"p": [1.0], "eta": [0.0, 0.02], "model_type": ["conjunction"], "v": 3},
            "pb": {"p": [1.0, 2.0], "eta": [0.01], "model_type": ["conjunction"], "v": 3},
            "fixed": {"p": [1.0], "gamma": [0.05], "v": 3},
        }
    return {
        "svm_C": [0.01, 1.0, 100.0],
        "gs_i": list(range(13)),
        "gs_C": [0.01, 1.0],
        "rfe_i": list(range(13)),
        "ada_rounds": [1, 5, 10, 20, 50, 100],
        "sc": {
            "p": [0.5, 1.0, 2.0, 5.0, 10.0],
            "model_type": ["conjunction", "disjunction"],
            "v": 5,
        },
        "occam": {
            "p": [0.5, 1.0, 2.0, 5.0],
            "eta": [0.0, 0.005, 0.02, 0.1],
            "model_type": ["conjunction", "disjunction"],
            "v": 5,
        },
        "pb": {
            "p": [0.5, 1.0, 2.0, 5.0],
            "eta": [0.001, 0.005, 0.02, 0.1],
            "model_type": ["conjunction", "disjunction"],
            "v": 5,
        },
        "fixed": {"p": [0.5, 1.0, 2.0, 5.0], "gamma": [0.005, 0.01, 0.02, 0.05, 0.1], "v": 5},
    }


# ---------------------------------------------------------------------------------------
# Baselines (scikit-learn)
# ---------------------------------------------------------------------------------------


def _svm(C):
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC

    return make_pipeline(StandardScaler(), SVC(kernel="linear", C=C))


def golub_ranking(X, y_bin):
    """Genes by decreasing |mu1 - mu0| / (sd1 + sd0) (Golub et al. 1999), ties to the lower index."""
    import numpy as np

    a, b = X[y_bin], X[~y_bin]
    score = np.abs(a.mean(0) - b.mean(0)) / (a.std(0) + b.std(0) + 1e-300)
    return np.argsort(-score, kind="stable")


def rfe_subsets(X, y, sizes):
    """SVM-RFE by halving (Guyon et al. 2002): genes kept at each size in ``sizes``."""
    import numpy as np

    keep = np.arange(X.shape[1])
    out = {}
    for size in sorted(set(sizes), reverse=True):
        while keep.size > size:
            w = _svm(1.0).fit(X[:, keep], y)[-1].coef_.ravel()
            n_next = max(size, keep.size // 2)
            # drop the genes with the smallest |w| (stable: ties keep the lower index)
            ranked = np.argsort(-np.abs(w), kind="stable")[:n_next]
            keep = keep[np.sort(ranked)]
        out[size] = keep.copy()
    return out


def _errors(pred, y):
    import numpy as np

    return int(np.sum(np.asarray(pred) != np.asarray(y)))


def run_baselines(X, y, tr, te, inner, g):
    import numpy as np
    from sklearn.ensemble import AdaBoostClassifier
    from sklearn.tree import DecisionTreeClassifier

    Xtr, ytr, Xte, yte = X[tr], y[tr], X[te], y[te]
    pos = np.unique(y)[1]
    n = X.shape[1]
    res = {}
    # Linear SVM: C by nested CV.
    cv = {
        C: sum(_errors(_svm(C).fit(Xtr[a], ytr[a]).predict(Xtr[b]), ytr[b]) for a, b in inner)
        for C in g["svm_C"]
    }
    C = min(cv, key=lambda c: (cv[c], g["svm_C"].index(c)))
    res["svm"] = {"errors": _errors(_svm(C).fit(Xtr, ytr).predict(Xte), yte)}
    # SVM + Golub filter: (i, C) by nested CV, ranking inside each training part.
    sizes = [min(2**i, n) for i in g["gs_i"]]
    cv = Counter()
    for a, b in inner:
        order = golub_ranking(Xtr[a], ytr[a] == pos)
        for s in sizes:
            for C in g["gs_C"]:
                f = order[:s]
                cv[(s, C)] += _errors(
                    _svm(C).fit(Xtr[a][:, f], ytr[a]).predict(Xtr[b][:, f]), ytr[b]
                )
    s, C = min(cv, key=lambda k: (cv[k], k[0], k[1]))
    f = golub_ranking(Xtr, ytr == pos)[:s]
    res["svm_gs"] = {
        "errors": _errors(_svm(C).fit(Xtr[:, f], ytr).predict(Xte[:, f]), yte),
        "size": s,
    }
    # SVM-RFE inside the folds (no selection bias): subset size by nested CV.
    sizes = [min(2**i, n) for i in g["rfe_i"]]
    cv = Counter()
    for a, b in inner:
        subsets = rfe_subsets(Xtr[a], ytr[a], sizes)
        for s in sizes:
            f = subsets[s]
            cv[s] += _errors(_svm(1.0).fit(Xtr[a][:, f], ytr[a]).predict(Xtr[b][:, f]), ytr[b])
    s = min(cv, key=lambda k: (cv[k], k))
    f = rfe_subsets(Xtr, ytr, [s])[s]
    res["svm_rfe"] = {
        "errors": _errors(_svm(1.0).fit(Xtr[:, f], ytr).predict(Xte[:, f]), yte),
        "size": int(s),
    }

    # AdaBoost with stumps: number of rounds by nested CV (staged predictions).
    def ada(rounds):
        return AdaBoostClassifier(
            DecisionTreeClassifier(max_depth=1), n_estimators=rounds, random_state=0
        )

    rounds = g["ada_rounds"]
    cv = Counter()
    for a, b in inner:
        stages = list(ada(max(rounds)).fit(Xtr[a], ytr[a]).staged_predict(Xtr[b]))
        for r in rounds:
            cv[r] += _errors(stages[min(r, len(stages)) - 1], ytr[b])
    r = min(cv, key=lambda k: (cv[k], k))
    res["adaboost"] = {"errors": _errors(ada(r).fit(Xtr, ytr).predict(Xte), yte), "size": int(r)}
    return res


# ---------------------------------------------------------------------------------------
# Set Covering Machines (widefs.scm)
# ---------------------------------------------------------------------------------------


def _configs(spec):
    import itertools

    keys = [k for k in spec if k != "v"]
    return [dict(zip(keys, vals)) for vals in itertools.product(*(spec[k] for k in keys))]


def _make(kind, cfg, v, rng, select):
    from widefs.scm import OccamSCM, PACBayesSCM, SampleCompressionSCM

    if kind == "sc":
        return SampleCompressionSCM(max_rules=v, select=select, **cfg)
    if kind == "occam":
        return OccamSCM(max_rules=v, select=select, feature_range=rng, **cfg)
    if kind == "pb":
        return PACBayesSCM(max_rules=v, select=select, feature_range=rng, **cfg)
    cfg = dict(cfg)
    return PACBayesSCM(
        max_rules=v, select=select, feature_range=rng, margin=cfg.pop("gamma"), **cfg
    )


def _gibbs_errors(model, X, y):
    import numpy as np

    p1 = model.predict_proba(X)[:, 1]
    return float(np.sum(np.where(y == model.classes_[1], 1.0 - p1, p1)))


def run_scm(kind, X, y, tr, te, inner, spec, rng):
    """CV-selected and bound-selected results of one SCM learner on one outer fold."""
    import numpy as np

    Xtr, ytr, Xte, yte = X[tr], y[tr], X[te], y[te]
    V = spec["v"]
    soft = kind in ("pb",)
    # Nested CV over (config, v): one fit with max_rules=V per config and inner fold,
    # every prefix evaluated (the greedy is prefix-consistent).
    scores = {}
    for ci, cfg in enumerate(_configs(spec)):
        tot = np.zeros(V)
        for a, b in inner:
            m = _make(kind, cfg, V, rng, "none").fit(Xtr[a], ytr[a])
            if soft:
                probs = list(m.staged_predict_proba(Xtr[b]))
                errs = [
                    float(np.sum(np.where(ytr[b] == m.classes_[1], 1 - p[:, 1], p[:, 1])))
                    for p in probs
                ]
            else:
                errs = [_errors(p, ytr[b]) for p in m.staged_predict(Xtr[b])]
            errs = errs[1:] or errs  # v >= 1 stumps (the empty model only if nothing was learned)
            errs = errs + [errs[-1]] * (V - len(errs))
            tot += np.asarray(errs[:V])
        for v in range(1, V + 1):
            scores[(ci, v)] = tot[v - 1]
    ci, v = min(scores, key=lambda k: (scores[k], k[1], k[0]))
    cfg = _configs(spec)[ci]
    final = _make(kind, cfg, v, rng, "none").fit(Xtr, ytr)
    out = {
        "cv": {
            "errors": _errors(final.predict(Xte), yte),
            "size": len(final.rules_),
            "config": {**cfg, "v": v},
            "bound": final.risk_bound_,
            "bits": [r.bits for r in final.rules_] if kind == "occam" else None,
            "ratios": final.margin_ratios_.tolist() if hasattr(final, "margin_ratios_") else None,
        }
    }
    if kind in ("pb", "fixed"):
        out["cv"]["gibbs_errors"] = _gibbs_errors(final, Xte, yte)
        out["cv"]["bayes_errors"] = _errors(final.predict(Xte), yte)
    # Bound-based selection: every config fitted once on the training part with
    # select="bound"; the config with the smallest bound wins (ties: grid order).
    best = None
    for cfg in _configs(spec):
        m = _make(kind, cfg, V, rng, "bound").fit(Xtr, ytr)
        if best is None or m.risk_bound_ < best[0].risk_bound_:
            best = (m, cfg)
    m, cfg = best
    out["bound"] = {
        "errors": _errors(m.predict(Xte), yte),
        "size": len(m.rules_),
        "config": cfg,
        "bound": m.risk_bound_,
    }
    if kind in ("pb", "fixed"):
        out["bound"]["gibbs_errors"] = _gibbs_errors(m, Xte, yte)
    return out


# ---------------------------------------------------------------------------------------
# Driver
# ---------------------------------------------------------------------------------------


def load(name, max_features=None):
    import numpy as np

    from widefs.datasets import load_dataset

    X, y = load_dataset(name, return_X_y=True)
    X = np.asarray(X, dtype=float)
    if max_features:
        X = X[:, :max_features]
    return X, np.asarray(y)


def one_repetition(name, rep, seed, g, algorithms, max_features, tables45):
    """All algorithms on the 5 outer folds of one permutation of one data set."""
    import numba
    from sklearn.model_selection import KFold

    from widefs.exceptions import HeuristicBoundWarning

    numba.set_num_threads(1)  # the workers already use both cores
    warnings.simplefilter("ignore", HeuristicBoundWarning)
    warnings.filterwarnings("ignore", category=UserWarning)
    X, y = load(name, max_features)
    # A-priori ranges [A_i, B_i]: the range of each gene over the whole data set (labels
    # unused): the closest available stand-in for "the definition of the data".
    rng = (X.min(axis=0), X.max(axis=0))
    outer = KFold(5, shuffle=True, random_state=seed)
    folds = []
    t0 = time.perf_counter()
    for k, (tr, te) in enumerate(outer.split(X)):
        inner = list(KFold(5, shuffle=True, random_state=seed + 1000 + k).split(tr))
        res = {}
        if "baselines" in algorithms:
            res.update(run_baselines(X, y, tr, te, inner, g))
        for kind in ("sc", "occam", "pb"):
            if kind in algorithms:
                res[kind] = run_scm(kind, X, y, tr, te, inner, g[kind], rng)
        if tables45:
            res["fixed"] = run_scm("fixed", X, y, tr, te, inner, g["fixed"], rng)
        folds.append(res)
    return {
        "dataset": name,
        "rep": rep,
        "m": int(X.shape[0]),
        "n": int(X.shape[1]),
        "folds": folds,
        "seconds": time.perf_counter() - t0,
    }


def _ms(values, digits=1):
    if not values:
        return "-"
    mean = statistics.fmean(values)
    sd = statistics.stdev(values) if len(values) > 1 else 0.0
    return f"{mean:.{digits}f}±{sd:.{digits}f}"


def summarize(results, reps, tables45):
    """Per data set: errors summed over the 5 test folds, mean +- sd over repetitions."""
    by = {}
    for r in results:
        by.setdefault(r["dataset"], []).append(r)
    S = {}
    for name, runs in by.items():
        runs.sort(key=lambda r: r["rep"])

        def tot(path, runs=runs):
            out = []
            for r in runs:
                s = 0.0
                for f in r["folds"]:
                    v = f
                    for p in path:
                        v = v[p]
                    s += v
                out.append(s)
            return out

        def sizes(path, runs=runs):
            out = []
            for r in runs:
                for f in r["folds"]:
                    v = f
                    for p in path:
                        v = v[p]
                    out.append(v)
            return out

        d = {"m": runs[0]["m"], "n": runs[0]["n"], "reps": len(runs)}
        f0 = runs[0]["folds"][0]
        if "svm" in f0:
            d["svm"] = _ms(tot(["svm", "errors"]))
            for k in ("svm_gs", "svm_rfe", "adaboost"):
                d[k] = _ms(tot([k, "errors"]))
                d[k + "_size"] = Counter(sizes([k, "size"])).most_common(1)[0][0]
        for kind in ("sc", "occam", "pb"):
            if kind in f0:
                d[kind] = _ms(tot([kind, "cv", "errors"]))
                d[kind + "_size"] = _ms(sizes([kind, "cv", "size"]))
                d[kind + "_bound_sel"] = _ms(tot([kind, "bound", "errors"]))
                d[kind + "_bound_sel_size"] = _ms(sizes([kind, "bound", "size"]))
                d[kind + "_train_bound"] = _ms([b * d["m"] for b in sizes([kind, "cv", "bound"])])
                if kind == "occam":
                    bits = [b for r in runs for f in r["folds"] for b in f["occam"]["cv"]["bits"]]
                    d["occam_bits"] = _ms(bits) if bits else "-"
                if kind == "pb":
                    d["pb_gibbs"] = _ms(tot(["pb", "cv", "gibbs_errors"]), 2)
                    d["pb_bayes"] = _ms(tot(["pb", "cv", "bayes_errors"]), 2)
                    d["pb_bound_sel_gibbs"] = _ms(tot(["pb", "bound", "gibbs_errors"]), 2)
        if "pb" in f0:
            # Table V on the first repetition: averages over its 5 test folds.
            r0 = runs[0]["folds"]
            ratios = [x for f in r0 for x in (f["pb"]["cv"]["ratios"] or [])]
            d["t5"] = {
                "ratio": statistics.fmean(ratios) if ratios else float("nan"),
                "size": statistics.fmean(f["pb"]["cv"]["size"] for f in r0),
                "gibbs": sum(f["pb"]["cv"]["gibbs_errors"] for f in r0),
                "bayes": sum(f["pb"]["cv"]["bayes_errors"] for f in r0),
                "bound": statistics.fmean(f["pb"]["cv"]["bound"] for f in r0) * d["m"],
            }
        if tables45 and "fixed" in f0:  # only the first repetition runs the fixed margin
            r0 = runs[0]["folds"]
            d["t4"] = {
                "size": statistics.fmean(f["fixed"]["cv"]["size"] for f in r0),
                "errors": sum(f["fixed"]["cv"]["errors"] for f in r0),
                "bound": statistics.fmean(f["fixed"]["cv"]["bound"] for f in r0) * d["m"],
                "gamma": Counter(f["fixed"]["cv"]["config"]["gamma"] for f in r0).most_common(1)[0][
                    0
                ],
            }
        S[name] = d
    return S


def render(S, args, g, elapsed, command) -> str:
    P = PAPER
    L = [
        "# Shah, Marchand & Corbeil (2010): conjunctions of decision stumps on microarray data",
        "",
    ]
    L += [
        f"Command: `{command}`",
        "",
        f"{args.reps} repetition(s) of 5-fold CV (a fresh random permutation each; the paper used 20), "
        "parameters by nested 5-fold CV on each training part, the same folds for every algorithm. "
        "Errors = misclassified examples over the 5 test folds, mean±sd over repetitions. "
        f"Wall time {elapsed / 60:.1f} min with {args.jobs} worker process(es), single-threaded numba.",
        "",
        "Data: our bundled copies differ from the paper's where noted in `src/widefs/datasets/descr/PROVENANCE.md`: "
        "medulloblastoma_b has 5893 genes (Brunet et al.'s filtered version, not 7129), medulloblastoma_c "
        "7128 sample-standardized genes, breast_er 46 samples (23/23) instead of 49 (25/24); the Lung "
        "data set (52 x 918) was not found and is left out. Majority-class error counts: "
        + ", ".join(f"{PAPER_NAMES[k]} {v}" for k, v in MAJORITY.items())
        + ", BreastER 23 (ours).",
        "",
        "A-priori ranges [A_i, B_i] (Occam and PAC-Bayes): each gene's minimum and maximum over the whole "
        "data set (labels unused), as a stand-in for the data's definition.",
        "",
    ]
    gd = g
    L += [
        "## Parameter grids",
        "",
        f"- linear SVM (standardized genes, `SVC(kernel='linear')`): C in {gd['svm_C']}",
        f"- SVM+gs: top 2^i genes by Golub's |mu+ - mu-| / (sd+ + sd-), i in {gd['gs_i']}, C in {gd['gs_C']}; ranking inside each training part",
        f"- SVM+rfe: halving SVM-RFE (C = 1) run inside each training part, 2^i genes, i in {gd['rfe_i']}",
        f"- AdaBoost (scikit-learn SAMME, depth-1 trees): rounds in {gd['ada_rounds']} (the paper tried 10-2000; its chosen values are all <= 50)",
        f"- SC: p in {gd['sc']['p']}, model_type in {gd['sc']['model_type']}, v = 1..{gd['sc']['v']} stumps",
        f"- Occam: p in {gd['occam']['p']}, eta in {gd['occam']['eta']}, model_type in {gd['occam']['model_type']}, v = 1..{gd['occam']['v']}",
        f"- PAC-Bayes: p in {gd['pb']['p']}, eta in {gd['pb']['eta']}, model_type in {gd['pb']['model_type']}, v = 1..{gd['pb']['v']}; selected by the expected Gibbs errors",
        f"- fixed margin (Table IV): p in {gd['fixed']['p']}, gamma (half-width / range) in {gd['fixed']['gamma']}, v = 1..{gd['fixed']['v']}",
        "- bound-based selection: the same grids; each configuration is fitted once on the training part with "
        "`select='bound'` (number of stumps = the prefix of smallest bound) and the configuration with the smallest "
        "bound is kept; no nested CV. delta = 0.05 everywhere.",
        "",
    ]

    def row(name, cells):
        return "| " + " | ".join([PAPER_NAMES[name], *[str(c) for c in cells]]) + " |"

    names = [n for n in DATASETS if n in S]
    if names and "svm" in S[names[0]]:
        L += [
            "## Table I: SVM, SVM+gs, SVM+rfe, AdaBoost (errors; S = most frequent number of genes / rounds)",
            "",
            "| data | ex x genes (ours / paper) | SVM | SVM+gs | S | SVM+rfe | S | AdaBoost | Itrs | paper SVM | paper SVM+gs | S | paper SVM+rfe | S | paper Itrs | paper AdaBoost |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
        ]
        for n in names:
            d, p = S[n], P["table1"][n]
            L.append(
                row(
                    n,
                    [
                        f"{d['m']} x {d['n']} / {P['shape'][n]}",
                        d["svm"],
                        d["svm_gs"],
                        d["svm_gs_size"],
                        d["svm_rfe"],
                        d["svm_rfe_size"],
                        d["adaboost"],
                        d["adaboost_size"],
                        *p,
                    ],
                )
            )
        L.append("")
    if names and "sc" in S[names[0]]:
        L += [
            "## Table II: Occam and sample compression (CV-selected; S = number of stumps)",
            "",
            "| data | Occam errs | S | bits | SC errs | S | paper Occam errs | S | bits | paper SC errs | S |",
            "|---|---|---|---|---|---|---|---|---|---|---|",
        ]
        for n in names:
            d, p = S[n], P["table2"][n]
            L.append(
                row(n, [d["occam"], d["occam_size"], d["occam_bits"], d["sc"], d["sc_size"], *p])
            )
        L.append("")
    if names and "pb" in S[names[0]]:
        L += [
            "## Table III: PAC-Bayes (CV-selected; G-errs = expected Gibbs errors, B-errs = Bayes classifier)",
            "",
            "| data | S | G-errs | B-errs | paper S | paper G-errs | paper B-errs |",
            "|---|---|---|---|---|---|---|",
        ]
        for n in names:
            d, p = S[n], P["table3"][n]
            L.append(row(n, [d["pb_size"], d["pb_gibbs"], d["pb_bayes"], *p]))
        L.append("")
    if names and "t4" in S[names[0]]:
        L += [
            "## Table IV: PAC-Bayes fixed-margin heuristic (first repetition; Bound = mean Theorem 5 bound x m)",
            "",
            "| data | Size | Errors | Bound | gamma | paper Size | paper Errors | paper Bound |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for n in names:
            t, p = S[n]["t4"], P["table4"][n]
            L.append(row(n, [f"{t['size']:.1f}", t["errors"], f"{t['bound']:.1f}", t["gamma"], *p]))
        L.append("")
    if names and "t5" in S[names[0]]:
        L += [
            "## Table V: the PAC-Bayes bound on one run (first repetition; Ratio = mean (b-a)/(B-A), Bound = mean bound x m)",
            "",
            "| data | Ratio | Size | G-errs | B-errs | Bound | paper Ratio | Size | G-errs | B-errs | Bound |",
            "|---|---|---|---|---|---|---|---|---|---|---|",
        ]
        for n in names:
            t, p = S[n]["t5"], P["table5"][n]
            L.append(
                row(
                    n,
                    [
                        f"{t['ratio']:.3f}",
                        f"{t['size']:.1f}",
                        f"{t['gibbs']:.1f}",
                        t["bayes"],
                        f"{t['bound']:.1f}",
                        *p,
                    ],
                )
            )
        L.append("")
    if names and "sc" in S[names[0]]:
        L += [
            "## Bound-based selection (no nested CV) beside CV-based selection",
            "",
            "Errors over the 5 test folds (mean±sd over repetitions) and number of stumps; for PAC-Bayes the "
            "Bayes-classifier errors (G = expected Gibbs errors). Train bound = the CV-selected model's bound x m.",
            "",
            "| data | SC cv | SC bound | S cv / bound | Occam cv | Occam bound | S cv / bound | PAC-Bayes cv | PAC-Bayes bound | G bound | S cv / bound | PB train bound |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|",
        ]
        for n in names:
            d = S[n]
            L.append(
                row(
                    n,
                    [
                        d["sc"],
                        d["sc_bound_sel"],
                        f"{d['sc_size']} / {d['sc_bound_sel_size']}",
                        d["occam"],
                        d["occam_bound_sel"],
                        f"{d['occam_size']} / {d['occam_bound_sel_size']}",
                        d["pb_bayes"],
                        d["pb_bound_sel"],
                        d["pb_bound_sel_gibbs"],
                        f"{d['pb_size']} / {d['pb_bound_sel_size']}",
                        d["pb_train_bound"],
                    ],
                )
            )
        L.append("")
    return "\n".join(L)


COMMENTARY_MARK = "<!-- commentary -->"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--quick",
        action="store_true",
        help="tiny grids, 2 data sets truncated to 150 genes, 1 repetition",
    )
    ap.add_argument(
        "--reps", type=int, default=None, help="repetitions of 5-fold CV (full default: 5)"
    )
    ap.add_argument("--jobs", type=int, default=2, help="worker processes")
    ap.add_argument("--datasets", default=",".join(DATASETS))
    ap.add_argument("--seed", type=int, default=2010)
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--raw", type=Path, default=None, help="also write per-fold results as JSON")
    args = ap.parse_args(argv)
    quick = args.quick
    args.reps = args.reps or (1 if quick else 5)
    names = args.datasets.split(",")
    max_features = None
    algorithms = {"baselines", "sc", "occam", "pb"}
    if quick:
        names = [n for n in names if n in ("colon", "medulloblastoma_b")][:2] or names[:1]
        max_features = 150
        args.jobs = 1
    g = grids(quick)
    from widefs.utils import spawn_seeds

    seeds = spawn_seeds(args.seed, args.reps)
    # Largest data sets first, so the two workers finish together.
    cost = {"leukemia": 0, "medulloblastoma_c": 1, "breast_er": 2, "colon": 3}
    names = sorted(names, key=lambda n: cost.get(n, 9))
    tasks = [(n, r, int(seeds[r])) for r in range(args.reps) for n in names]
    t0 = time.perf_counter()
    if args.jobs > 1:
        from joblib import Parallel, delayed

        results = Parallel(n_jobs=args.jobs, verbose=0)(
            delayed(one_repetition)(n, r, s, g, algorithms, max_features, r == 0)
            for n, r, s in tasks
        )
    else:
        results = [
            one_repetition(n, r, s, g, algorithms, max_features, r == 0) for n, r, s in tasks
        ]
    elapsed = time.perf_counter() - t0
    S = summarize(results, args.reps, True)
    command = "python experiments/shah2010/run.py " + " ".join(
        argv if argv is not None else sys.argv[1:]
    )
    text = render(S, args, g, elapsed, ("nice " if not quick else "") + command.strip())
    out = Path(args.out)
    old = out.read_text() if out.exists() else ""
    commentary = (
        old.split(COMMENTARY_MARK, 1)[1]
        if COMMENTARY_MARK in old
        else "\n\n## Commentary\n\n(to be written)\n"
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text + "\n" + COMMENTARY_MARK + commentary)
    if args.raw:
        Path(args.raw).write_text(json.dumps(results, indent=1))
    print(text)
    print(f"\nwrote {out} in {elapsed:.1f} s")
    return 0
