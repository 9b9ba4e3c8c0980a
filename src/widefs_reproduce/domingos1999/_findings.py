"""Computed statements: POE2 against CN2 per mode, split by split, and the error gaps."""

from __future__ import annotations

import numpy as np
import pandas as pd

from widefs_reproduce.domingos1999._data import PAPER
from widefs_reproduce.domingos1999._runs import POE2C
from widefs_reproduce.domingos1999._tables import TOL, split_counts

__all__ = ["against_cn2", "findings", "verdict"]


def against_cn2(results: pd.DataFrame, mode: str, method: str) -> dict:
    """``method`` against CN2 (no test) in one mode, as the paper compares them.

    Sizes: datasets where the mean theory is smaller, and the change of the mean size over
    datasets. Errors: the mean over datasets of each method, and the standard error of
    CN2's mean, ``sqrt(sum_d se_d^2) / D`` with ``se_d`` the standard error over splits.
    """
    sub = results[results["mode"] == mode]
    per = sub.groupby(["method", "dataset"])[["error", "size"]]
    mean, sd, n = per.mean(), per.std(ddof=1), per.count()
    labels = list(sub["dataset"].unique())
    cn2, other = mean.loc["CN2"].loc[labels], mean.loc[method].loc[labels]
    se = (sd.loc["CN2"] / np.sqrt(n.loc["CN2"])).loc[labels, "error"]
    se_mean = float(np.sqrt(np.sum(se.to_numpy() ** 2)) / len(labels))
    return {
        "smaller": int(np.sum(other["size"] < cn2["size"] - TOL)),
        "n": len(labels),
        "size": (float(cn2["size"].mean()), float(other["size"].mean())),
        "cut": float(100 * (1 - other["size"].mean() / cn2["size"].mean())),
        "error": (float(cn2["error"].mean()), float(other["error"].mean())),
        "cn2_se": se_mean,
        "within_se": bool(abs(other["error"].mean() - cn2["error"].mean()) <= se_mean),
        "datasets_within_se": int(np.sum(np.abs(other["error"] - cn2["error"]) <= se)),
    }


def _majority_of_splits(results, mode, method) -> str:
    """Data sets where the theory is smaller in most splits, and those where it is not."""
    c = split_counts(results, mode, method)
    most = c[c["smaller"] > c["n"] / 2]
    rest = c[c["smaller"] <= c["n"] / 2]
    text = (
        f"smaller in most of the {int(c['n'].iloc[0])} splits on {len(most)} of {len(c)} datasets"
    )
    if len(rest):
        text += (
            " (not on "
            + ", ".join(f"{lab}: {int(r['smaller'])}" for lab, r in rest.iterrows())
            + ")"
        )
    return text


def _against_text(c: dict, results, mode, method) -> str:
    return (
        f"mean theory smaller than CN2's on {c['smaller']} of {c['n']} datasets and "
        f"{_majority_of_splits(results, mode, method)}; mean size "
        f"{c['size'][0]:.1f} -> {c['size'][1]:.1f} ({c['cut']:.1f}% fewer conditions); mean "
        f"error {c['error'][0]:.1f}% -> {c['error'][1]:.1f}% "
        f"({'within' if c['within_se'] else 'outside'} one standard error of CN2's mean, "
        f"{c['cn2_se']:.2f} points; within CN2's standard error on "
        f"{c['datasets_within_se']} of {c['n']} datasets)"
    )


def _mode_lines(results, mode) -> list[str]:
    poe2 = against_cn2(results, mode, "CN2-POE2")
    lines = [
        f"- **{mode}, CN2-POE2 (the paper's prior)**: {_against_text(poe2, results, mode, 'CN2-POE2')}."
    ]
    sub = results[results["mode"] == mode].set_index(["dataset", "split"])
    pick = ["error", "size", "rules"]
    if sub[sub["method"] == POE2C][pick].equals(sub[sub["method"] == "CN2-POE2"][pick]):
        lines.append(
            f"- **{mode}, CN2-POE2c (class prior)**: identical to CN2-POE2 on every split "
            "(in ordered mode the empty rule predicts the majority class, so the two "
            "priors coincide)."
        )
    else:
        c = against_cn2(results, mode, POE2C)
        lines.append(
            f"- **{mode}, CN2-POE2c (class prior)**: {_against_text(c, results, mode, POE2C)}."
        )
    return lines


