"""Conjunctions only beside the protocol's grids, the disjunctions the grids chose, and the
gap to the paper algorithm by algorithm."""

from __future__ import annotations

import numpy as np
from scipy import stats

from widefs_reproduce.shah2010._data import DATASETS, PAPER, PAPER_DATASETS, PAPER_NAMES
from widefs_reproduce.shah2010._probe_page import MIN_REPS
from widefs_reproduce.shah2010._summary import ms

__all__ = [
    "conjunction_findings",
    "conjunction_section",
    "disjunction_shares",
    "gap_counts",
    "gap_table",
    "paper_at_majority",
]

_KINDS = {"occam": "Occam", "sc": "SC", "pb": "PAC-Bayes"}


def disjunction_shares(results) -> dict:
    """Per learner: the share of (data set, repetition, fold) whose CV-selected model is a
    disjunction, and the range of that share over data sets."""
    out = {}
    for kind in _KINDS:
        per = {}
        for r in results:
            for f in r["folds"]:
                per.setdefault(r["dataset"], []).append(
                    f[kind]["cv"]["config"]["model_type"] == "disjunction"
                )
        shares = [np.mean(v) for v in per.values()]
        if shares:
            out[kind] = (
                float(np.mean([x for v in per.values() for x in v])),
                min(shares),
                max(shares),
            )
    return out


def _totals(runs, kind, sel="cv", field="errors"):
    return {r["rep"]: sum(f[kind][sel][field] for f in r["folds"]) for r in runs}


def _paired(both, conj, kind, field):
    a, b = _totals(both, kind, field=field), _totals(conj, kind, field=field)
    reps = sorted(set(a) & set(b))
    d = np.array([b[r] - a[r] for r in reps], dtype=float)
    if d.size < 2 or np.all(d == d[0]):
        p = 1.0 if d.size == 0 or d[0] == 0 else 0.0
    else:
        p = float(stats.ttest_1samp(d, 0.0).pvalue)
    return [a[r] for r in reps], [b[r] for r in reps], d, p


def _comparisons(results, conj, c_reps):
    """Per data set and learner: the protocol's and the conjunction-only totals on the same
    repetitions, their differences, the paired t-test p and the conjunction-only runs."""
    for name in DATASETS:
        both = [r for r in results if r["dataset"] == name and r["rep"] < c_reps]
        only = [r for r in conj if r["dataset"] == name]
        if not both or not only:
            continue
        for kind, label in _KINDS.items():
            field = "bayes_errors" if kind == "pb" else "errors"
            yield (name, kind, label, only, *_paired(both, only, kind, field))


def conjunction_section(results, conj, c_reps, planned) -> list[str]:
    """Tables II and III with conjunctions only beside the protocol, same repetitions."""
    if not conj:
        return []
    L = [
        "## Conjunctions only (the paper's model) beside the protocol's grids",
        "",
        "The protocol's grids let nested CV choose between conjunctions and disjunctions; the "
        "paper describes conjunctions (disjunctions only by symmetry). Here the SCMs run again "
        f"with conjunctions only, on the same folds of the first {c_reps} repetition(s)"
        + (
            f" ({c_reps} of the {planned} planned have finished; the page's command resumes "
            "the rest)"
            if c_reps < planned
            else ""
        )
        + ". Errors "
        "over the 5 test folds, mean±sd over those repetitions (PAC-Bayes: Bayes-classifier "
        "errors); change = conjunctions only minus both, mean over repetitions with the "
        "two-sided paired t-test p-value.",
        "",
        "| data | learner | both (same repetitions) | conjunctions only | S (conj.) | change | p "
        "| paper |",
        "|---|---|---|---|---|---|---|---|",
    ]
    paper_col = {"occam": ("table2", 0), "sc": ("table2", 3), "pb": ("table3", 2)}
    for name, kind, label, only, a, b, d, p in _comparisons(results, conj, c_reps):
        sizes = [f[kind]["cv"]["size"] for r in only for f in r["folds"]]
        table, col = paper_col[kind]
        L.append(
            f"| {PAPER_NAMES[name]} | {label} | {ms(a)} | {ms(b)} | {ms(sizes)} "
            f"| {d.mean():+.2f} | {p:.2g} | {PAPER[table][name][col]} |"
        )
    return [*L, ""]


