"""The method comparison of ``widefs run``: the nested cross-validation table and stability.

Every number comes from :attr:`widefs.analysis.Analysis.comparison` (one row per method) and
its ``comparison_info``; this module only lays them out. On imbalanced classes the table
adds balanced accuracy and each class's recall.
"""

from __future__ import annotations

import math

from widefs.cli._markup import Markup, visible
from widefs.cli.render._certificates import pvalue_text
from widefs.cli.render._report import Figure, Note, Section, Table, Text

__all__ = ["comparison_section"]

_HEADERS = ["method", "accuracy % (mean ± sd)", "95% CI", "pooled %"]
_BALANCED_HEADERS = ["balanced accuracy % (mean, 95% CI)", "recall % per class (95% CI)"]
_TAIL_HEADERS = ["features (median)", "stability", "search p-value", "note"]


def comparison_section(analysis, data) -> list[Section]:
    """The comparison table with its notes, then the stability section and its figure."""
    frame, info, baseline = analysis.comparison, analysis.comparison_info, analysis.majority
    classes = [str(c) for c in analysis.classes]
    rows = [_row(name, row, classes, baseline.imbalanced) for name, row in frame.iterrows()]
    section = Section("Method comparison (nested cross-validation)")
    for paragraph in _intro(info.repeats, info.folds, baseline):
        section.add(Text(paragraph))
    if info.folds < info.requested_folds:
        section.add(Text(_fewer_folds(info.smallest_class, info.folds, info.requested_folds)))
    if info.wide:
        section.add(
            Note(_wide_intervals(info.max_ci_width, info.repeats, info.folds, info.test_examples))
        )
    if info.fallbacks:
        section.add(Note(_fallback_note(list(info.fallbacks))))
    section.add(_table(rows, baseline.imbalanced))
    return [section, *_stability_sections(analysis, data)]


def _percent_interval(lo: float, hi: float) -> str:
    return f"[{100 * lo:.1f}, {100 * hi:.1f}]"


def _recall_cell(row, classes) -> str:
    """Each class's pooled recall with its interval, e.g. ``normal 45 [28, 64]; tumor 90 ...``."""
    return "; ".join(
        f"{c} {100 * row[f'recall {c}']:.0f} "
        f"[{100 * row[f'recall {c} low']:.0f}, {100 * row[f'recall {c} high']:.0f}]"
        for c in classes
    )


def _row(name, row, classes, imbalanced: bool) -> tuple:
    """One row of the table (a method that does not apply to these data: blank cells)."""
    if not row["applies"]:
        blanks = ("",) * (len(_HEADERS) + len(_TAIL_HEADERS) - 3)
        balanced = ("", "") if imbalanced else ()
        return (name, "binary data only", *balanced, *blanks, row["note"])
    head = (
        name,
        f"{100 * row['accuracy']:.1f} ± {100 * row['accuracy_sd']:.1f}",
        _percent_interval(row["accuracy_ci_low"], row["accuracy_ci_high"]),
        f"{100 * row['pooled_accuracy']:.1f}",
    )
    balanced = (
        f"{100 * row['balanced_accuracy']:.1f} "
        + _percent_interval(row["balanced_ci_low"], row["balanced_ci_high"]),
        _recall_cell(row, classes),
    )
    return (*head, *(balanced if imbalanced else ()), *_selection_cells(row))


def _selection_cells(row) -> tuple:
    """Features kept, stability, search p-value and the note (which says about fallbacks)."""
    n_sel = "all" if math.isnan(row["features"]) else f"{row['features']:.0f}"
    stability = "" if math.isnan(row["stability"]) else f"{round(row['stability'], 2) + 0.0:.2f}"
    pvalue = pvalue_text(row["certificate"], row["search_pvalue"])
    note = row["note"]
    empty, folds = int(row["empty_folds"]), int(row["folds"])
    if empty:
        note += (
            f"; fallback in {empty} of {folds} folds: no feature kept, so one class was "
            "predicted for every test example there"
        )
    return n_sel, stability, pvalue, note


def _table(rows, imbalanced: bool) -> Table:
    headers = _HEADERS + (_BALANCED_HEADERS if imbalanced else []) + _TAIL_HEADERS
    tail = len(_HEADERS) + (len(_BALANCED_HEADERS) if imbalanced else 0)
    # On a narrow terminal the last columns are left out first: the search p-value before them.
    terminal = [0, 1, 2, *([4] if imbalanced else []), tail + 2, tail, tail + 1]
    return Table(headers, rows, title="Nested cross-validated accuracy", terminal_columns=terminal)


