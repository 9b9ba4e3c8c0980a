"""The chance-analysis and discriminative-selection part of ``widefs run``.

Every number comes from a library fit: the selector's error counts and both nulls of them
(``chance_nulls_``), the class-difference screen's pooled p-values, the leave-one-out curve.
This module only chooses, words and lays them out.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from widefs.cli._data import LoadedData
from widefs.cli._markup import Markup, csv_text, visible
from widefs.cli._report import FULL_LIST_MAX, Figure, Note, Section, Table, Text
from widefs.exceptions import NothingSelectedWarning
from widefs.univariate import DiscriminativeSelector, default_permutations, threshold_in_errors

__all__ = ["RULES", "chance_sections", "default_permutations"]

RULES = {
    "mgm": "MGM",
    "max_chance": "E[X(1)]",
    "fdr": "FDR 5%",
    "bonferroni": "Bonferroni 5%",
}
ERROR_RULES = ("mgm", "max_chance")
LOO_LABELS = {"all": "no selection", "oracle": "oracle (upper reference)"}
TOP_TERMINAL = 15
TOP_REPORT = 20


@dataclass
class ChanceFit:
    """The fits the chance part shows: error counts with both nulls, and the FDR screens."""

    errors: DiscriminativeSelector  # statistic "errors", the null in use; both nulls known
    nulls: dict  # {"analytic": ChanceNull, "permutation": ChanceNull}
    screens: dict  # {"fdr": selector, "bonferroni": selector}: the class-difference screen
    selections: dict  # rule -> boolean mask
    n_permutations: int

    @property
    def used(self) -> str:
        return self.errors.null_

    def accuracy(self, errors: float) -> str:
        return f"{100 * (1 - errors / self.errors.n_validation_):.1f}%"


def _fit(data: LoadedData, *, seed, p_error, null, n_permutations, n_jobs) -> ChanceFit:
    """The selector under the requested null; the permutation null beside it in any case."""

    def errors_fit(which, threshold="all"):
        return DiscriminativeSelector(
            threshold,
            statistic="errors",
            p_error=p_error,
            null=which,
            n_permutations=n_permutations,
            random_state=seed,
            n_jobs=n_jobs,
        ).fit(data.X, data.y)

    with warnings.catch_warnings():
        # Selecting nothing is an outcome the tables report.
        warnings.simplefilter("ignore", NothingSelectedWarning)
        sel = errors_fit(null)
        nulls = dict(sel.chance_nulls_)
        if "permutation" not in nulls:
            nulls["permutation"] = errors_fit("permutation").chance_nulls_["permutation"]
        screens = {
            rule: DiscriminativeSelector(rule, random_state=seed, n_jobs=n_jobs).fit(data.X, data.y)
            for rule in ("fdr", "bonferroni")
        }
    selections = {
        rule: threshold_in_errors(
            rule,
            sel.n_errors_,
            sel.n_validation_,
            sel.p_error_,
            n_scored=max(sel.n_scored_, 1),
            eligible=~sel.constant_features_,
            expected_errors=sel.expected_errors_,
            expected_min_errors=sel.expected_min_errors_,
        )[1]
        for rule in ERROR_RULES
    }
    selections.update({rule: s.get_support() for rule, s in screens.items()})
    return ChanceFit(sel, nulls, screens, selections, n_permutations)


def _headline(fit: ChanceFit, seed: int) -> Markup:
    sel, perm, analytic = fit.errors, fit.nulls["permutation"], fit.nulls["analytic"]
    return Markup(
        "With M = {M} features scored on N = {N} validation examples (stratified random "
        "halves, seed {seed}), the best of M features that carry **no information at all** "
        "is expected to make {e_p:.2f} errors, reaching **{acc_p}** accuracy: the mean over "
        "{B} relabellings of the data (labels permuted within each half; the permutation "
        "null). Theorem 4.1 of Palatucci & Carlson (2008), with the chance error rate "
        "p_err = {p:.3f} and M independent features, gives {e_a:.2f} errors ({acc_a}): the "
        "analytic null. A feature's validation accuracy means something only beyond that. "
        "**The multiplicity-gap thresholds below use the {used} null.**",
        M=sel.n_scored_,
        N=sel.n_validation_,
        seed=seed,
        e_p=perm.expected_min_errors,
        acc_p=fit.accuracy(perm.expected_min_errors),
        B=fit.n_permutations,
        p=sel.p_error_,
        e_a=analytic.expected_min_errors,
        acc_a=fit.accuracy(analytic.expected_min_errors),
        used=fit.used,
    )


def _bound_note(fit: ChanceFit) -> Markup:
    return Markup(
        "**The analytic value is only a bound here.** On these imbalanced classes its chance "
        "rate is the majority-class error, a lower bound on a classifier's chance errors: the "
        "best chance accuracy is at most {acc_a}, and the permutation value ({acc_p}) is the "
        "estimate.",
        acc_a=fit.accuracy(fit.nulls["analytic"].expected_min_errors),
        acc_p=fit.accuracy(fit.nulls["permutation"].expected_min_errors),
    )


def _chance_rows(fit: ChanceFit) -> list:
    sel, perm, analytic = fit.errors, fit.nulls["permutation"], fit.nulls["analytic"]
    eligible = ~sel.constant_features_
    a_label = "analytic bound" if analytic.is_bound else "analytic"
    return [
        ("features scored (M)", f"{sel.n_scored_}"),
        ("validation examples (N)", f"{sel.n_validation_}"),
        ("chance error rate p_err (analytic)", f"{sel.p_error_:.3f}"),
        ("label permutations (set by --null-permutations)", f"{fit.n_permutations}"),
        (
            f"E[X]: errors of one random feature, permutation / {a_label}",
            f"{perm.expected_errors:.2f} / {analytic.expected_errors:.2f}",
        ),
        (
            f"E[X(1)]: errors of the best of M random features, permutation / {a_label}",
            f"{perm.expected_min_errors:.2f} / {analytic.expected_min_errors:.2f}"
            + (" (at least)" if analytic.is_bound else ""),
        ),
        (
            f"E[A_H]: highest expected chance accuracy, permutation / {a_label}",
            f"{fit.accuracy(perm.expected_min_errors)} / "
            f"{fit.accuracy(analytic.expected_min_errors)}"
            + (" (at most)" if analytic.is_bound else ""),
        ),
        ("multiplicity-gap thresholds use", f"the {fit.used} null"),
        (
            "MGM threshold (errors)",
            f"{0.5 * (sel.expected_errors_ + sel.expected_min_errors_):.2f}",
        ),
        (
            "best observed feature",
            f"{int(sel.n_errors_[eligible].min())} errors "
            f"({100 * sel.scores_[eligible].max():.1f}%)",
        ),
    ]


def _chance_section(fit: ChanceFit, seed: int) -> Section:
    from widefs.plotting import plot_chance_curves

    sel = fit.errors
    chance = Section("Chance analysis")
    chance.add(Text(_headline(fit, seed)))
    if fit.nulls["analytic"].is_bound:
        chance.add(Text(_bound_note(fit)))
    gap = abs(
        fit.nulls["analytic"].expected_min_errors - fit.nulls["permutation"].expected_min_errors
    )
    if gap > 1:
        chance.add(
            Text(
                Markup(
                    "The two E[X(1)] differ by {gap:.1f} errors: the analytic value assumes "
                    "independent features and a binomial error count, which correlated features "
                    "and imbalanced classes break; the permutation value is calibrated on these "
                    "data (`--null permutation` or `--null analytic` chooses the one the "
                    "multiplicity-gap thresholds use).",
                    gap=gap,
                )
            )
        )
    chance.add(
        Table(
            ["quantity", "value"],
            _chance_rows(fit),
            title="Chance analysis (Palatucci & Carlson 2008)",
        )
    )
    n_val, m = sel.n_validation_, max(sel.n_scored_, 10)
    figure = plot_chance_curves(
        sorted({10, 20, 40, n_val}), m, p_error=sel.p_error_, highlight=(sel.n_scored_, n_val)
    ).figure
    chance.add(
        Figure(
            "chance_curve.png",
            figure,
            "Highest expected chance accuracy against the number of features (analytic null)",
        )
    )
    return chance


def _rules_text(fit: ChanceFit, n_examples: int) -> Markup:
    screen = fit.screens["fdr"]
    return Markup(
        "Two kinds of rule. The **multiplicity-gap midpoint (MGM)** and **E[X(1)]** rules of "
        "Palatucci & Carlson keep features whose one-feature naive Bayes, trained on one half "
        "and scored on the other, makes fewer validation errors than the best of M useless "
        "features would ({used} null). They are chance-aware cuts, **not error-controlling "
        "ones**: on pure noise with 30/30 classes MGM keeps about 85 of 2000 features by design. "
        "The **FDR** (Benjamini-Hochberg) and **Bonferroni** rules control errors: they test, on "
        "all {n} examples, whether each feature's class means or class spreads differ (the F "
        "statistic of the means and of the absolute deviations), with p-values from a pooled "
        "permutation null ({draws} draws: the smallest p-value is {floor:.1g}, below "
        "alpha / M = {need:.1g}, so the resolution of the null never decides a selection).",
        used=fit.used,
        n=n_examples,
        draws=sum(screen.n_null_draws_),
        floor=screen.min_pvalue_,
        need=0.05 / max(screen.n_scored_, 1),
    )


def _order(sel) -> np.ndarray:
    """Best first (fewest errors, lowest index among ties); constant features last."""
    eligible = ~sel.constant_features_
    return np.concatenate(
        [
            np.flatnonzero(eligible)[np.argsort(sel.n_errors_[eligible], kind="stable")],
            np.flatnonzero(~eligible),
        ]
    )


def _feature_rows(fit: ChanceFit, names, order) -> list:
    sel, screen = fit.errors, fit.screens["fdr"]
    return [
        (
            names[j],
            int(sel.n_errors_[j]),
            f"{100 * sel.scores_[j]:.1f}",
            f"{sel.pvalues_[j]:.2e}",
            f"{screen.pvalues_[j]:.2e}",
            *("yes" if fit.selections[r][j] else "" for r in RULES),
        )
        for j in order[: min(order.size, FULL_LIST_MAX)]
    ]


def _features_csv(fit: ChanceFit, names, order) -> str:
    sel, screen = fit.errors, fit.screens["fdr"]
    analytic, perm = fit.nulls["analytic"].pvalues, fit.nulls["permutation"].pvalues
    return csv_text(
        [
            "feature",
            "errors",
            "accuracy %",
            f"p-value (errors, {fit.used} null)",
            "p-value (errors, analytic)",
            "p-value (errors, permutation)",
            "F (class means)",
            "F (class spreads)",
            "p-value (class difference, pooled permutation)",
            "constant",
            *RULES.values(),
        ],
        (
            (
                names[j],
                sel.n_errors_[j],
                f"{100 * sel.scores_[j]:.4f}",
                f"{sel.pvalues_[j]:.6e}",
                f"{analytic[j]:.6e}",
                f"{perm[j]:.6e}",
                f"{screen.location_statistics_[j]:.6g}",
                f"{screen.spread_statistics_[j]:.6g}",
                f"{screen.pvalues_[j]:.6e}",
                int(sel.constant_features_[j]),
                *(int(fit.selections[r][j]) for r in RULES),
            )
            for j in order
        ),
    )


def _selection_section(fit: ChanceFit, data: LoadedData) -> Section:
    sel = fit.errors
    selection = Section("Discriminative feature selection")
    selection.add(Text(_rules_text(fit, data.y.size)))
    summary = [(RULES[r], int(mask.sum())) for r, mask in fit.selections.items()]
    selection.add(
        Table(["threshold", "selected"], summary, title="Features selected under each threshold")
    )
    if not any(mask.any() for mask in fit.selections.values()):
        selection.add(
            Note(
                Markup(
                    "No threshold kept a feature: no single feature beats what the best of {M} "
                    "useless features would reach by chance. The table below ranks the features "
                    "anyway; its top rows are not evidence of a signal.",
                    M=sel.n_scored_,
                )
            )
        )
    order = _order(sel)
    selection.add(
        Table(
            [
                "feature",
                "errors",
                "accuracy %",
                "p-value (errors)",
                "p-value (class difference)",
                *RULES.values(),
            ],
            _feature_rows(fit, data.feature_names, order),
            title=f"Best features (validation errors out of {sel.n_validation_})",
            terminal_rows=TOP_TERMINAL,
            terminal_columns=[0, 1, 2, 4, 5, 7],
            top=TOP_REPORT,
            total_rows=order.size,
            more=Markup(
                "Features with equal errors are tied and listed in file order. A class-difference "
                "p-value of {floor:.1e} means beyond every null draw. All {n} features, in this "
                "order and with these columns (plus every p-value and both F statistics), are in "
                "`features.csv`.",
                floor=fit.screens["fdr"].min_pvalue_,
                n=order.size,
            ),
        )
    )
    selection.files["features.csv"] = _features_csv(fit, data.feature_names, order)
    return selection


def _loo_note(rule, outcome, n_rounds) -> str:
    if rule == "all":
        return "every feature, no selection"
    if rule == "oracle":
        return "chosen with the test labels: not an honest estimate"
    if outcome.empty_rounds == n_rounds:
        return "fallback in every round: no feature kept, class proportions predicted"
    if outcome.empty_rounds:
        return (
            f"fallback in {outcome.empty_rounds} of {n_rounds} rounds "
            "(no feature kept: class proportions predicted there)"
        )
    return ""


def _loo_text(fit: ChanceFit, n_loo: int, majority: float) -> Markup:
    floor = fit.nulls["analytic"].min_pvalue
    rounds = (
        f"Each round's thresholds come from its own null ({n_loo} label permutations within its "
        "halves)."
        if fit.used == "permutation"
        else "Each round's thresholds come from the analytic null of its validation half."
    )
    return Markup(
        "The paper's protocol: leave one example out, split the rest into halves, select "
        "features on validation errors, retrain naive Bayes on the selected features, test the "
        "held-out example. Selection happens inside every round, so these accuracies are "
        "honest. The oracle picks the best errors-allowed value with the test labels and is "
        "only an upper reference. {rounds} The FDR and Bonferroni rows here are the paper's: a "
        "binomial test of the validation errors, whose smallest p-value (no error at all) is "
        "{floor:.2g}; where that is above alpha / M they cannot select anything, whatever the "
        "data. Always predicting the majority class scores {majority:.1f}%.",
        rounds=rounds,
        floor=floor,
        majority=100 * majority,
    )


def _loo_section(fit: ChanceFit, data: LoadedData, *, seed, p_error, quick) -> Section:
    from widefs.plotting import plot_errors_allowed
    from widefs.univariate import leave_one_out_threshold_curve

    # Each round's null needs E[X] and E[X(1)]: a few hundred permutations estimate them well.
    n_loo = min(fit.n_permutations, 100 if quick else 200)
    curve = leave_one_out_threshold_curve(
        data.X,
        data.y,
        random_state=seed,
        thresholds=("all", *RULES),
        p_error=p_error,
        null=fit.used,
        n_permutations=n_loo,
    )
    _, counts = np.unique(data.y, return_counts=True)
    majority = counts.max() / counts.sum()
    rows = [
        (
            LOO_LABELS.get(r) or RULES[r],
            f"{100 * o.accuracy:.1f}",
            f"{np.median(o.n_selected):.0f}",
            o.empty_rounds,
            _loo_note(r, o, data.y.size),
        )
        for r, o in curve.outcomes.items()
    ]
    loo = Section("Leave-one-out accuracy by threshold")
    loo.add(Text(_loo_text(fit, n_loo, majority)))
    below = [
        LOO_LABELS.get(r) or RULES[r]
        for r, o in curve.outcomes.items()
        if r != "oracle" and o.accuracy < majority - 0.05
    ]
    if below:
        loo.add(Note(_below_majority_note(below)))
    loo.add(
        Table(
            ["threshold", "accuracy %", "median features", "rounds with none", "note"],
            rows,
            title="Leave-one-out accuracy of Gaussian naive Bayes after selection",
            terminal_columns=[0, 1, 2, 3],
        )
    )
    figure = plot_errors_allowed(
        curve, title=f"{visible(data.name)}: leave-one-out accuracy vs errors allowed"
    ).figure
    loo.add(
        Figure(
            "errors_allowed.png",
            figure,
            "Leave-one-out accuracy against the number of validation errors allowed",
        )
    )
    return loo


def _below_majority_note(rows) -> Markup:
    return Markup(
        "Below the majority-class accuracy ({rows}): leave-one-out works against a classifier "
        "that has learnt nothing. Removing the held-out example makes its own class rarer in "
        "the training data, so predicting the training class proportions (the fallback) or a "
        "noise-driven classifier tends to predict the other class; on balanced classes a pure "
        "fallback scores near 0%. Such numbers mean no usable signal, not a signal against the "
        "labels.",
        rows=", ".join(rows),
    )


def chance_sections(
    data: LoadedData,
    *,
    seed: int,
    progress=None,
    p_error="auto",
    null: str = "auto",
    n_permutations: int = 1000,
    quick: bool = False,
    n_jobs=None,
) -> list[Section]:
    """Score every feature, both nulls, every threshold, and the leave-one-out curve.

    ``null`` chooses the null of the multiplicity-gap thresholds (``"auto"``: as
    :class:`DiscriminativeSelector` chooses it: analytic on balanced classes, permutation on
    imbalanced ones); the other null is shown beside it.
    """
    fit = _fit(
        data, seed=seed, p_error=p_error, null=null, n_permutations=n_permutations, n_jobs=n_jobs
    )
    return [
        _chance_section(fit, seed),
        _selection_section(fit, data),
        _loo_section(fit, data, seed=seed, p_error=p_error, quick=quick),
    ]