def _paper_mean(cell) -> float:
    return float(str(cell).split("±")[0])


_GAP_COLUMNS = [
    ("SVM", "svm", ("table1", 0)),
    ("SVM+gs", "svm_gs", ("table1", 1)),
    ("SVM+rfe", "svm_rfe", ("table1", 3)),
    ("AdaBoost", "adaboost", ("table1", 6)),
    ("Occam", "occam", ("table2", 0)),
    ("SC", "sc", ("table2", 3)),
    ("PAC-Bayes", "pb_bayes", ("table3", 2)),
]


def _gaps(S) -> dict[str, list[float]]:
    """Ours minus the paper's mean errors, per data set, one value per algorithm."""
    return {
        name: [
            _paper_mean(S[name][key]) - _paper_mean(PAPER[t][name][i])
            for _, key, (t, i) in _GAP_COLUMNS
        ]
        for name in DATASETS
        if name in S and "svm" in S[name]
    }


def gap_counts(S) -> tuple[int, int, list[str]]:
    """Cells (data set, algorithm) where we make fewer errors than the paper, all cells, and
    the data sets where every algorithm does."""
    gaps = _gaps(S)
    fewer = sum(g < 0 for row in gaps.values() for g in row)
    total = sum(len(row) for row in gaps.values())
    return fewer, total, [PAPER_NAMES[n] for n, row in gaps.items() if max(row) < 0]


def gap_table(S) -> list[str]:
    """Ours minus the paper's mean errors, per data set and algorithm."""
    cols = _GAP_COLUMNS
    L = [
        "## Ours minus the paper, algorithm by algorithm",
        "",
        "Mean errors over the 5 test folds, ours minus the paper's (negative: we make fewer). "
        "A difference of data or preprocessing would move every algorithm on a data set the "
        "same way; the rows show how far that holds.",
        "",
        "| data | " + " | ".join(c[0] for c in cols) + " |",
        "|---|" + "---|" * len(cols),
    ]
    for name, row in _gaps(S).items():
        L.append(f"| {PAPER_NAMES[name]} | " + " | ".join(f"{g:+.1f}" for g in row) + " |")
    return [*L, ""]


def paper_at_majority() -> list[str]:
    """Data sets where the paper's Occam or SC errors are at or above the majority class's."""
    out = []
    for name in DATASETS:
        maj = PAPER_DATASETS[name]["majority_errors"]
        occam, sc = (_paper_mean(PAPER["table2"][name][i]) for i in (0, 3))
        if max(occam, sc) >= maj:
            out.append(f"{PAPER_NAMES[name]} (Occam {occam:g}, SC {sc:g}, majority {maj})")
    return out


def conjunction_findings(results, conj, c_reps) -> list[str]:
    """Where conjunctions only change the errors (paired t-test over repetitions)."""
    if not conj:
        return []
    if c_reps < MIN_REPS:
        return [
            f"- **Conjunctions only:** {c_reps} repetition(s) so far; no change is claimed "
            f"before {MIN_REPS} (the table shows the paired tests so far)."
        ]
    moved, still = [], []
    for name, _, label, _, _, _, d, p in _comparisons(results, conj, c_reps):
        text = f"{PAPER_NAMES[name]} {label} {d.mean():+.2f}"
        (moved if p < 0.05 else still).append(text + ("" if p >= 0.05 else f" (p {p:.2g})"))
    return [
        f"- **Conjunctions only** ({c_reps} repetition(s)): changes that hold (paired t-test "
        "p < 0.05 over repetitions): "
        + (", ".join(moved) or "none")
        + "; no change shown: "
        + (", ".join(still) or "none")
        + "."
    ]
