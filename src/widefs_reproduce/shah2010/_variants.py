"""The colon probe: Occam and SC under variants of the protocol, on the same folds.

Each variant changes one thing in the CV-selected protocol of Table II and runs on the
outer and inner folds of the protocol's repetitions, so its errors pair with the protocol's
fold by fold.
"""

from __future__ import annotations

import time

import numpy as np

from widefs_reproduce.shah2010._data import load, quiet_single_threaded
from widefs_reproduce.shah2010._runs import folds
from widefs_reproduce.shah2010._scm import run_scm

__all__ = [
    "HYPOTHESES",
    "hypothesis_grids",
    "one_hypothesis",
    "protocol_as_variant",
    "summarize_hypotheses",
]

# Each variant changes one thing in the protocol of Occam and SC (CV-selected) on colon.
HYPOTHESES = {
    "protocol": "the protocol above (conjunctions and disjunctions, the p / eta grids, "
    "v = 1..5 chosen by nested CV over the prefixes of one greedy run)",
    "conjunction": "conjunctions only (the paper's model)",
    "p=1": "p = 1 only (no penalty search)",
    "p wide": "p in {0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100}",
    "v=max": "no early stopping: v = 5 (the greedy stops earlier only when the negatives "
    "are covered); p, eta by nested CV",
    "bound": "p, eta and v chosen by the training-set bound (select='bound', no CV)",
    "log2": "genes log2-transformed (stumps are invariant; changes Occam's codes)",
    "sample z": "each sample standardized across its genes (mean 0, sd 1)",
    "train range": "Occam's a-priori ranges [A_i, B_i] from the training part, not the whole data",
    "shuffled genes": "gene columns randomly permuted per outer fold (ties between equally "
    "good stumps broken at random instead of by the lowest index)",
}


def hypothesis_grids(name: str, g: dict) -> dict:
    """SC and Occam grids of one variant."""
    sc, occam = dict(g["sc"]), dict(g["occam"])
    if name == "conjunction":
        sc["model_type"] = occam["model_type"] = ["conjunction"]
    elif name == "p=1":
        sc["p"] = occam["p"] = [1.0]
    elif name == "p wide":
        sc["p"] = occam["p"] = [0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0]
    return {"sc": sc, "occam": occam}


def _transformed(variant, X):
    if variant == "log2":
        return np.log2(X)
    if variant == "sample z":
        return (X - X.mean(axis=1, keepdims=True)) / X.std(axis=1, keepdims=True)
    return X


def _one_kind(variant, kind, Xf, y, tr, te, inner, spec, rng):
    if variant == "bound":
        out = run_scm(kind, Xf, y, tr, te, inner, spec, rng, cv=False)["bound"]
    elif variant == "v=max":
        out = run_scm(kind, Xf, y, tr, te, inner, spec, rng, fixed_v=spec["v"])["cv"]
    else:
        out = run_scm(kind, Xf, y, tr, te, inner, spec, rng, bound=False)["cv"]
    return {"errors": out["errors"], "size": out["size"]}


def one_hypothesis(variant, rep, seed, g, max_features):
    """Occam and SC on colon's 5 outer folds of one repetition, under one variant."""
    quiet_single_threaded()
    X, y = load("colon", max_features)
    X = _transformed(variant, X)
    grids_v = hypothesis_grids(variant, g)
    t0, c0 = time.perf_counter(), time.process_time()
    perm_rng = np.random.RandomState(seed)
    results = []
    for tr, te, inner in folds(X, seed):
        Xf = X
        if variant == "shuffled genes":
            Xf = X[:, perm_rng.permutation(X.shape[1])]
        part = Xf[tr] if variant == "train range" else Xf
        rng = (part.min(axis=0), part.max(axis=0))
        results.append(
            {
                kind: _one_kind(variant, kind, Xf, y, tr, te, inner, grids_v[kind], rng)
                for kind in ("sc", "occam")
            }
        )
    return {
        "variant": variant,
        "rep": rep,
        "seed": seed,
        "folds": results,
        "seconds": time.perf_counter() - t0,
        "cpu_seconds": time.process_time() - c0,
    }


def protocol_as_variant(result, variant):
    """A protocol run's Occam / SC results (CV- or bound-selected) as a variant's result."""
    sel = "bound" if variant == "bound" else "cv"
    per_fold = [
        {k: {"errors": f[k][sel]["errors"], "size": f[k][sel]["size"]} for k in ("sc", "occam")}
        for f in result["folds"]
    ]
    return {"variant": variant, "rep": result["rep"], "seed": result["seed"], "folds": per_fold}


def summarize_hypotheses(results) -> dict:
    """Per variant: Occam and SC errors (sum over folds) and sizes, per repetition."""
    out = {}
    for r in sorted(results, key=lambda r: (list(HYPOTHESES).index(r["variant"]), r["rep"])):
        v = out.setdefault(r["variant"], {"reps": []})
        v["reps"].append(r["rep"])
        for kind in ("sc", "occam"):
            v.setdefault(kind, []).append(sum(f[kind]["errors"] for f in r["folds"]))
            v.setdefault(kind + "_size", []).extend(f[kind]["size"] for f in r["folds"])
            v.setdefault(kind + "_folds", []).extend(f[kind]["errors"] for f in r["folds"])
    return out
