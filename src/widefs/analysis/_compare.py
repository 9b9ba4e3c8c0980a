"""The method comparison: nested cross-validation of every candidate on the same folds.

Every number comes from :func:`widefs.model_selection.nested_evaluate`; this module decides
what a row says (a fold that kept no feature is a fallback; a method that kept none in any
fold has no search p-value) and lays the rows out as a DataFrame.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from widefs.analysis._result import ProgressEvent

__all__ = ["ComparisonInfo", "compare"]

TOP_FEATURES = 5  # most frequently selected features listed per method
# Intervals wider than this (or fewer than 10 test folds) are flagged as wide.
WIDE_INTERVAL = 0.4


@dataclass(frozen=True)
class ComparisonInfo:
    """What the comparison's table does not show: its design and its verdicts."""

    requested_folds: int
    folds: int
    repeats: int
    smallest_class: int
    test_examples: float  # examples per test fold, on average
    max_ci_width: float  # the widest accuracy interval (NaN when nothing was evaluated)
    wide: bool  # intervals too wide to tell most methods apart
    fallbacks: tuple  # methods that kept no feature in some fold
    top_features: dict  # selecting method -> [(feature index, selection frequency)]
    most_accurate_selector: str | None  # the selecting method of highest mean accuracy


def _evaluate_all(X, y, candidates, seed, folds, repeats, progress, n_jobs, design) -> dict:
    """``{name: nested_evaluate result or None}`` for every candidate (groups to every one,
    covariates to those whose fit takes them). The candidates see the same folds, so work
    that two of them repeat on a fold (the MGM and E[X(1)] selectors' validation errors and
    null) is shared (:func:`widefs._utils.sharing_fits`: the same results, computed once)."""
    from widefs._utils import sharing_fits

    with sharing_fits():
        return _evaluate_each(X, y, candidates, seed, folds, repeats, progress, n_jobs, design)


def _evaluate_each(X, y, candidates, seed, folds, repeats, progress, n_jobs, design) -> dict:
    from widefs.exceptions import HeuristicBoundWarning, NothingSelectedWarning
    from widefs.model_selection import nested_evaluate

    n_classes = np.unique(y).size
    results = {}
    task = "nested cross-validation"
    for i, cand in enumerate(candidates):
        if cand.binary_only and n_classes != 2:
            results[cand.name] = None
            continue
        if progress:
            progress(ProgressEvent(task, f"nested CV: {cand.name}", i, len(candidates)))
        with warnings.catch_warnings():
            # Selecting nothing in a fold is a legitimate outcome, reported in the table.
            warnings.filterwarnings("ignore", category=NothingSelectedWarning)
            warnings.filterwarnings("ignore", category=HeuristicBoundWarning)
            warnings.filterwarnings("ignore", message="No features were selected")
            warnings.filterwarnings("ignore", category=RuntimeWarning, module="sklearn")
            given = {}
            if design is not None:
                given["groups"] = design.groups
                if cand.takes_covariates:
                    given["covariates"] = design.covariates
            results[cand.name] = nested_evaluate(
                cand.make(seed), X, y, cv=folds, n_repeats=repeats, random_state=seed,
                n_jobs=n_jobs, **given,
            )  # fmt: skip
    if progress:
        progress(ProgressEvent(task, task, len(candidates), len(candidates), finished=True))
    return results


def _selects(res) -> bool:
    """Whether the method chose among the features (some feature left out in some fold)."""
    return res["n_selected"] is not None and res["selection_frequency"].min() < 1


def _empty_folds(res) -> int:
    """Folds in which the method kept no feature (and predicted one class)."""
    return 0 if res["n_selected"] is None else int(np.count_nonzero(res["n_selected"] == 0))


def _certificate_cells(outcome, empty: int, folds: int) -> tuple[float, str]:
    """(search p-value, certificate status) of a row."""
    if outcome is None:
        return np.nan, "not certified"
    if empty == folds:
        # The fallback's score, not the method's search, would be certified.
        return np.nan, "uninformative: no feature kept"
    pvalue = outcome.pvalue
    return (np.nan if pvalue is None else pvalue), outcome.status


def _row(cand, res, outcome) -> dict:
    if res is None:
        return {"method": cand.name, "applies": False, "note": cand.note}
    selects = _selects(res)
    empty, folds = _empty_folds(res), len(res["test_score"])
    pvalue, status = _certificate_cells(outcome, empty, folds)
    row = {
        "method": cand.name,
        "applies": True,
        "accuracy": res["mean"],
        "accuracy_sd": res["std"],
        "accuracy_ci_low": res["ci"][0],
        "accuracy_ci_high": res["ci"][1],
        "pooled_accuracy": res["pooled_accuracy"],
        "balanced_accuracy": res["balanced_mean"],
        "balanced_ci_low": res["balanced_ci"][0],
        "balanced_ci_high": res["balanced_ci"][1],
    }
    for c, r, (lo, hi) in zip(
        res["classes"].astype(str), res["class_recall"], res["class_recall_ci"], strict=True
    ):
        row.update({f"recall {c}": r, f"recall {c} low": lo, f"recall {c} high": hi})
    row.update(
        features=float(np.median(res["n_selected"])) if selects else np.nan,
        stability=res["stability"] if selects else np.nan,
        empty_folds=empty,
        folds=folds,
        search_pvalue=pvalue,
        certificate=status,
        note=cand.note,
    )
    return row


def _top_features(freq) -> list[tuple[int, float]]:
    top = np.argsort(-freq, kind="stable")[:TOP_FEATURES]
    return [(int(j), float(freq[j])) for j in top if freq[j] > 0]


def _info(y, results, requested, folds, repeats) -> ComparisonInfo:
    done = {name: res for name, res in results.items() if res is not None}
    widths = [r["ci"][1] - r["ci"][0] for r in done.values()]
    selecting = {name: res for name, res in done.items() if _selects(res)}
    _, counts = np.unique(y, return_counts=True)
    return ComparisonInfo(
        requested_folds=requested,
        folds=folds,
        repeats=repeats,
        smallest_class=int(counts.min()),
        test_examples=y.size / folds,
        max_ci_width=max(widths) if widths else np.nan,
        wide=bool(widths) and (folds * repeats < 10 or max(widths) > WIDE_INTERVAL),
        fallbacks=tuple(name for name, res in done.items() if _empty_folds(res)),
        top_features={
            name: _top_features(res["selection_frequency"]) for name, res in selecting.items()
        },
        most_accurate_selector=max(selecting, key=lambda n: selecting[n]["mean"])
        if selecting
        else None,
    )


def compare(
    X, y, candidates, *, seed, folds, repeats, certificates, progress=None, n_jobs=None,
    design=None,
):  # fmt: skip
    """Nested CV of every candidate on the same folds: (DataFrame, results, info).

    ``folds`` is lowered to the size of the smallest class (with groups: to the groups of
    the class with fewest, or to the groups) so that every outer fold holds every class.
    ``certificates`` maps a row name to the certificate that speaks for it; ``design`` is
    the analysis's checked study design (None without one).
    """
    import pandas as pd

    from widefs.analysis._design import design_folds

    requested, folds = folds, design_folds(y, design, folds)
    results = _evaluate_all(X, y, candidates, seed, folds, repeats, progress, n_jobs, design)
    rows = [_row(c, results[c.name], certificates.get(c.name)) for c in candidates]
    frame = pd.DataFrame(rows).set_index("method")
    return frame, results, _info(y, results, requested, folds, repeats)
