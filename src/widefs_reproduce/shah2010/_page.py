"""The page: header, protocol deviations, grids, tables, the colon probe, findings, commentary."""

from __future__ import annotations

import statistics
from dataclasses import dataclass

from widefs_reproduce.shah2010._data import (
    DATASETS,
    PAPER,
    PAPER_DATASETS,
    PAPER_NAME,
    PAPER_NAMES,
)
from widefs_reproduce.shah2010._summary import ms
from widefs_reproduce.shah2010._tables import tables
from widefs_reproduce.shah2010._variants import HYPOTHESES

__all__ = ["RunInfo", "render_page"]


@dataclass
class RunInfo:
    """What the header says about the run behind the page."""

    command: str
    resume_command: str
    reps: int
    reps_target: int
    h_reps: int
    render_only: bool
    jobs: int
    elapsed: float
    cpu_minutes: float
    cpu_per_rep: float


def _partial(info: RunInfo) -> list[str]:
    if info.reps >= info.reps_target:
        return []
    more = (info.reps_target - info.reps) * info.cpu_per_rep / 60
    return [
        f"**Partial run: {info.reps} of {info.reps_target} repetitions.** This page was "
        "rendered with `--render-only` from the repetitions whose every data set had "
        "finished at that time; the remaining repetitions are computed, and the finished "
        f"ones kept, by `{info.resume_command}` (at the {info.cpu_per_rep:.0f} CPU-minutes "
        f"per repetition measured here, about {more:.0f} more CPU-hours).",
        "",
    ]


def _header(S, info: RunInfo) -> list[str]:
    invocation = (
        "The tables were rendered from stored tasks (no computation in this invocation). "
        if info.render_only
        else f"This invocation: {info.elapsed / 60:.1f} min wall time with {info.jobs} worker "
        f"process(es), single-threaded numba (stored tasks are reused, not recomputed). "
    )
    return [
        "# Shah, Marchand & Corbeil (2010): conjunctions of decision stumps on microarray data",
        "",
        f"Command (every table on this page): `{info.command}`",
        "",
        *_partial(info),
        f"{info.reps} repetition(s) of 5-fold CV (a fresh random permutation each), parameters "
        "by nested 5-fold CV on each training part, the same folds for every algorithm. "
        "Errors = misclassified examples over the 5 test folds, mean±sd over repetitions. "
        + invocation
        + f"Compute behind the tables: {info.cpu_minutes:.0f} CPU-minutes "
        f"({info.cpu_per_rep:.0f} per repetition of all data sets). Raw results: one JSON file "
        f"per data set and repetition in `{PAPER_NAME}/runs/`; the run resumes from them.",
        "",
    ]


def _deviations(S, info: RunInfo) -> list[str]:
    majority = ", ".join(
        f"{PAPER_NAMES[k]} {S[k]['majority']} "
        f"(from the paper's class counts: {PAPER_DATASETS[k]['majority_errors']})"
        for k in DATASETS
        if k in S and S[k].get("majority") is not None
    )
    reps = (
        f"- **Repetitions:** {info.reps}"
        + (f" of {info.reps_target} planned" if info.reps < info.reps_target else "")
        + " (the paper: 20)"
        + (
            ": the means rest on fewer permutations of the data, and the ± (a standard "
            "deviation over repetitions) is rougher than the paper's, or 0 for one repetition."
            if info.reps < 20
            else "."
        )
    )
    return [
        "Protocol deviations (all tables) and their measured effect where we could measure it:",
        "",
        reps,
        "- **Data:** our bundled copies differ from the paper's where noted in the datasets' "
        "provenance notes: medulloblastoma_b has 5893 genes (Brunet et al.'s filtered version, "
        "not 7129), medulloblastoma_c 7128 sample-standardized genes, breast_er 46 samples "
        "(23/23) instead of 49 (25/24); the Lung data set (52 x 918) was not found and is left "
        "out. Effect: every learner, baselines included, makes far fewer errors than the "
        "paper on leukemia and BreastER (Table I), so the data, not one learner, differ there. "
        f"Majority-class errors: {majority}.",
        "- **A-priori ranges [A_i, B_i]** (Occam and PAC-Bayes): each gene's minimum and maximum "
        "over the whole data set (labels unused), as a stand-in for the data's definition, "
        "which the paper does not give; effect on colon: see 'train range' in the hypotheses "
        "table.",
        "- **Grids:** the paper does not list its grids for p, eta, C or the AdaBoost rounds; "
        "ours are below, and the effect of other p grids on Occam / SC is measured in the "
        "hypotheses table.",
        "",
    ]


def _grids(g) -> list[str]:
    sc, oc, pb, fx = g["sc"], g["occam"], g["pb"], g["fixed"]
    return [
        "## Parameter grids",
        "",
        f"- linear SVM (standardized genes, `SVC(kernel='linear')`): C in {g['svm_C']}",
        f"- SVM+gs: top 2^i genes by Golub's |mu+ - mu-| / (sd+ + sd-), i in {g['gs_i']}, "
        f"C in {g['gs_C']}; ranking inside each training part",
        f"- SVM+rfe: halving SVM-RFE (C = 1) run inside each training part, 2^i genes, "
        f"i in {g['rfe_i']}",
        f"- AdaBoost (scikit-learn SAMME, depth-1 trees): rounds in {g['ada_rounds']} (the "
        "paper tried 10-2000; its chosen values are all <= 50)",
        f"- SC: p in {sc['p']}, model_type in {sc['model_type']}, v = 1..{sc['v']} stumps",
        f"- Occam: p in {oc['p']}, eta in {oc['eta']}, model_type in {oc['model_type']}, "
        f"v = 1..{oc['v']}",
        f"- PAC-Bayes: p in {pb['p']}, eta in {pb['eta']}, model_type in {pb['model_type']}, "
        f"v = 1..{pb['v']}; selected by the expected Gibbs errors",
        f"- fixed margin (Table IV): p in {fx['p']}, gamma (half-width / range) in "
        f"{fx['gamma']}, v = 1..{fx['v']}",
        "- bound-based selection: the same grids; each configuration is fitted once on the "
        "training part with `select='bound'` (number of stumps = the prefix of smallest bound) "
        "and the configuration with the smallest bound is kept; no nested CV. delta = 0.05 "
        "everywhere.",
        "",
    ]


