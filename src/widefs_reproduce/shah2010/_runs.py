"""One repetition of the protocol on one data set: every algorithm on the same 5 outer folds."""

from __future__ import annotations

import time

import numpy as np

from widefs_reproduce.shah2010._baselines import run_baselines
from widefs_reproduce.shah2010._data import load, quiet_single_threaded
from widefs_reproduce.shah2010._scm import run_scm

__all__ = ["conjunction_grids", "folds", "one_conjunction", "one_repetition"]


def folds(X, seed):
    """The outer 5-fold split of a repetition and each training part's inner 5-fold split."""
    from sklearn.model_selection import KFold

    outer = KFold(5, shuffle=True, random_state=seed)
    for k, (tr, te) in enumerate(outer.split(X)):
        yield tr, te, list(KFold(5, shuffle=True, random_state=seed + 1000 + k).split(tr))


def _record(name, rep, seed, X, y, results, t0, c0) -> dict:
    """A repetition's stored result: its folds, the data's shape and majority errors, time."""
    return {
        "dataset": name,
        "rep": rep,
        "seed": seed,
        "m": int(X.shape[0]),
        "n": int(X.shape[1]),
        "majority_errors": int(min(np.unique(y, return_counts=True)[1])),
        "folds": results,
        "seconds": time.perf_counter() - t0,
        "cpu_seconds": time.process_time() - c0,
    }


def one_repetition(name, rep, seed, g, algorithms, max_features, tables45):
    """All algorithms on the 5 outer folds of one permutation of one data set."""
    quiet_single_threaded()
    X, y = load(name, max_features)
    # A-priori ranges [A_i, B_i]: the range of each gene over the whole data set (labels
    # unused): the closest available stand-in for "the definition of the data".
    rng = (X.min(axis=0), X.max(axis=0))
    results = []
    t0, c0 = time.perf_counter(), time.process_time()
    for tr, te, inner in folds(X, seed):
        res = {}
        if "baselines" in algorithms:
            res.update(run_baselines(X, y, tr, te, inner, g))
        for kind in ("sc", "occam", "pb"):
            if kind in algorithms:
                res[kind] = run_scm(kind, X, y, tr, te, inner, g[kind], rng)
        if tables45:
            res["fixed"] = run_scm("fixed", X, y, tr, te, inner, g["fixed"], rng)
        results.append(res)
    return _record(name, rep, seed, X, y, results, t0, c0)


def conjunction_grids(g) -> dict:
    """The SC, Occam and PAC-Bayes grids with conjunctions only (the paper's model)."""
    return {kind: {**g[kind], "model_type": ["conjunction"]} for kind in ("sc", "occam", "pb")}


def one_conjunction(name, rep, seed, g, max_features):
    """SC, Occam and PAC-Bayes with conjunctions only, on the protocol's folds of one
    repetition (CV- and bound-selected, as in Tables II and III)."""
    quiet_single_threaded()
    X, y = load(name, max_features)
    rng = (X.min(axis=0), X.max(axis=0))
    conj = conjunction_grids(g)
    results = []
    t0, c0 = time.perf_counter(), time.process_time()
    for tr, te, inner in folds(X, seed):
        results.append({kind: run_scm(kind, X, y, tr, te, inner, conj[kind], rng) for kind in conj})
    return _record(name, rep, seed, X, y, results, t0, c0)