def _gaps(results) -> str:
    """The largest gaps between our CN2 error and the paper's, per mode."""
    per = results[results["method"] == "CN2"].groupby(["mode", "dataset"])["error"].mean()
    gaps = sorted(
        ((v - PAPER[lab][0][0], mode, lab) for (mode, lab), v in per.items()),
        key=lambda g: -abs(g[0]),
    )[:4]
    return (
        "- **Largest gaps between our CN2 errors and the paper's** (points, ours - paper): "
        + ", ".join(f"{lab} {mode} {g:+.1f}" for g, mode, lab in gaps)
        + ". Unexplained: no experiment on this page accounts for them (the data-version "
        "explanation below is untested)."
    )


def findings(results: pd.DataFrame) -> str:
    """Computed statements: POE2 against CN2 in both modes, and which mode matches the paper."""
    labels = list(results["dataset"].unique())
    modes = list(results["mode"].unique())
    per = results.groupby(["mode", "method", "dataset"])[["error", "size", "cpu"]].mean()
    paper = np.array([PAPER[lab] for lab in labels])
    paper_cut = 100 * (1 - paper[:, 5, 0].mean() / paper[:, 3, 0].mean())
    paper_smaller = int(np.sum(paper[:, 5, 0] < paper[:, 3, 0]))
    lines = [
        "## Findings (computed from the tables below)",
        "",
        "The paper's Table 1 (our counts and means of its printed rows; the text prints "
        f"none of them): CN2-POE2's theory is smaller than CN2's on {paper_smaller} of "
        f"{len(labels)} datasets, mean size {paper[:, 3, 0].mean():.1f} -> "
        f"{paper[:, 5, 0].mean():.1f} ({paper_cut:.1f}% fewer conditions), mean error "
        f"{paper[:, 0, 0].mean():.1f}% -> {paper[:, 2, 0].mean():.1f}%. Ours, in each mode "
        "(the paper does not say which mode its CN2 used; per-split counts in the table "
        "'POE against CN2, split by split'):",
        "",
    ]
    for mode in modes:
        lines += _mode_lines(results, mode)
    size_gap = {
        mode: float(np.mean(np.abs(per.loc[(mode, "CN2")].loc[labels, "size"] - paper[:, 3, 0])))
        for mode in modes
    }
    closest = min(size_gap, key=size_gap.get)
    others = ", ".join(f"{m}: {g:.1f}" for m, g in size_gap.items() if m != closest)
    lines.append(
        f"- **Closest mode to the paper's CN2 sizes: {closest}** (mean absolute difference "
        f"{size_gap[closest]:.1f} conditions{'; ' + others if others else ''})."
    )
    lines.append(_gaps(results))
    return "\n".join([*lines, ""])


def verdict(results: pd.DataFrame) -> str:
    """The page's opening lines: the paper's claim and ours, in each mode."""
    labels = list(results["dataset"].unique())
    paper = np.array([PAPER[lab] for lab in labels])
    paper_cut = 100 * (1 - paper[:, 5, 0].mean() / paper[:, 3, 0].mean())
    ours = []
    for mode in results["mode"].unique():
        c = against_cn2(results, mode, "CN2-POE2")
        ours.append(
            f"{mode}, on {c['smaller']} of {c['n']} datasets, {c['cut']:.1f}% fewer conditions "
            f"at a mean error of {c['error'][1]:.1f}% against {c['error'][0]:.1f}%"
        )
    per = results[results["method"] == "CN2"].groupby(["mode", "dataset"])["error"].mean()
    gap, mode, lab = max(
        ((v - PAPER[lab][0][0], mode, lab) for (mode, lab), v in per.items()),
        key=lambda g: abs(g[0]),
    )
    return (
        "**Verdict.** CN2-POE2 gives smaller rule sets than CN2 at about the same error, as "
        f"the paper reports ({int(np.sum(paper[:, 5, 0] < paper[:, 3, 0]))} of {len(labels)} "
        f"datasets, {paper_cut:.1f}% fewer conditions): " + "; ".join(ours) + ". The largest "
        f"gap between our CN2 error and the paper's ({lab}, {mode}: {gap:+.1f} points) is "
        "unexplained."
    )
