"""The colon probe on the page: each variant paired with the protocol, repetition by
repetition, and what holds."""

from __future__ import annotations

import statistics

import numpy as np
from scipy import stats

from widefs_reproduce._paired import wilcoxon_signed_rank
from widefs_reproduce.shah2010._data import PAPER
from widefs_reproduce.shah2010._summary import ms
from widefs_reproduce.shah2010._variants import HYPOTHESES

__all__ = ["LEVEL", "MIN_REPS", "paired_change", "probe_findings", "render_hypotheses"]

LEVEL = 0.05  # a variant's effect "holds" when the paired t-test over repetitions rejects
MIN_REPS = 5  # and only with at least this many repetitions behind the test


def paired_change(v: dict, base: dict, kind: str):
    """The variant's change against the protocol on the same repetitions, or None when the
    two rows differ in repetitions.

    Per repetition, the difference of the errors summed over the 5 test folds: their mean,
    standard error, the two-sided paired t-test p-value over repetitions (the decision) and
    the exact Wilcoxon p-value over the per-fold differences (folds of one repetition share
    data, so that one is only a second look). ``None`` when the rows differ in repetitions.
    """
    if v["reps"] != base["reps"]:
        return None
    d = np.array(v[kind]) - np.array(base[kind])
    folds = np.array(v[kind + "_folds"]) - np.array(base[kind + "_folds"])
    R = d.size
    se = d.std(ddof=1) / np.sqrt(R) if R > 1 else float("nan")
    if R < 2:
        p = float("nan")
    elif np.all(d == d[0]):
        p = 1.0 if d[0] == 0 else 0.0
    else:
        p = float(stats.ttest_1samp(d, 0.0).pvalue)
    return {
        "mean": float(d.mean()),
        "se": float(se),
        "p": p,
        "fold_p": wilcoxon_signed_rank(folds),
        "up": int(np.sum(d > 0)),
        "down": int(np.sum(d < 0)),
        "reps": R,
    }


def _fmt(c) -> str:
    if c is None:
        return "-"
    return f"{c['mean']:+.2f}±{c['se']:.2f} (p {c['p']:.2g}; {c['up']} up / {c['down']} down)"


def render_hypotheses(H: dict, reps: int, planned: int) -> str:
    """The variants beside the protocol, on the same colon folds."""
    paper = PAPER["table2"]["colon"]
    L = [
        "## Occam and SC on colon: what moves the errors toward the paper's",
        "",
        f"The paper: Occam {paper[0]} errors, SC {paper[3]} (majority class: 22). Each row "
        "changes one thing in the CV-selected protocol of Table II and runs on the same "
        f"outer and inner folds of the first {reps} repetition(s) of the protocol's seeds "
        "(fixed in advance, not chosen by their results"
        + (
            f"; {reps} of the {planned} planned have finished, and the page's command "
            "resumes the rest"
            if reps < planned
            else ""
        )
        + "). Errors over the 5 test folds, "
        "mean±sd over repetitions; S = stumps per model. Change = the variant's errors minus "
        "the protocol's on the same repetition: mean ± standard error over repetitions, the "
        "two-sided paired t-test p-value over repetitions, and how many repetitions went up / "
        "down. A change *holds* when that p-value is below "
        f"{LEVEL}; 'fold p' is the exact Wilcoxon p over the 5 x {reps} per-fold differences "
        "(folds of one repetition share data: a second look, not the decision).",
        "",
        "| variant | what changes | Occam errs | S | change | fold p | SC errs | S | change "
        "| fold p |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    base = H.get("protocol")
    for name, v in H.items():
        cells = [name, HYPOTHESES[name]]
        for kind in ("occam", "sc"):
            cells += [ms(v[kind]), ms(v[kind + "_size"])]
            c = None if base is None or name == "protocol" else paired_change(v, base, kind)
            cells += [_fmt(c), "-" if c is None else f"{c['fold_p']:.2g}"]
        L.append("| " + " | ".join(cells) + " |")
    L.append("")
    return "\n".join(L)


def _mean(printed: str) -> float:
    """The mean of a printed "12.8±1.4"."""
    return float(str(printed).split("±")[0])


def _classify(H, kind, gap, paper_size):
    """Variants whose change holds and raises the errors (with their models' mean number of
    stumps beside the paper's), holds and lowers them, or does not hold; and the largest
    raise that holds."""
    changes = {n: paired_change(v, H["protocol"], kind) for n, v in H.items() if n != "protocol"}
    changes = {n: c for n, c in changes.items() if c is not None}
    holds = {n: c for n, c in changes.items() if c["p"] < LEVEL}
    up = {n: c["mean"] for n, c in holds.items() if c["mean"] > 0}
    texts = [
        f"{n} ({m:+.2f}, {100 * m / gap:.0f}% of the gap, with "
        f"{statistics.fmean(H[n][kind + '_size']):.1f} stumps per model against the paper's "
        f"{paper_size})"
        for n, m in up.items()
    ]
    down = [f"{n} ({c['mean']:+.2f})" for n, c in holds.items() if c["mean"] < 0]
    rest = [n for n in changes if n not in holds]
    return texts, down, rest, max(up.values(), default=0.0)


def _kind_finding(H, kind, label, target, paper_size) -> str:
    base = statistics.fmean(H["protocol"][kind])
    gap = target - base
    if gap <= 0:
        return (
            f"- **{label} on colon:** the protocol ({base:.1f} errors) already makes at least "
            f"the paper's {target:.1f}."
        )
    n_reps = len(H["protocol"]["reps"])
    if n_reps < MIN_REPS:
        return (
            f"- **{label} on colon:** the variants have run on {n_reps} repetition(s); no "
            f"change is claimed before {MIN_REPS} (the table shows the paired tests so far)."
        )
    up, down, rest, largest = _classify(H, kind, gap, paper_size)
    return (
        f"- **{label} on colon** (protocol {base:.1f} errors on these repetitions, paper {target:.1f}: "
        f"{gap:+.1f} to explain; {n_reps} repetitions): changes that hold (paired t-test "
        f"p < {LEVEL} over repetitions) and raise the errors: {', '.join(up) or 'none'}; that "
        f"hold and lower them: {', '.join(down) or 'none'}; no change shown: "
        f"{', '.join(rest) or 'none'}."
        + (" What remains of the gap is unexplained." if largest < gap else "")
    )


def probe_findings(H) -> list[str]:
    """The variants' findings, per learner (Occam, SC)."""
    if not H or "protocol" not in H:
        return []
    p2 = PAPER["table2"]["colon"]
    return [
        _kind_finding(H, "occam", "Occam", _mean(p2[0]), p2[1]),
        _kind_finding(H, "sc", "SC", _mean(p2[3]), p2[4]),
    ]
