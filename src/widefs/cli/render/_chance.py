"""The chance-analysis and discriminative-selection sections of ``widefs run``.

Every number comes from :class:`widefs.analysis.ChanceAnalysis`; this module only words and
lays them out.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from widefs.cli._markup import Markup, csv_text, visible
from widefs.cli.render._report import FULL_LIST_MAX, Figure, Note, Section, Table, Text
from widefs.cli.render._words import plural

if TYPE_CHECKING:
    from widefs.analysis import Analysis, ChanceAnalysis
    from widefs.cli.io import LoadedData

__all__ = ["RULES", "chance_sections"]

RULES = {
    "mgm": "MGM",
    "max_chance": "E[X(1)]",
    "fdr": "FDR 5%",
    "bonferroni": "Bonferroni 5%",
}
LOO_LABELS = {
    "all": "no selection",
    "oracle": "oracle (upper reference)",
    # The leave-one-out protocol's FDR and Bonferroni rows are the paper's binomial test of the
    # validation errors, not the class-difference screen's rules of the same level.
    "fdr": "FDR 5% of errors (binomial)",
    "bonferroni": "Bonferroni 5% of errors (binomial)",
}
TOP_TERMINAL = 15
TOP_REPORT = 20


def _accuracy(value: float) -> str:
    return f"{100 * value:.1f}%"


def _headline(fit: ChanceAnalysis, seed: int) -> Markup:
    sel, perm, analytic = fit.selector, fit.nulls["permutation"], fit.nulls["analytic"]
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
        acc_p=_accuracy(fit.chance_accuracy["permutation"]),
        B=fit.n_permutations,
        p=sel.p_error_,
        e_a=analytic.expected_min_errors,
        acc_a=_accuracy(fit.chance_accuracy["analytic"]),
        used=fit.null_used,
    )


def _bound_note(fit: ChanceAnalysis) -> Markup:
    return Markup(
        "**The analytic value is only a bound here.** On these imbalanced classes its chance "
        "rate is the majority-class error, a lower bound on a classifier's chance errors: the "
        "best chance accuracy is at most {acc_a}, and the permutation value ({acc_p}) is the "
        "estimate.",
        acc_a=_accuracy(fit.chance_accuracy["analytic"]),
        acc_p=_accuracy(fit.chance_accuracy["permutation"]),
    )


def _chance_rows(fit: ChanceAnalysis) -> list:
    sel, perm, analytic = fit.selector, fit.nulls["permutation"], fit.nulls["analytic"]
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
            f"{_accuracy(fit.chance_accuracy['permutation'])} / "
            f"{_accuracy(fit.chance_accuracy['analytic'])}"
            + (" (at most)" if analytic.is_bound else ""),
        ),
        ("multiplicity-gap thresholds use", f"the {fit.null_used} null"),
        (
            "MGM threshold (errors)",
            f"{fit.mgm_threshold:.2f}",
        ),
        (
            "best observed feature",
            f"{plural(fit.best_errors, 'error')} ({100 * fit.best_accuracy:.1f}%)",
        ),
    ]


def _chance_section(fit: ChanceAnalysis, seed: int) -> Section:
    from widefs.plotting import plot_chance_curves

    sel = fit.selector
    chance = Section("Chance analysis")
    chance.add(Text(_headline(fit, seed)))
    if fit.nulls["analytic"].is_bound:
        chance.add(Text(_bound_note(fit)))
    if fit.null_gap > 1:
        chance.add(
            Text(
                Markup(
                    "The two E[X(1)] differ by {gap:.1f} errors: the analytic value assumes "
                    "independent features and a binomial error count, which correlated features "
                    "and imbalanced classes break; the permutation value is calibrated on these "
                    "data (`--null permutation` or `--null analytic` chooses the one the "
                    "multiplicity-gap thresholds use).",
                    gap=fit.null_gap,
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
    ax = plot_chance_curves(sorted({10, 20, 40, n_val}), m, p_error=sel.p_error_)
    _mark_chance_levels(ax, fit)
    chance.add(
        Figure(
            "chance_curve.png",
            ax.figure,
            Markup(
                "Highest expected chance accuracy against the number of features (curves: "
                "analytic null); marked for these data: {used} (the {null} null, used by the "
                "text and the thresholds) and {other}",
                used=_accuracy(fit.chance_accuracy[fit.null_used]),
                null=fit.null_used,
                other=_other_level(fit),
            ),
        )
    )
    return chance


def _other_level(fit: ChanceAnalysis) -> str:
    other = "analytic" if fit.null_used == "permutation" else "permutation"
    bound = other == "analytic" and fit.nulls["analytic"].is_bound
    what = "at most: the analytic bound" if bound else f"the {other} null"
    return f"{_accuracy(fit.chance_accuracy[other])} ({what}, not used)"


def _mark_chance_levels(ax, fit: ChanceAnalysis) -> None:
    """Both chance levels of these data on the figure; the one the text uses filled."""
    m = fit.selector.n_scored_
    for null in ("permutation", "analytic"):
        used = null == fit.null_used
        bound = null == "analytic" and fit.nulls["analytic"].is_bound
        label = (
            f"this data, {null} null{' bound' if bound else ''}: "
            f"{_accuracy(fit.chance_accuracy[null])}{' (in use)' if used else ''}"
        )
        ax.plot(
            [m], [100 * fit.chance_accuracy[null]], "D" if used else "o", ms=9 if used else 7,
            color="black", markerfacecolor="black" if used else "white", zorder=5, label=label,
        )  # fmt: skip
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2, frameon=False)


# How the screen tests each kind of feature, in the order the report lists them.
KIND_TESTS = {
    "gaussian": (
        "{n} continuous {feature}, limma's moderated F (Smyth 2004) of the class means{spread}"
    ),
    "counts": (
        "{n} count {feature}, voom's log-CPM with precision weights, then the weighted moderated F"
    ),
    "ranked": (
        "{n} skewed, heavy-tailed or tied {feature}, the same statistics on mid-ranks with a "
        "permutation null pooled only among features with as many ties"
    ),
    "two_valued": "{n} two-valued {feature}, an exact test given the margins",
    "constant": "{n} constant {feature}, never selected",
}


def _kinds_text(screen) -> str:
    if screen.spread_weight > 0:
        spread = (
            " and of the class spreads (absolute deviations from the class means), combined by "
            f"a weighted Bonferroni that gives the spreads {100 * screen.spread_weight:.0f}% of "
            "the level"
        )
    else:
        spread = " (the classes are too small for the spread test to have power)"
    return "; ".join(
        KIND_TESTS[kind].format(
            n=(n := screen.kind_counts[kind]),
            feature="feature" if n == 1 else "features",
            spread=spread,
        )
        for kind in KIND_TESTS
        if screen.kind_counts.get(kind)
    )


def _count_text(fit: ChanceAnalysis) -> str:
    screen = fit.screen
    if screen.n_testable == screen.n_scored:
        text = (
            f"Every one of the {screen.n_scored} features could reach the level, so "
            f"Bonferroni's cut is alpha / {screen.n_testable} = {fit.bonferroni_cut:.2g}."
        )
    else:
        text = (
            f"Both rules count only the {screen.n_testable} of {screen.n_scored} features whose "
            "smallest attainable p-value could pass (Tarone's rule: a rare two-valued feature "
            f"costs the others nothing), so Bonferroni's cut is alpha / {screen.n_testable} = "
            f"{fit.bonferroni_cut:.2g}."
        )
    if screen.ranked_floor is not None:
        text += (
            " A ranked feature's p-value is a Monte Carlo one: the smallest it can be is "
            f"{screen.ranked_floor:.2g}."
        )
    return text


def _rules_text(fit: ChanceAnalysis, n_examples: int) -> Markup:
    return Markup(
        "Two kinds of rule. The **multiplicity-gap midpoint (MGM)** and **E[X(1)]** rules of "
        "Palatucci & Carlson keep features whose one-feature naive Bayes, trained on one half "
        "and scored on the other, makes fewer validation errors than the best of M useless "
        "features would ({used} null). They are chance-aware cuts, **not error-controlling "
        "ones**: on pure noise with 30/30 classes MGM keeps about 85 of 2000 features by design. "
        "The **FDR** (Benjamini-Hochberg) and **Bonferroni** rules control errors: on all {n} "
        "examples, the class-difference screen gives every feature a p-value valid for that "
        "feature, from the test that fits its kind: {kinds}. {count}",
        used=fit.null_used,
        n=n_examples,
        kinds=_kinds_text(fit.screen),
        count=_count_text(fit),
    )


def _feature_rows(table, names) -> list:
    return [
        (
            names[j],
            int(row.errors),
            f"{100 * row.accuracy:.1f}",
            f"{row.pvalue_errors:.2e}",
            f"{row.pvalue_class_difference:.2e}",
            *("yes" if getattr(row, r) else "" for r in RULES),
        )
        for j, row in zip(table.index[:FULL_LIST_MAX], table.iloc[:FULL_LIST_MAX].itertuples())
    ]


def _features_csv(fit: ChanceAnalysis, table, names) -> str:
    return csv_text(
        [
            "feature",
            "errors",
            "accuracy %",
            # Both nulls' p-values, once each: the report's column is the one in use.
            "p-value (errors, analytic null)",
            "p-value (errors, permutation null)",
            "F (class means)",
            "F (class spreads)",
            "p-value (class difference)",
            "kind (class-difference test)",
            "constant",
            *RULES.values(),
        ],
        (
            (
                names[j],
                row.errors,
                f"{100 * row.accuracy:.4f}",
                f"{row.pvalue_errors_analytic:.6e}",
                f"{row.pvalue_errors_permutation:.6e}",
                f"{row.f_location:.6g}",
                f"{row.f_spread:.6g}",
                f"{row.pvalue_class_difference:.6e}",
                row.kind,
                int(row.constant),
                *(int(getattr(row, r)) for r in RULES),
            )
            for j, row in zip(table.index, table.itertuples())
        ),
    )


def _selection_section(fit: ChanceAnalysis, table, data: LoadedData) -> Section:
    sel = fit.selector
    selection = Section("Discriminative feature selection")
    selection.add(Text(_rules_text(fit, data.y.size)))
    if fit.screen.note:
        selection.add(Note(Markup("{note}", note=fit.screen.note)))
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
    selection.add(
        Table(
            [
                "feature",
                "errors",
                "accuracy %",
                f"p-value (errors, {fit.null_used} null)",
                "p-value (class difference)",
                *RULES.values(),
            ],
            _feature_rows(table, data.feature_names),
            title=f"Best features (validation errors out of {sel.n_validation_})",
            terminal_rows=TOP_TERMINAL,
            terminal_columns=[0, 1, 2, 4, 5, 7],
            top=TOP_REPORT,
            total_rows=len(table),
            more=Markup(
                "Features with equal errors are tied and listed in file order. All {n} "
                "features, in this order and with these columns (plus every p-value, both F "
                "statistics and the kind of test behind each class-difference p-value), are in "
                "`features.csv`.",
                n=len(table),
            ),
        )
    )
    selection.files["features.csv"] = _features_csv(fit, table, data.feature_names)
    return selection


def _loo_note(rule, outcome) -> str:
    if rule == "all":
        return "every feature, no selection"
    if rule == "oracle":
        return "chosen with the test labels: not an honest estimate"
    if outcome.empty_rounds == outcome.n_rounds:
        return "fallback in every round: no feature kept, class proportions predicted"
    if outcome.empty_rounds:
        return (
            f"fallback in {outcome.empty_rounds} of {outcome.n_rounds} rounds "
            "(no feature kept: class proportions predicted there)"
        )
    return ""


def _loo_text(fit: ChanceAnalysis, n_loo: int, majority: float) -> Markup:
    floor = fit.loo_min_pvalue
    rounds = (
        f"Each round's thresholds come from its own null ({n_loo} label permutations within its "
        "halves)."
        if fit.null_used == "permutation"
        else "Each round's thresholds come from the analytic null of its validation half."
    )
    return Markup(
        "The paper's protocol: leave one example out, split the rest into halves, select "
        "features on validation errors, retrain naive Bayes on the selected features, test the "
        "held-out example. Selection happens inside every round, so these accuracies are "
        "honest. The oracle picks the best errors-allowed value with the test labels and is "
        "only an upper reference. {rounds} The rows FDR 5% and Bonferroni 5% of errors (binomial) "
        "are the paper's rules, not the class-difference screen's of the selection above: a "
        "binomial test of the validation errors, whose smallest p-value (no error at all) is "
        "{floor:.2g}; where that is above alpha / M they cannot select anything, whatever the "
        "data. Always predicting the majority class scores {majority:.1f}%.",
        rounds=rounds,
        floor=floor,
        majority=100 * majority,
    )


def _loo_section(fit: ChanceAnalysis, data: LoadedData, majority: float) -> Section:
    from widefs.plotting import plot_errors_allowed

    rows = [
        (
            LOO_LABELS.get(o.rule) or RULES[o.rule],
            f"{100 * o.accuracy:.1f}",
            f"{o.median_selected:.0f}",
            o.empty_rounds,
            _loo_note(o.rule, o),
        )
        for o in fit.loo
    ]
    loo = Section("Leave-one-out accuracy by threshold")
    loo.add(Text(_loo_text(fit, fit.loo_permutations, majority)))
    below = [LOO_LABELS.get(r) or RULES[r] for r in fit.loo_below_majority]
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
        fit.loo_curve, title=f"{visible(data.name)}: leave-one-out accuracy vs errors allowed"
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


def chance_sections(analysis: Analysis, data: LoadedData) -> list[Section]:
    """The chance analysis, the discriminative selection and the leave-one-out curve."""
    fit = analysis.chance
    return [
        _chance_section(fit, analysis.seed),
        _selection_section(fit, analysis.features, data),
        _loo_section(fit, data, analysis.majority.accuracy),
    ]
