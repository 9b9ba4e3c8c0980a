"""Per data set: the numbers behind every table, from the stored repetitions."""

from __future__ import annotations

import statistics
from collections import Counter

__all__ = ["ms", "summarize"]


def ms(values, digits=1) -> str:
    """``mean±sd`` of ``values`` (sd 0 for one value, "-" for none).

    Examples
    --------
    >>> ms([10, 12, 14])
    '12.0±2.0'
    """
    if not values:
        return "-"
    mean = statistics.fmean(values)
    sd = statistics.stdev(values) if len(values) > 1 else 0.0
    return f"{mean:.{digits}f}±{sd:.{digits}f}"


def _get(fold, path):
    for p in path:
        fold = fold[p]
    return fold


def _totals(runs, path):
    """Per repetition: the value at ``path`` summed over the 5 test folds."""
    return [sum(_get(f, path) for f in r["folds"]) for r in runs]


def _per_fold(runs, path):
    """Every fold's value at ``path``, all repetitions."""
    return [_get(f, path) for r in runs for f in r["folds"]]


def _baselines(d, runs):
    d["svm"] = ms(_totals(runs, ["svm", "errors"]))
    for k in ("svm_gs", "svm_rfe", "adaboost"):
        d[k] = ms(_totals(runs, [k, "errors"]))
        d[k + "_size"] = Counter(_per_fold(runs, [k, "size"])).most_common(1)[0][0]


def _scm(d, runs, kind):
    d[kind] = ms(_totals(runs, [kind, "cv", "errors"]))
    d[kind + "_size"] = ms(_per_fold(runs, [kind, "cv", "size"]))
    d[kind + "_bound_sel"] = ms(_totals(runs, [kind, "bound", "errors"]))
    d[kind + "_bound_sel_size"] = ms(_per_fold(runs, [kind, "bound", "size"]))
    d[kind + "_train_bound"] = ms([b * d["m"] for b in _per_fold(runs, [kind, "cv", "bound"])])
    if kind == "occam":
        bits = [b for r in runs for f in r["folds"] for b in f["occam"]["cv"]["bits"]]
        d["occam_bits"] = ms(bits) if bits else "-"
    if kind == "pb":
        d["pb_gibbs"] = ms(_totals(runs, ["pb", "cv", "gibbs_errors"]), 2)
        d["pb_bayes"] = ms(_totals(runs, ["pb", "cv", "bayes_errors"]), 2)
        d["pb_bound_sel_gibbs"] = ms(_totals(runs, ["pb", "bound", "gibbs_errors"]), 2)
        bounds = _per_fold(runs, ["pb", "bound", "bound"])
        d["pb_bound_sel_train_bound"] = ms([b * d["m"] for b in bounds])


def _table5(d, first):
    """Table V on the first repetition: averages over its 5 test folds."""
    r0 = first["folds"]
    for label, sel in (("t5", "cv"), ("t5b", "bound")):
        ratios = [x for f in r0 for x in (f["pb"][sel].get("ratios") or [])]
        d[label] = {
            "ratio": statistics.fmean(ratios) if ratios else float("nan"),
            "size": statistics.fmean(f["pb"][sel]["size"] for f in r0),
            "gibbs": sum(f["pb"][sel]["gibbs_errors"] for f in r0),
            "bayes": sum(f["pb"][sel].get("bayes_errors", f["pb"][sel]["errors"]) for f in r0),
            "bound": statistics.fmean(f["pb"][sel]["bound"] for f in r0) * d["m"],
        }


def _table4(d, first):
    """Table IV: only the first repetition runs the fixed margin."""
    r0 = [f["fixed"]["cv"] for f in first["folds"]]
    d["t4"] = {
        "size": statistics.fmean(f["size"] for f in r0),
        "errors": sum(f["errors"] for f in r0),
        "bound": statistics.fmean(f["bound"] for f in r0) * d["m"],
        "gamma": Counter(f["config"]["gamma"] for f in r0).most_common(1)[0][0],
    }


def summarize(results, tables45=True) -> dict:
    """Per data set: errors summed over the 5 test folds, mean±sd over repetitions."""
    by = {}
    for r in results:
        by.setdefault(r["dataset"], []).append(r)
    S = {}
    for name, runs in by.items():
        runs.sort(key=lambda r: r["rep"])
        d = {
            "m": runs[0]["m"],
            "n": runs[0]["n"],
            "reps": len(runs),
            "majority": runs[0].get("majority_errors"),
        }
        f0 = runs[0]["folds"][0]
        if "svm" in f0:
            _baselines(d, runs)
        for kind in ("sc", "occam", "pb"):
            if kind in f0:
                _scm(d, runs, kind)
        if "pb" in f0:
            _table5(d, runs[0])
        if tables45 and "fixed" in f0:
            _table4(d, runs[0])
        S[name] = d
    return S
