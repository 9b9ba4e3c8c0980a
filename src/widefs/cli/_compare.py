"""The method comparison of ``widefs run``: nested cross-validation of every method.

Every number comes from :func:`widefs.model_selection.nested_evaluate` and
:func:`widefs.model_selection.majority_baseline`; this module only lays them out. On
imbalanced classes the table adds balanced accuracy (corrected t interval over the folds) and
each class's recall (pooled over the test predictions, Clopper-Pearson interval).
"""

from __future__ import annotations

import warnings

import numpy as np

from widefs.cli._data import LoadedData
from widefs.cli._markup import Markup, visible
from widefs.cli._methods import Candidate
from widefs.cli._report import Figure, Note, Section, Table, Text
from widefs.exceptions import HeuristicBoundWarning, NothingSelectedWarning
from widefs.model_selection import majority_baseline, nested_evaluate
from widefs.plotting import plot_selection_frequency

__all__ = ["comparison_section"]

_HEADERS = ["method", "accuracy % (mean ± sd)", "95% CI", "pooled %"]
_BALANCED_HEADERS = ["balanced accuracy % (mean, 95% CI)", "recall % per class (95% CI)"]
_TAIL_HEADERS = ["features (median)", "stability", "search p-value", "note"]


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
    requested, folds = folds, min(folds, data.smallest_class)
    baseline = majority_baseline(data.y)
    results = _evaluate_all(data, candidates, seed, folds, repeats, progress, n_jobs)
    pvalues = search_pvalues or {}
    rows = [_row(c, results.get(c.name), pvalues, baseline.imbalanced) for c in candidates]
    section = Section("Method comparison (nested cross-validation)")
    for paragraph in _intro(repeats, folds, baseline):
        section.add(Text(paragraph))
    if folds < requested:
        section.add(Text(_fewer_folds(data.smallest_class, folds, requested)))
    widths = [r["ci"][1] - r["ci"][0] for r in results.values()]
    if widths and (folds * repeats < 10 or max(widths) > 0.4):
        section.add(Note(_wide_intervals(max(widths), repeats, folds, data.y.size / folds)))
    fallbacks = [name for name, res in results.items() if _empty_folds(res)]
    if fallbacks:
        section.add(Note(_fallback_note(fallbacks)))
    section.add(_table(rows, baseline.imbalanced))
    return [section, *_stability_sections(data, results)]


def _evaluate_all(data, candidates, seed, folds, repeats, progress, n_jobs) -> dict:
    """``{name: nested_evaluate result}`` of every candidate that applies to the data."""
    n_classes = np.unique(data.y).size
    results = {}
    task = progress.add_task("nested cross-validation", total=len(candidates)) if progress else None
    for cand in candidates:
        if cand.binary_only and n_classes != 2:
            continue
        if progress:
            progress.update(task, description=f"nested CV: {cand.name}")
        with warnings.catch_warnings():
            # Selecting nothing in a fold is a legitimate outcome, reported in the table.
            warnings.filterwarnings("ignore", category=NothingSelectedWarning)
            warnings.filterwarnings("ignore", category=HeuristicBoundWarning)  # SCM text says
            warnings.filterwarnings("ignore", message="No features were selected")
            warnings.filterwarnings("ignore", category=RuntimeWarning, module="sklearn")
            results[cand.name] = nested_evaluate(
                cand.make(seed),
                data.X,
                data.y,
                cv=folds,
                n_repeats=repeats,
                random_state=seed,
                n_jobs=n_jobs,
            )
        if progress:
            progress.advance(task)
    return results


def _selects(res) -> bool:
    """Whether the method chose among the features (some feature left out in some fold)."""
    return res["n_selected"] is not None and res["selection_frequency"].min() < 1


def _empty_folds(res) -> int:
    """Folds in which the method kept no feature (and predicted one class)."""
    return 0 if res["n_selected"] is None else int(np.count_nonzero(res["n_selected"] == 0))