def paired_change(v: dict, base: dict, kind: str):
    """Change of the errors over the 5 test folds against the protocol, and its standard
    error from the paired per-fold differences (every outer test fold of every repetition
    one observation): ``(change, se)``, or None when the two rows differ in repetitions."""
    if v["reps"] != base["reps"]:
        return None
    d = [a - b for a, b in zip(v[kind + "_folds"], base[kind + "_folds"], strict=True)]
    folds = len(d) // len(v["reps"])
    se = folds * statistics.stdev(d) / len(d) ** 0.5 if len(d) > 1 else float("nan")
    return folds * statistics.fmean(d), se


def render_hypotheses(H: dict, reps: int) -> str:
    """The variants beside the protocol, on the same colon folds."""
    paper = PAPER["table2"]["colon"]
    L = [
        "## Occam and SC on colon: what moves the errors toward the paper's",
        "",
        f"The paper: Occam {paper[0]} errors, SC {paper[3]} (majority class: 22). Each row "
        "changes one thing in the CV-selected protocol of Table II and is run on the same "
        f"outer and inner folds (the first {reps} repetition(s) of the protocol's seeds). "
        "Errors over the 5 test folds, mean±sd over repetitions; S = stumps per model; "
        "change = mean paired difference from the protocol row in errors over the 5 test "
        "folds ± its standard error, from the per-fold differences (each outer test fold of "
        "each repetition one observation).",
        "",
        "| variant | what changes | Occam errs | S | change | SC errs | S | change |",
        "|---|---|---|---|---|---|---|---|",
    ]
    base = H.get("protocol")
    for name, v in H.items():
        cells = [name, HYPOTHESES[name]]
        for kind in ("occam", "sc"):
            cells += [ms(v[kind]), ms(v[kind + "_size"])]
            change = None if base is None or name == "protocol" else paired_change(v, base, kind)
            cells.append("-" if change is None else f"{change[0]:+.1f}±{change[1]:.1f}")
        L.append("| " + " | ".join(cells) + " |")
    L.append("")
    return "\n".join(L)


def _mean(printed: str) -> float:
    """The mean of a printed "12.8±1.4"."""
    return float(str(printed).split("±")[0])


def _moves_text(H, kind, label, base, target, n_reps) -> str:
    moves = []
    for name, v in H.items():
        change = None if name == "protocol" else paired_change(v, H["protocol"], kind)
        if change is not None:
            moves.append((*change, name))
    moves.sort(key=lambda m: -m[0])
    gap = target - base
    if gap <= 0:
        return f"- **{label}:** the protocol already makes at least the paper's number of errors."
    up = [f"{m[2]} ({m[0]:+.1f}±{m[1]:.1f})" for m in moves if m[0] > 0]
    if not up:
        detail = "no variant raises the errors"
    else:
        best = moves[0]
        beyond = ", ".join(m[2] for m in moves if m[0] > 2 * m[1]) or "none"
        reach = (
            "; no single variant reaches the paper's number"
            if best[0] < gap
            else f"; {best[2]} reaches the paper's number"
        )
        detail = (
            ", ".join(up)
            + f". Beyond two standard errors: {beyond}"
            + f". The largest move covers {100 * best[0] / gap:.0f}% of the gap{reach}"
        )
    return (
        f"- **What moves {label} toward the paper** (protocol {base:.1f}, paper "
        f"{target:.1f}: {gap:+.1f} errors to go; change ± its standard error from the "
        f"per-fold differences, {n_reps} repetition(s)): {detail}."
    )


def findings(S: dict, H: dict) -> str:
    """Computed statements on the questions the page answers."""
    L = ["## Findings (computed from the tables on this page)", ""]
    p2 = PAPER["table2"]["colon"]
    if "colon" in S and "occam" in S["colon"]:
        d = S["colon"]
        L.append(
            f"- **Occam and SC on colon (Table II):** ours {d['occam']} and {d['sc']} errors "
            f"against the paper's {p2[0]} and {p2[3]} (majority class: {d['majority']})."
        )
    if H and "protocol" in H:
        n_reps = len(H["protocol"]["sc"])
        for kind, label, target in (("occam", "Occam", p2[0]), ("sc", "SC", p2[3])):
            base = statistics.fmean(H["protocol"][kind])
            L.append(_moves_text(H, kind, label, base, _mean(target), n_reps))
    if "colon" in S and "t5" in S["colon"]:
        t, b, p = S["colon"]["t5"], S["colon"]["t5b"], PAPER["table5"]["colon"]
        L.append(
            f"- **PAC-Bayes bound on colon (Table V):** CV-selected model {t['bound']:.1f}, "
            f"bound-selected model {b['bound']:.1f}, paper {p[4]} (errors out of 62); the "
            "bound-selected model is the one whose bound can be compared with the paper's."
        )
    L.append("")
    return "\n".join(L)


def render_page(S, H, info: RunInfo, g, commentary: str) -> str:
    """The whole page."""
    L = _header(S, info) + _deviations(S, info) + _grids(g) + tables(S)
    text = "\n".join(L)
    if H:
        text += "\n" + render_hypotheses(H, info.h_reps)
    return text + "\n" + findings(S, H) + commentary
