"""The chance-analysis and discriminative-selection part of ``widefs run``."""

from __future__ import annotations

import numpy as np

from widefs.cli._data import LoadedData
from widefs.cli._markup import Markup, csv_text, visible
from widefs.cli._report import FULL_LIST_MAX, Figure, Note, Section, Table, Text
from widefs.plotting import plot_chance_curves, plot_errors_allowed
from widefs.stats import binomial_tail, expected_min_errors
from widefs.univariate import (
    DiscriminativeSelector,
    leave_one_out_threshold_curve,
    threshold_in_errors,
)

__all__ = ["RULES", "chance_sections", "default_permutations"]

RULES = {
    "mgm": "MGM",
    "max_chance": "E[X(1)]",
    "fdr": "FDR 5%",
    "bonferroni": "Bonferroni 5%",
}
LOO_LABELS = {"all": "no selection", "oracle": "oracle (upper reference)"}
PERMUTATION_WORK = 20_000_000  # features x permutations of the default permutation null


def default_permutations(n_features: int) -> int:
    """1000 label permutations, fewer (at least 100) when features x 1000 exceeds 2e7.

    The permutation null costs one scoring pass per permutation; on 200,000 features 100
    permutations already estimate E[X(1)] to a small fraction of an error.

    Examples
    --------
    >>> default_permutations(2000), default_permutations(200_000), default_permutations(10**6)
    (1000, 100, 100)
    """
    return int(min(1000, max(100, PERMUTATION_WORK // max(n_features, 1))))


TOP_TERMINAL = 15
TOP_REPORT = 20


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
    """Score every feature, compute both nulls, apply each threshold, run the leave-one-out curve.

    The analytic null (Theorem 4.1 with ``p_error``) and the label-permutation null are both
    computed and shown; ``null`` says which one the thresholds use (``"auto"``: analytic,
    as :class:`DiscriminativeSelector` does for its single validation split).
    """
    # One fit gives the errors (the same split as an analytic fit) and the permutation null.
    sel = DiscriminativeSelector(
        "all",
        p_error=p_error,
        null="permutation",
        n_permutations=n_permutations,
        random_state=seed,
        n_jobs=n_jobs,
    ).fit(data.X, data.y)
    M, N, p = sel.n_scored_, sel.n_validation_, sel.p_error_
    eligible = ~sel.constant_features_
    used = "permutation" if null == "permutation" else "analytic"
    analytic = {
        "expected_errors": N * p,
        "expected_min_errors": float(expected_min_errors(max(M, 1), N, p)),
        "pvalues": np.where(eligible, binomial_tail(sel.n_errors_, N, p), 1.0),
    }
    permutation = {
        "expected_errors": sel.expected_errors_,
        "expected_min_errors": sel.expected_min_errors_,
        "pvalues": sel.pvalues_,
    }
    in_use = permutation if used == "permutation" else analytic
    chosen = {
        rule: threshold_in_errors(
            rule, sel.n_errors_, N, p, n_scored=M, eligible=eligible, **in_use
        )
        for rule in RULES
    }

    def accuracy(errors):
        return f"{100 * (1 - errors / N):.1f}%"

    e_min_a, e_min_p = analytic["expected_min_errors"], permutation["expected_min_errors"]
    chance_rows = [
        ("features scored (M)", f"{M}"),
        ("validation examples (N)", f"{N}"),
        ("chance error rate p_err (analytic)", f"{p:.3f}"),
        (
            "label permutations",
            f"{n_permutations}"
            + (" (fewer on wide data; --permutations sets it)" if n_permutations < 1000 else ""),
        ),
        (
            "E[X]: errors of one random feature, analytic / permutation",
            f"{analytic['expected_errors']:.2f} / {permutation['expected_errors']:.2f}",
        ),
        (
            "E[X(1)]: errors of the best of M random features, analytic / permutation",
            f"{e_min_a:.2f} / {e_min_p:.2f}",
        ),
        (
            "E[A_H]: highest expected chance accuracy, analytic / permutation",
            f"{accuracy(e_min_a)} / {accuracy(e_min_p)}",
        ),
        ("thresholds use", f"the {used} null"),
        ("MGM threshold (errors)", f"{chosen['mgm'][0]:.2f}"),
        (
            "best observed feature",
            f"{int(sel.n_errors_[eligible].min())} errors ({100 * sel.scores_[eligible].max():.1f}%)",
        ),
    ]
    chance = Section("Chance analysis")
    chance.add(
        Text(
            Markup(
                "With M = {M} features scored on N = {N} validation examples (stratified random "
                "halves, seed {seed}), the best of M features that carry **no information at all** "
                "is expected to make {e_min_p:.2f} errors, reaching **{acc_p}** accuracy: the mean "
                "over {n_permutations} relabellings of the data (labels permuted within each half; "
                "the permutation null). Theorem 4.1 of Palatucci & Carlson (2008), with the chance "
                "error rate p_err = {p:.3f} and M independent features, gives {e_min_a:.2f} errors "
                "({acc_a}): the analytic null. A feature's validation accuracy means something only "
                "beyond that. **The thresholds below use the {used} null.**",
                M=M,
                N=N,
                seed=seed,
                e_min_p=e_min_p,
                acc_p=accuracy(e_min_p),
                n_permutations=n_permutations,
                p=p,
                e_min_a=e_min_a,
                acc_a=accuracy(e_min_a),
                used=used,
            )
        )
    )
    notes = []
    if p_error == "auto" and not np.isclose(p, 1 - 1 / sel.classes_.size):
        notes.append(
            Markup(
                "The classes are imbalanced on the validation half: always predicting the "
                "majority class errs on a fraction {p:.3f} of it, so that (not 1 - 1/{k}) is the "
                "analytic chance rate, and it is a lower bound: the analytic thresholds are "
                "conservative.",
                p=p,
                k=sel.classes_.size,
            )
        )
    if abs(e_min_a - e_min_p) > 1:
        notes.append(
            Markup(
                "The two E[X(1)] differ by {gap:.1f} errors: the analytic value assumes "
                "independent features and a binomial error count, which correlated features and "
                "imbalanced classes break; the permutation value is calibrated on these data "
                "(`--null permutation` makes the thresholds use it).",
                gap=abs(e_min_a - e_min_p),
            )
        )
    for note in notes:
        chance.add(Text(note))
    chance.add(
        Table(
            ["quantity", "value"], chance_rows, title="Chance analysis (Palatucci & Carlson 2008)"
        )
    )
    fig1 = plot_chance_curves(
        sorted({10, 20, 40, N}), max(M, 10), p_error=p, highlight=(M, N)
    ).figure
    chance.add(
        Figure(
            "chance_curve.png",
            fig1,
            "Highest expected chance accuracy against the number of features (analytic null)",
        )
    )

    summary_rows = [(RULES[r], f"{cut:.2f}", int(mask.sum())) for r, (cut, mask) in chosen.items()]
    # Best first (fewest errors, lowest index among ties); constant features last.
    order = np.concatenate(
        [
            np.flatnonzero(eligible)[np.argsort(sel.n_errors_[eligible], kind="stable")],
            np.flatnonzero(~eligible),
        ]
    )
    acc_pct = 100 * sel.scores_
    feature_rows = [
        (
            data.feature_names[j],
            int(sel.n_errors_[j]),
            f"{acc_pct[j]:.1f}",
            f"{in_use['pvalues'][j]:.2e}",
            *("yes" if chosen[r][1][j] else "" for r in RULES),
        )
        for j in order[: min(order.size, FULL_LIST_MAX)]
    ]
    selection = Section("Discriminative feature selection")
    selection.add(
        Text(
            Markup(
                "One Gaussian naive Bayes per feature, trained on one half and scored on the other. "
                "A feature is selected when its validation errors are below the threshold ({used} "
                "null; the FDR and Bonferroni rules adjust its per-feature p-values). The "
                "p-value is the chance of so few errors from a feature unrelated to the classes; "
                "with {M} features, about {expect:.0f} of them reach p < 0.05 by luck alone.",
                used=used,
                M=M,
                expect=0.05 * M,
            )
        )
    )
    selection.add(
        Table(
            ["threshold", "cut (errors <)", "selected"],
            summary_rows,
            title="Features selected under each threshold",
        )
    )
    if not any(mask.any() for _, mask in chosen.values()):
        selection.add(
            Note(
                Markup(
                    "No threshold kept a feature: no single feature beats what the best of {M} "
                    "useless features would reach by chance. The table below ranks the features "
                    "anyway; its top rows are not evidence of a signal.",
                    M=M,
                )
            )
        )
    selection.add(
        Table(
            ["feature", "errors", "accuracy %", "p-value", *RULES.values()],
            feature_rows,
            title=f"Best features (validation errors out of {N})",
            terminal_rows=TOP_TERMINAL,
            top=TOP_REPORT,
            total_rows=order.size,
            more=Markup(
                "Features with equal errors are tied and listed in file order. All {n} "
                "features, in this order and with these columns (plus both p-values), are in "
                "`features.csv`.",
                n=order.size,
            ),
        )
    )
    selection.files["features.csv"] = csv_text(
        [
            "feature",
            "errors",
            "accuracy %",
            "p-value",
            "p-value (analytic)",
            "p-value (permutation)",
            "constant",
            *RULES.values(),
        ],
        (
            (
                data.feature_names[j],
                sel.n_errors_[j],
                f"{acc_pct[j]:.4f}",
                f"{in_use['pvalues'][j]:.6e}",
                f"{analytic['pvalues'][j]:.6e}",
                f"{permutation['pvalues'][j]:.6e}",
                int(sel.constant_features_[j]),
                *(int(chosen[r][1][j]) for r in RULES),
            )
            for j in order
        ),
    )

    n_loo = min(n_permutations, 100) if quick else n_permutations
    curve = leave_one_out_threshold_curve(
        data.X,
        data.y,
        random_state=seed,
        thresholds=("all", *RULES),
        p_error=p_error,
        null=used,
        n_permutations=n_loo,
    )
    n_rounds = data.y.size
    _, class_counts = np.unique(data.y, return_counts=True)
    majority = class_counts.max() / class_counts.sum()

    def loo_note(rule, outcome):
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

    loo_rows = [
        (
            LOO_LABELS.get(r) or RULES[r],
            f"{100 * o.accuracy:.1f}",
            f"{np.median(o.n_selected):.0f}",
            o.empty_rounds,
            loo_note(r, o),
        )
        for r, o in curve.outcomes.items()
    ]
    loo = Section("Leave-one-out accuracy by threshold")
    loo.add(
        Text(
            Markup(
                "The paper's protocol: leave one example out, split the rest into halves, select "
                "features on validation errors, retrain naive Bayes on the selected features, test "
                "the held-out example. Selection happens inside every round, so these accuracies "
                "are honest. The oracle picks the best errors-allowed value with the test labels "
                "and is only an upper reference. {rounds} Always predicting the majority class "
                "scores {majority:.1f}%.",
                majority=100 * majority,
                rounds=(
                    f"Each round's thresholds come from its own null ({n_loo} label permutations "
                    "within its halves)."
                    if used == "permutation"
                    else "Each round's thresholds come from the analytic null of its validation half."
                ),
            )
        )
    )
    below = [
        LOO_LABELS.get(r) or RULES[r]
        for r, o in curve.outcomes.items()
        if r != "oracle" and o.accuracy < majority - 0.05
    ]
    if below:
        loo.add(
            Note(
                Markup(
                    "Below the majority-class accuracy ({rows}): leave-one-out works against a "
                    "classifier that has learnt nothing. Removing the held-out example makes its "
                    "own class rarer in the training data, so predicting the training class "
                    "proportions (the fallback) or a noise-driven classifier tends to predict the "
                    "other class; on balanced classes a pure fallback scores near 0%. Such "
                    "numbers mean no usable signal, not a signal against the labels.",
                    rows=", ".join(below),
                )
            )
        )
    loo.add(
        Table(
            ["threshold", "accuracy %", "median features", "rounds with none", "note"],
            loo_rows,
            title="Leave-one-out accuracy of Gaussian naive Bayes after selection",
            terminal_columns=[0, 1, 2, 3],
        )
    )
    fig3 = plot_errors_allowed(
        curve, title=f"{visible(data.name)}: leave-one-out accuracy vs errors allowed"
    ).figure
    loo.add(
        Figure(
            "errors_allowed.png",
            fig3,
            "Leave-one-out accuracy against the number of validation errors allowed",
        )
    )
    return [chance, selection, loo]