def _intro(repeats: int, folds: int, baseline) -> list[Markup]:
    """The paragraphs before the table (the second only on imbalanced classes)."""
    paragraphs = [
        Markup(
            "Every method below was evaluated with {repeats} x {folds}-fold stratified "
            "cross-validation on the same folds; feature selection, tuning and bounds were "
            "computed on the training folds only, so these accuracies are honest estimates. The "
            "interval is the Nadeau-Bengio corrected 95% t interval, which accounts for the "
            "overlap between training folds. Predicting the majority class scores {majority:.1f}%.",
            repeats=repeats,
            folds=folds,
            majority=100 * baseline.accuracy,
        )
    ]
    if baseline.imbalanced:
        paragraphs.append(
            Markup(
                "The classes are imbalanced, so accuracy alone hides failure: the majority class "
                "scores only {balanced:.1f}% balanced accuracy (the mean of the per-class "
                "recalls: it recognises no example of the other classes). Balanced accuracy has "
                "the same corrected interval over the folds; each class's recall is pooled over "
                "all test predictions, with a Clopper-Pearson 95% interval whose trials are the "
                "class's examples.",
                balanced=100 * baseline.balanced_accuracy,
            )
        )
    paragraphs.append(
        Markup(
            "The search p-value asks a different question: how often the method's search, re-run "
            "on relabelled data whose labels mean nothing, scores at least as well as on the real "
            "labels (see each method's search certificate; '-': no search to certify; 'none': the "
            "certificate cannot inform, and says why)."
        )
    )
    return paragraphs


def _fewer_folds(smallest: int, folds: int, requested: int) -> Markup:
    return Markup(
        "**Fewer folds than usual:** the smallest class has only {n} examples, so {folds}-fold "
        "instead of {requested}-fold cross-validation was used (each outer fold must hold "
        "every class). With so few examples the intervals are wide and the estimates vary "
        "from seed to seed.",
        n=smallest,
        folds=folds,
        requested=requested,
    )


def _wide_intervals(width: float, repeats: int, folds: int, n_test: float) -> Markup:
    return Markup(
        "The intervals are wide (up to {width:.0f} percentage points): {repeats} x {folds} "
        "folds give {k} test sets of about {n_test:.0f} examples each, too few to tell most of "
        "these methods apart. Overlapping intervals mean no demonstrated difference; {advice}",
        width=100 * width,
        repeats=repeats,
        folds=folds,
        k=repeats * folds,
        n_test=n_test,
        advice="run without --quick (2 x 5 folds) for tighter ones."
        if folds * repeats < 10
        else "only more samples make them tighter.",
    )


def _fallback_note(names: list[str]) -> Markup:
    return Markup(
        "Fallback rows ({names}): in some folds the method kept no feature (it found nothing "
        "beyond chance), and predicted one class for every test example there (the training "
        "fold's majority class for the naive Bayes pipelines, the default class for an empty "
        "SCM conjunction). In those folds the accuracy is that of guessing, not of a selected "
        "signature; a row that kept no feature in any fold has no search p-value.",
        names=", ".join(names),
    )


def _stability_sections(analysis, data) -> list[Section]:
    """How often each method's top features were selected, and the best method's figure."""
    from widefs.plotting import plot_selection_frequency

    info = analysis.comparison_info
    if not info.top_features:
        return []
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
    rows = [
        (name, _top_features(data.feature_names, top)) for name, top in info.top_features.items()
    ]
    stab.add(
        Table(["method", "most frequently selected features"], rows, title="Most stable features")
    )
    best = info.most_accurate_selector
    fig = plot_selection_frequency(
        analysis.evaluations[best]["selection_frequency"],
        [visible(str(n)) for n in data.feature_names],
        title=f"Selection stability: {best}",
    ).figure
    caption = Markup("Selection frequency of the top features ({best})", best=best)
    stab.add(Figure("stability.png", fig, caption))
    return [stab]


def _top_features(names, top) -> str:
    named = ", ".join(f"{names[j]} ({freq:.0%})" for j, freq in top)
    return named or "(no feature selected in any fold)"
