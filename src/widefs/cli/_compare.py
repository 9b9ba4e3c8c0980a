"""The method comparison of ``widefs run``: nested cross-validation of every method."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from widefs.cli._data import LoadedData
from widefs.cli._report import Figure, Section, Table, Text
from widefs.exceptions import HeuristicBoundWarning, NothingSelectedWarning
from widefs.model_selection import nested_evaluate

__all__ = ["Candidate", "comparison_section"]


@dataclass
class Candidate:
    """A method to compare: a name, a factory ``seed -> estimator``, and a short note."""

    name: str
    make: Callable[[int], object]
    note: str = ""
    binary_only: bool = False


def _stability_figure(name: str, frequency: np.ndarray, feature_names: np.ndarray, top: int = 25):
    from matplotlib.figure import Figure as MplFigure

    order = np.argsort(-frequency, kind="stable")[:top]
    order = order[frequency[order] > 0]
    fig = MplFigure(figsize=(7, 0.25 * max(len(order), 4) + 1.2), layout="constrained")
    ax = fig.add_subplot()
    ax.barh(np.arange(len(order))[::-1], frequency[order], color="tab:blue")
    ax.set_yticks(
        np.arange(len(order))[::-1], [str(feature_names[j]) for j in order], fontsize="small"
    )
    ax.set_xlim(0, 1)
    ax.set_xlabel("fraction of outer folds selecting the feature")
    ax.set_title(f"Selection stability: {name}")
    return fig


def comparison_section(
    data: LoadedData,
    candidates: list[Candidate],
    *,
    seed: int,
    folds: int = 5,
    repeats: int = 1,
    progress=None,
) -> list[Section]:
    """Nested CV of every candidate on the same folds; table, stability and its figure."""
    n_classes = np.unique(data.y).size
    rows, stab_rows, results = [], [], {}
    task = progress.add_task("nested cross-validation", total=len(candidates)) if progress else None
    for cand in candidates:
        if cand.binary_only and n_classes != 2:
            rows.append((cand.name, "binary data only", "", "", "", "", cand.note))
            continue
        if progress:
            progress.update(task, description=f"nested CV: {cand.name}")
        with warnings.catch_warnings():
            # Selecting nothing in a fold is a legitimate outcome, reported in the table.
            warnings.filterwarnings("ignore", category=NothingSelectedWarning)
            warnings.filterwarnings(
                "ignore", category=HeuristicBoundWarning
            )  # said in the SCM text
            warnings.filterwarnings("ignore", message="No features were selected")
            res = nested_evaluate(
                cand.make(seed), data.X, data.y, cv=folds, n_repeats=repeats, random_state=seed
            )
        results[cand.name] = res
        lo, hi = res["ci"]
        selects = res["n_selected"] is not None and res["selection_frequency"].min() < 1
        n_sel = f"{np.median(res['n_selected']):.0f}" if selects else "all"
        if not selects:
            res["selection_frequency"] = None  # uses every feature: nothing to report on stability
        stab = "" if np.isnan(res["stability"]) or not selects else f"{res['stability']:.2f}"
        rows.append(
            (
                cand.name,
                f"{100 * res['mean']:.1f} ± {100 * res['std']:.1f}",
                f"[{100 * lo:.1f}, {100 * hi:.1f}]",
                f"{100 * res['pooled_accuracy']:.1f}",
                n_sel,
                stab,
                cand.note,
            )
        )
        if res["selection_frequency"] is not None and res["selection_frequency"].min() < 1:
            freq = res["selection_frequency"]
            top = np.argsort(-freq, kind="stable")[:5]
            stab_rows.append(
                (
                    cand.name,
                    ", ".join(
                        f"{data.feature_names[j]} ({freq[j]:.0%})" for j in top if freq[j] > 0
                    ),
                )
            )
        if progress:
            progress.advance(task)

    _, counts = np.unique(data.y, return_counts=True)
    majority = counts.max() / counts.sum()
    section = Section("Method comparison (nested cross-validation)")
    section.add(
        Text(
            f"Every method below was evaluated with {repeats} x {folds}-fold stratified cross-validation "
            "on the same folds; feature selection, tuning and bounds were computed on the training "
            "folds only, so these accuracies are honest estimates. The interval is the Nadeau-Bengio "
            "corrected 95% t interval, which accounts for the overlap between training folds. "
            f"Predicting the majority class scores {100 * majority:.1f}%."
        )
    )
    section.add(
        Table(
            [
                "method",
                "accuracy % (mean ± sd)",
                "95% CI",
                "pooled %",
                "features (median)",
                "stability",
                "note",
            ],
            rows,
            title="Nested cross-validated accuracy",
            terminal_columns=[0, 1, 2, 4, 5],
        )
    )
    sections = [section]
    if stab_rows:
        stab = Section("Stability of the selected features")
        stab.add(
            Text(
                "How often each feature was selected across the outer folds (Nogueira's stability index "
                "in the table above: 1 = the same features in every fold, 0 = no more agreement than "
                "random subsets of the same size)."
            )
        )
        stab.add(
            Table(
                ["method", "most frequently selected features"],
                stab_rows,
                title="Most stable features",
            )
        )
        best = max(
            (name for name, r in results.items() if r["selection_frequency"] is not None),
            key=lambda name: results[name]["mean"],
        )
        fig = _stability_figure(best, results[best]["selection_frequency"], data.feature_names)
        stab.add(Figure("stability.png", fig, f"Selection frequency of the top features ({best})"))
        sections.append(stab)
    return sections
