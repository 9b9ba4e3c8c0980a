"""The method comparison of ``widefs run``: nested cross-validation of every method."""

from __future__ import annotations

import warnings

import numpy as np

from widefs.cli._data import LoadedData
from widefs.cli._markup import Markup, visible
from widefs.cli._methods import Candidate
from widefs.cli._report import Figure, Note, Section, Table, Text
from widefs.exceptions import HeuristicBoundWarning, NothingSelectedWarning
from widefs.model_selection import nested_evaluate
from widefs.plotting import plot_selection_frequency

__all__ = ["comparison_section"]


def comparison_section(
    data: LoadedData,
    candidates: list[Candidate],
    *,
    seed: int,
    folds: int = 5,
    repeats: int = 1,
    progress=None,
    search_pvalues: dict[str, str] | None = None,
    n_jobs=None,
) -> list[Section]:
    """Nested CV of every candidate on the same folds; table, stability and its figure.

    ``folds`` is lowered to the size of the smallest class (at least 2, checked when the
    data were loaded) so that every outer fold holds every class; the text says so.
    """
    requested_folds, folds = folds, min(folds, data.smallest_class)
    n_classes = np.unique(data.y).size
    rows, stab_rows, results = [], [], {}
    search_pvalues = search_pvalues or {}
    fallbacks: dict[str, int] = {}
    widths: list[float] = []
    task = progress.add_task("nested cross-validation", total=len(candidates)) if progress else None
    for cand in candidates:
        if cand.binary_only and n_classes != 2:
            rows.append((cand.name, "binary data only", "", "", "", "", "", cand.note))
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
            warnings.filterwarnings("ignore", category=RuntimeWarning, module="sklearn")
            res = nested_evaluate(
                cand.make(seed),
                data.X,
                data.y,
                cv=folds,
                n_repeats=repeats,
                random_state=seed,
                n_jobs=n_jobs,
            )
        results[cand.name] = res
        lo, hi = res["ci"]
        selects = res["n_selected"] is not None and res["selection_frequency"].min() < 1
        n_sel = f"{np.median(res['n_selected']):.0f}" if selects else "all"
        if not selects:
            res["selection_frequency"] = None  # uses every feature: nothing to report on stability
        stab = (
            ""
            if np.isnan(res["stability"]) or not selects
            else f"{round(res['stability'], 2) + 0.0:.2f}"
        )
        note = cand.note
        empty = 0 if res["n_selected"] is None else int((res["n_selected"] == 0).sum())
        if empty:
            fallbacks[cand.name] = empty
            note += (
                f"; fallback in {empty} of {len(res['test_score'])} folds: no feature kept, "
                "so one class was predicted for every test example there"
            )
        widths.append(hi - lo)
        rows.append(
            (
                cand.name,
                f"{100 * res['mean']:.1f} ± {100 * res['std']:.1f}",
                f"[{100 * lo:.1f}, {100 * hi:.1f}]",
                f"{100 * res['pooled_accuracy']:.1f}",
                n_sel,
                stab,
                search_pvalues.get(cand.name, "-"),
                note,
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
                    )
                    or "(no feature selected in any fold)",
                )
            )
        if progress:
            progress.advance(task)

    _, counts = np.unique(data.y, return_counts=True)
    majority = counts.max() / counts.sum()
    section = Section("Method comparison (nested cross-validation)")
    section.add(
        Text(
            Markup(
                "Every method below was evaluated with {repeats} x {folds}-fold stratified "
                "cross-validation on the same folds; feature selection, tuning and bounds were "
                "computed on the training folds only, so these accuracies are honest estimates. "
                "The interval is the Nadeau-Bengio corrected 95% t interval, which accounts for the "
                "overlap between training folds. Predicting the majority class scores "
                "{majority:.1f}%. The search p-value asks a different question: how often the "
                "method's search, re-run on relabelled data whose labels mean nothing, scores at "
                "least as well as on the real labels (see each method's search certificate; '-': "
                "no search to certify).",
                repeats=repeats,
                folds=folds,
                majority=100 * majority,
            )
        )
    )
    if folds < requested_folds:
        section.add(
            Text(
                Markup(
                    "**Fewer folds than usual:** the smallest class has only {n} examples, so "
                    "{folds}-fold instead of {requested}-fold cross-validation was used (each "
                    "outer fold must hold every class). With so few examples the intervals are "
                    "wide and the estimates vary from seed to seed.",
                    n=data.smallest_class,
                    folds=folds,
                    requested=requested_folds,
                )
            )
        )
    n_test = data.y.size / folds
    if widths and (folds * repeats < 10 or max(widths) > 0.4):
        section.add(
            Note(
                Markup(
                    "The intervals are wide (up to {width:.0f} percentage points): {repeats} x "
                    "{folds} folds give {k} test sets of about {n_test:.0f} examples each, too few "
                    "to tell most of these methods apart. Overlapping intervals mean no "
                    "demonstrated difference; {advice}",
                    width=100 * max(widths),
                    repeats=repeats,
                    folds=folds,
                    k=repeats * folds,
                    n_test=n_test,
                    advice="run without --quick (2 x 5 folds) for tighter ones."
                    if folds * repeats < 10
                    else "only more samples make them tighter.",
                )
            )
        )
    if fallbacks:
        section.add(
            Note(
                Markup(
                    "Fallback rows ({names}): in some folds the method kept no feature (it found "
                    "nothing beyond chance), and predicted one class for every test example "
                    "there (the training fold's majority class for the naive Bayes pipelines, "
                    "the default class for an empty SCM conjunction). In those folds the "
                    "accuracy is that of guessing, not of a selected signature.",
                    names=", ".join(fallbacks),
                )
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
                "search p-value",
                "note",
            ],
            rows,
            title="Nested cross-validated accuracy",
            terminal_columns=[0, 1, 2, 4, 5, 6],
        )
    )
    sections = [section]
    if stab_rows:
        stab = Section("Stability of the selected features")
        stab.add(
            Text(
                Markup(
                    "How often each feature was selected across the outer folds (Nogueira's "
                    "stability index in the table above: 1 = the same features in every fold, 0 = "
                    "no more agreement than random subsets of the same size)."
                )
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
        fig = plot_selection_frequency(
            results[best]["selection_frequency"],
            [visible(str(n)) for n in data.feature_names],
            title=f"Selection stability: {best}",
        ).figure
        stab.add(
            Figure(
                "stability.png",
                fig,
                Markup("Selection frequency of the top features ({best})", best=best),
            )
        )
        sections.append(stab)
    return sections