def _percent_interval(lo: float, hi: float) -> str:
    return f"[{100 * lo:.1f}, {100 * hi:.1f}]"


def _recall_cell(res) -> str:
    """Each class's pooled recall with its interval, e.g. ``normal 45 [28, 64]; tumor 90 ...``."""
    return "; ".join(
        f"{c} {100 * r:.0f} [{100 * lo:.0f}, {100 * hi:.0f}]"
        for c, r, (lo, hi) in zip(
            res["classes"].astype(str), res["class_recall"], res["class_recall_ci"], strict=True
        )
    )


def _row(cand: Candidate, res, pvalues: dict[str, str], imbalanced: bool) -> tuple:
    """One row of the table (``res`` None: the method does not apply to these data)."""
    if res is None:
        blanks = ("",) * (len(_HEADERS) + len(_TAIL_HEADERS) - 3)
        balanced = ("", "") if imbalanced else ()
        return (cand.name, "binary data only", *balanced, *blanks, cand.note)
    head = (
        cand.name,
        f"{100 * res['mean']:.1f} ± {100 * res['std']:.1f}",
        _percent_interval(*res["ci"]),
        f"{100 * res['pooled_accuracy']:.1f}",
    )
    balanced = (
        f"{100 * res['balanced_mean']:.1f} {_percent_interval(*res['balanced_ci'])}",
        _recall_cell(res),
    )
    return (*head, *(balanced if imbalanced else ()), *_selection_cells(cand, res, pvalues))


def _selection_cells(cand: Candidate, res, pvalues: dict[str, str]) -> tuple:
    """Features kept, stability, search p-value and the note (which says about fallbacks)."""
    selects = _selects(res)
    n_sel = f"{np.median(res['n_selected']):.0f}" if selects else "all"
    hidden = np.isnan(res["stability"]) or not selects
    stability = "" if hidden else f"{round(res['stability'], 2) + 0.0:.2f}"
    empty, folds = _empty_folds(res), len(res["test_score"])
    pvalue = pvalues.get(cand.name, "-")
    if empty == folds and pvalue != "-":
        pvalue = "none (no feature kept)"  # the fallback's score, not the method's search
    note = cand.note
    if empty:
        note += (
            f"; fallback in {empty} of {folds} folds: no feature kept, so one class was "
            "predicted for every test example there"
        )
    return n_sel, stability, pvalue, note


def _table(rows, imbalanced: bool) -> Table:
    headers = _HEADERS + (_BALANCED_HEADERS if imbalanced else []) + _TAIL_HEADERS
    tail = len(_HEADERS) + (len(_BALANCED_HEADERS) if imbalanced else 0)
    terminal = [0, 1, 2, *([4] if imbalanced else []), tail, tail + 1, tail + 2]
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


def _stability_sections(data: LoadedData, results: dict) -> list[Section]:
    """How often each method's top features were selected, and the best method's figure."""
    selecting = {name: res for name, res in results.items() if _selects(res)}
    if not selecting:
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
        (name, _top_features(data, res["selection_frequency"])) for name, res in selecting.items()
    ]
    stab.add(
        Table(["method", "most frequently selected features"], rows, title="Most stable features")
    )
    best = max(selecting, key=lambda name: selecting[name]["mean"])
    fig = plot_selection_frequency(
        selecting[best]["selection_frequency"],
        [visible(str(n)) for n in data.feature_names],
        title=f"Selection stability: {best}",
    ).figure
    caption = Markup("Selection frequency of the top features ({best})", best=best)
    stab.add(Figure("stability.png", fig, caption))
    return [stab]


def _top_features(data: LoadedData, freq) -> str:
    top = np.argsort(-freq, kind="stable")[:5]
    named = ", ".join(f"{data.feature_names[j]} ({freq[j]:.0%})" for j in top if freq[j] > 0)
    return named or "(no feature selected in any fold)"
