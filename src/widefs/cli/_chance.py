"""The chance-analysis and discriminative-selection part of ``widefs run``."""

from __future__ import annotations

import numpy as np
from rich.table import Table

from widefs.cli._data import LoadedData
from widefs.cli._report import Section, md_table
from widefs.plotting import plot_chance_curves, plot_errors_allowed
from widefs.stats import highest_chance_accuracy, multiplicity_gap
from widefs.univariate import (
    DiscriminativeSelector,
    leave_one_out_threshold_curve,
    threshold_in_errors,
)

__all__ = ["RULES", "chance_analysis"]

RULES = {
    "mgm": "MGM",
    "max_chance": "E[X(1)]",
    "fdr": "FDR 5%",
    "bonferroni": "Bonferroni 5%",
}
LOO_LABELS = {"all": "no selection", "oracle": "oracle (upper reference)"}
TOP_TERMINAL = 15
TOP_REPORT = 100


def chance_analysis(data: LoadedData, *, seed: int, progress=None):
    """Score every feature, apply each threshold, run the leave-one-out curve.

    Returns ``(sections, terminal_tables)``.
    """
    sel = DiscriminativeSelector("all", random_state=seed).fit(data.X, data.y)
    M, N, p = sel.n_scored_, sel.n_validation_, sel.p_error_
    eligible = ~sel.constant_features_
    chosen = {}
    for rule in RULES:
        cut, mask = threshold_in_errors(rule, sel.n_errors_, N, p, n_scored=M, eligible=eligible)
        chosen[rule] = (cut, mask)

    # Chance table.
    e_ah = float(highest_chance_accuracy(M, N, p))
    gap = float(multiplicity_gap(M, N, p))
    chance_rows = [
        ("features scored (M)", f"{M}"),
        ("validation examples (N)", f"{N}"),
        ("chance error rate p_err", f"{p:.3f}"),
        ("E[X]: errors of one random feature", f"{sel.expected_errors_:.2f}"),
        ("E[X(1)]: errors of the best of M random features", f"{sel.expected_min_errors_:.2f}"),
        ("E[A_H]: highest expected chance accuracy", f"{100 * e_ah:.1f}%"),
        ("multiplicity gap E[X] - E[X(1)]", f"{gap:.2f}"),
        ("MGM threshold (errors)", f"{chosen['mgm'][0]:.2f}"),
        (
            "best observed feature",
            f"{int(sel.n_errors_[eligible].min())} errors ({100 * sel.scores_[eligible].max():.1f}%)",
        ),
    ]
    t_chance = Table(title="Chance analysis (Palatucci & Carlson 2008)")
    t_chance.add_column("quantity")
    t_chance.add_column("value", justify="right")
    for k, v in chance_rows:
        t_chance.add_row(k, v)

    # Threshold summary.
    summary_rows = [
        (label, f"{cut:.2f}", int(mask.sum()))
        for (rule, label), (cut, mask) in zip(RULES.items(), chosen.values(), strict=True)
    ]
    t_thr = Table(title="Features selected under each threshold")
    for col in ("threshold", "cut (errors <)", "selected"):
        t_thr.add_column(col, justify="right" if col != "threshold" else "left")
    for row in summary_rows:
        t_thr.add_row(*map(str, row))

    # Top features with their membership.
    order = np.flatnonzero(eligible)[np.argsort(sel.n_errors_[eligible], kind="stable")]
    any_selected = np.zeros(sel.n_errors_.size, bool)
    for _, mask in chosen.values():
        any_selected |= mask
    listed = order[: max(TOP_REPORT, 0)]
    feature_rows = []
    for j in listed:
        marks = ["yes" if chosen[r][1][j] else "" for r in RULES]
        feature_rows.append(
            (
                data.feature_names[j],
                int(sel.n_errors_[j]),
                f"{sel.scores_[j]:.3f}",
                f"{sel.pvalues_[j]:.2e}",
                *marks,
            )
        )
    t_feat = Table(title=f"Best {TOP_TERMINAL} features (validation errors out of {N})")
    for col in ("feature", "errors", "accuracy", "p-value", *RULES.values()):
        t_feat.add_column(col)
    for row in feature_rows[:TOP_TERMINAL]:
        t_feat.add_row(*map(str, row))

    # Leave-one-out curve (Figure 3 style) and chance curves (Figure 1 style).
    task = progress.add_task("leave-one-out threshold curve", total=None) if progress else None
    curve = leave_one_out_threshold_curve(
        data.X, data.y, random_state=seed, thresholds=("all", *RULES)
    )
    if progress:
        progress.update(task, total=1, completed=1)
    fig3 = plot_errors_allowed(
        curve, title=f"{data.name}: leave-one-out accuracy vs errors allowed"
    ).figure
    n_list = sorted({10, 20, 40, N})
    fig1 = plot_chance_curves(n_list, max(M, 10), p_error=p, highlight=(M, N)).figure

    loo_rows = [
        (
            LOO_LABELS.get(r) or RULES[r],
            f"{100 * o.accuracy:.1f}%",
            f"{np.median(o.n_selected):.0f}",
            o.empty_rounds,
        )
        for r, o in curve.outcomes.items()
    ]
    t_loo = Table(title="Leave-one-out accuracy of Gaussian naive Bayes after selection")
    for col in ("threshold", "accuracy", "median features", "rounds with none"):
        t_loo.add_column(col)
    for row in loo_rows:
        t_loo.add_row(*map(str, row))

    csv_lines = ["feature,errors,accuracy,pvalue,constant," + ",".join(RULES)]
    for j in range(sel.n_errors_.size):
        flags = ",".join(str(int(chosen[r][1][j])) for r in RULES)
        csv_lines.append(
            f'"{data.feature_names[j]}",{sel.n_errors_[j]},{sel.scores_[j]:.6f},{sel.pvalues_[j]:.6e},'
            f"{int(sel.constant_features_[j])},{flags}"
        )

    chance_md = (
        f"With M = {M} features scored on N = {N} validation examples (stratified random halves, seed "
        f"{seed}), the best of M features that carry **no information at all** is expected to reach "
        f"**{100 * e_ah:.1f}%** accuracy (Theorem 4.1 of Palatucci & Carlson 2008). A feature's validation "
        "accuracy means something only beyond that.\n\n"
        + md_table(["quantity", "value"], chance_rows)
    )
    sel_md = (
        "One Gaussian naive Bayes per feature, trained on one half and scored on the other. A feature is "
        "selected when its validation errors are below the threshold.\n\n"
        + md_table(["threshold", "cut (errors <)", "selected"], summary_rows)
        + f"\n\nBest {min(TOP_REPORT, len(feature_rows))} features (all features in `features.csv`):\n\n"
        + md_table(["feature", "errors", "accuracy", "p-value", *RULES.values()], feature_rows)
    )
    loo_md = (
        "The paper's protocol: leave one example out, split the rest into halves, select features on "
        "validation errors, retrain naive Bayes on the selected features, test the held-out example. "
        "Selection happens inside every round, so these accuracies are honest. The oracle picks the "
        "best errors-allowed value with the test labels and is only an upper reference.\n\n"
        + md_table(
            ["threshold", "accuracy", "median features", "rounds with none"],
            [(*r,) for r in loo_rows],
        )
    )
    sections = [
        Section("Chance analysis", chance_md, figures={"chance_curve.png": fig1}),
        Section(
            "Discriminative feature selection",
            sel_md,
            files={"features.csv": "\n".join(csv_lines) + "\n"},
        ),
        Section(
            "Leave-one-out accuracy by threshold", loo_md, figures={"errors_allowed.png": fig3}
        ),
    ]
    return sections, [t_chance, t_thr, t_feat, t_loo]
