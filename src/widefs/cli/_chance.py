"""The chance-analysis and discriminative-selection part of ``widefs run``."""

from __future__ import annotations

import numpy as np

from widefs.cli._data import LoadedData
from widefs.cli._markup import Markup, csv_text, visible
from widefs.cli._report import Figure, Section, Table, Text
from widefs.plotting import plot_chance_curves, plot_errors_allowed
from widefs.stats import highest_chance_accuracy, multiplicity_gap
from widefs.univariate import (
    DiscriminativeSelector,
    leave_one_out_threshold_curve,
    threshold_in_errors,
)

__all__ = ["RULES", "chance_sections"]

RULES = {
    "mgm": "MGM",
    "max_chance": "E[X(1)]",
    "fdr": "FDR 5%",
    "bonferroni": "Bonferroni 5%",
}
LOO_LABELS = {"all": "no selection", "oracle": "oracle (upper reference)"}
TOP_TERMINAL = 15
TOP_REPORT = 100


def chance_sections(data: LoadedData, *, seed: int, progress=None) -> list[Section]:
    """Score every feature, apply each threshold, run the leave-one-out curve."""
    sel = DiscriminativeSelector("all", random_state=seed).fit(data.X, data.y)
    M, N, p = sel.n_scored_, sel.n_validation_, sel.p_error_
    eligible = ~sel.constant_features_
    chosen = {
        rule: threshold_in_errors(rule, sel.n_errors_, N, p, n_scored=M, eligible=eligible)
        for rule in RULES
    }

    e_ah = float(highest_chance_accuracy(M, N, p))
    chance_rows = [
        ("features scored (M)", f"{M}"),
        ("validation examples (N)", f"{N}"),
        ("chance error rate p_err", f"{p:.3f}"),
        ("E[X]: errors of one random feature", f"{sel.expected_errors_:.2f}"),
        ("E[X(1)]: errors of the best of M random features", f"{sel.expected_min_errors_:.2f}"),
        ("E[A_H]: highest expected chance accuracy", f"{100 * e_ah:.1f}%"),
        ("multiplicity gap E[X] - E[X(1)]", f"{float(multiplicity_gap(M, N, p)):.2f}"),
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
                "is expected to reach **{acc:.1f}%** accuracy (Theorem 4.1 of Palatucci & Carlson "
                "2008). A feature's validation accuracy means something only beyond that.",
                M=M,
                N=N,
                seed=seed,
                acc=100 * e_ah,
            )
        )
    )
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
            "Highest expected chance accuracy against the number of features",
        )
    )

    summary_rows = [(RULES[r], f"{cut:.2f}", int(mask.sum())) for r, (cut, mask) in chosen.items()]
    order = np.flatnonzero(eligible)[np.argsort(sel.n_errors_[eligible], kind="stable")]
    feature_rows = [
        (
            data.feature_names[j],
            int(sel.n_errors_[j]),
            f"{sel.scores_[j]:.3f}",
            f"{sel.pvalues_[j]:.2e}",
            *("yes" if chosen[r][1][j] else "" for r in RULES),
        )
        for j in order[:TOP_REPORT]
    ]
    selection = Section("Discriminative feature selection")
    selection.add(
        Text(
            Markup(
                "One Gaussian naive Bayes per feature, trained on one half and scored on the other. "
                "A feature is selected when its validation errors are below the threshold. All "
                "features are in `features.csv`."
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
    selection.add(
        Table(
            ["feature", "errors", "accuracy", "p-value", *RULES.values()],
            feature_rows,
            title=f"Best features (validation errors out of {N})",
            terminal_rows=TOP_TERMINAL,
        )
    )
    selection.files["features.csv"] = csv_text(
        ["feature", "errors", "accuracy", "pvalue", "constant", *RULES],
        (
            (
                data.feature_names[j],
                sel.n_errors_[j],
                f"{sel.scores_[j]:.6f}",
                f"{sel.pvalues_[j]:.6e}",
                int(sel.constant_features_[j]),
                *(int(chosen[r][1][j]) for r in RULES),
            )
            for j in range(sel.n_errors_.size)
        ),
    )

    curve = leave_one_out_threshold_curve(
        data.X, data.y, random_state=seed, thresholds=("all", *RULES)
    )
    loo_rows = [
        (
            LOO_LABELS.get(r) or RULES[r],
            f"{100 * o.accuracy:.1f}%",
            f"{np.median(o.n_selected):.0f}",
            o.empty_rounds,
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
                "and is only an upper reference."
            )
        )
    )
    loo.add(
        Table(
            ["threshold", "accuracy", "median features", "rounds with none"],
            loo_rows,
            title="Leave-one-out accuracy of Gaussian naive Bayes after selection",
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
