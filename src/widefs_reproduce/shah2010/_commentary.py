"""The commentary under the tables: each statement computed from the stored runs, or marked
as untested."""

from __future__ import annotations

import numpy as np

from widefs_reproduce.shah2010._data import DATASETS, PAPER, PAPER_NAMES

__all__ = ["commentary"]


def _mean_sd(cell) -> tuple[float, float]:
    mean, _, sd = str(cell).partition("±")
    return float(mean), float(sd) if sd else 0.0


def _baselines(S) -> str:
    mixed, same = [], []
    keys = [
        ("svm", ("table1", 0)),
        ("svm_gs", ("table1", 1)),
        ("svm_rfe", ("table1", 3)),
        ("adaboost", ("table1", 6)),
        ("occam", ("table2", 0)),
        ("sc", ("table2", 3)),
        ("pb_bayes", ("table3", 2)),
    ]
    for name in [n for n in DATASETS if n in S and "svm" in S[n]]:
        gaps = [_mean_sd(S[name][k])[0] - _mean_sd(PAPER[t][name][i])[0] for k, (t, i) in keys]
        text = f"{PAPER_NAMES[name]} {min(gaps):+.1f} to {max(gaps):+.1f}"
        (same if min(gaps) * max(gaps) > 0 else mixed).append(text)
    return (
        "**Ours against the paper (the gap table).** On "
        + ("; ".join(same) or "no data set")
        + " every algorithm moves the same way; on "
        + ("; ".join(mixed) or "no data set")
        + " the sign differs between algorithms, so no single difference of data or "
        "preprocessing accounts for those. Which of the documented data differences matter is "
        "untested."
    )


def _pac_bayes(S) -> str:
    within = []
    for name in [n for n in DATASETS if n in S and "pb_bayes" in S[n]]:
        ours = _mean_sd(S[name]["pb_bayes"])[0]
        paper, sd = _mean_sd(PAPER["table3"][name][2])
        if abs(ours - paper) <= sd:
            within.append(PAPER_NAMES[name])
    return (
        "**PAC-Bayes (Table III).** The CV-selected Bayes classifier is within one of the "
        "paper's standard deviations of the paper's errors on "
        + (", ".join(within) or "no data set")
        + ". The bound-selected model sits beside it: its bound is, by construction, the "
        "smallest the grid offers on each training part."
    )


def _fixed_margin(S) -> str:
    names = [n for n in DATASETS if n in S and "t4" in S[n] and "t5" in S[n]]
    if not names:
        return ""
    worse = [n for n in names if S[n]["t4"]["errors"] >= S[n]["t5"]["bayes"]]
    return (
        "**Fixed margin (Table IV) and the bound (Table V).** The paper's point is that the "
        "fixed-margin heuristic is no better than learned margins; on our first repetition it "
        f"makes at least as many errors as the learned margins on {len(worse)} of {len(names)} "
        "data sets. Our margin ratios "
        "differ from the paper's; that the a-priori ranges [A_i, B_i] (which the paper does "
        "not give) are the cause is untested for PAC-Bayes."
    )


def _bound_selection(results) -> str:
    cost, empty = {}, []
    for kind in ("sc", "occam", "pb"):
        diffs = [
            sum(f[kind]["bound"]["errors"] - f[kind]["cv"]["errors"] for f in r["folds"])
            for r in results
            if kind in r["folds"][0]
        ]
        if diffs:
            cost[kind] = float(np.mean(diffs))
    sizes = [
        f["occam"]["bound"]["size"] for r in results if "occam" in r["folds"][0] for f in r["folds"]
    ]
    if sizes:
        empty.append(f"{100 * np.mean(np.array(sizes) == 0):.0f}%")
    return (
        "**Bound-based selection.** Choosing the parameters and the number of stumps by the "
        "training-set bound, without nested CV, changes the errors over the 5 test folds by "
        + ", ".join(f"{k} {v:+.1f}" for k, v in cost.items())
        + " on average over data sets and repetitions. Occam's bound-selected model is the "
        "empty conjunction (majority class) in "
        + (empty[0] if empty else "no")
        + " of the folds: on so few examples the Occam bound of one stump plus its code bits "
        "is rarely below that of the trivial classifier (bound arithmetic, read off the "
        "stored models)."
    )


def commentary(S, results) -> str:
    """The commentary paragraphs."""
    parts = [_baselines(S), _pac_bayes(S), _fixed_margin(S), _bound_selection(results)]
    return "\n## Commentary\n\n" + "\n\n".join(p for p in parts if p) + "\n"
