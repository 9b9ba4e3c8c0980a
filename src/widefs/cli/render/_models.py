"""The SCM, CN2-POE and CEFS sections of ``widefs run``, from the analysis's fits."""

from __future__ import annotations

from widefs.cli._markup import Markup
from widefs.cli.render._report import Code, Figure, Note, Section, Table, Text
from widefs.cli.render._verdicts import verdict_texts

__all__ = ["cefs_sections", "rules_sections", "scm_sections"]

# The bound behind each learner's risk bound, in words.
SCM_BOUNDS = {
    "PAC-Bayes SCM": "PAC-Bayes (Theorem 5), Gibbs risk",
    "sample-compression SCM": "sample compression (eqs. 4-5)",
    "Occam SCM": "Occam's razor (Theorem 2)",
}


def _bound_rows(scm) -> list[tuple]:
    """The table rows: learner, stumps, risks, the verdict on the bound, the bound used."""
    rows = []
    for b in scm.bounds:
        side = "vacuous: not below" if b.vacuous else "informative: below"
        verdict = f"{side} the majority-class error {scm.majority_error:.3f}"
        rows.append(
            (
                b.name,
                b.n_rules,
                f"{b.training_risk:.3f}",
                f"{b.bound:.3f}",
                verdict,
                SCM_BOUNDS[b.name],
            )
        )
    return rows


def _machine_rows(models: dict) -> list[tuple]:
    """One row per binary machine of each decision list (more than two classes)."""
    return [
        (
            name,
            i + 1,
            f"{cm.label} vs {', '.join(str(c) for c in cm.remaining if c != cm.label)}",
            cm.n_examples,
            len(cm.machine.rules_),
            f"{cm.machine.risk_bound_:.3f}",
        )
        for name, model in models.items()
        for i, cm in enumerate(model.machines_)
    ]


def _scm_intro(majority_error: float, n_classes: int, n_candidates: int) -> list[Text]:
    texts = [
        Text(
            Markup(
                "Each learner builds a conjunction of decision stumps greedily and keeps the "
                "number of stumps whose risk bound is smallest (no cross-validation needed). The "
                "bound holds with probability 0.95 over the draw of the training set; the feature "
                "ranges were taken from the data, which makes the Occam and PAC-Bayes bounds "
                "slightly optimistic. Their cross-validated accuracy is in the method comparison. "
                "Risks are fractions of examples misclassified; always predicting the majority "
                "class errs on {majority:.3f} of these examples, so a bound at or above that "
                "guarantees nothing useful (vacuous), and a bound of 1.000 says nothing at all. "
                "Features listed as equivalent to a rule split the training examples exactly as "
                "it does: the data cannot tell them apart.",
                majority=majority_error,
            )
        )
    ]
    if n_classes > 2:
        texts.append(
            Text(
                Markup(
                    "With {k} classes each learner is a decision list of {k1} binary machines: "
                    "the first machine that fires names the class, else the last class left. "
                    "Each machine separates one class from the classes still possible (the one "
                    "whose bound is smallest); its bound counts its errors over all examples at "
                    "delta/{n} (a union bound over the {n} machines a list can meet), and the "
                    "list's bound is the sum of its machines' bounds.",
                    k=n_classes,
                    k1=n_classes - 1,
                    n=n_candidates,
                )
            )
        )
    return texts


def scm_sections(analysis, data) -> list[Section]:
    """The three Set Covering Machines fitted on all data: rules with risk bounds."""
    scm = analysis.scm
    n_classes = analysis.classes.size
    section = Section("Set Covering Machines of decision stumps (Shah, Marchand & Corbeil 2010)")
    for text in _scm_intro(scm.majority_error, n_classes, scm.n_candidate_machines):
        section.add(text)
    vacuous = [b.name for b in scm.bounds if b.vacuous]
    if vacuous:
        section.add(
            Note(
                Markup(
                    "Vacuous bounds ({names}): with {n} examples the bound cannot certify any "
                    "rule better than predicting the majority class. The rules may still be "
                    "useful (see their verdicts), but the bound does not show it.",
                    names=", ".join(vacuous),
                    n=analysis.n_samples,
                )
            )
        )
    section.add(
        Table(
            ["learner", "stumps", "training risk", "risk bound", "judgement", "bound"],
            _bound_rows(scm),
            title="SCM rules and risk bounds (fitted on all examples)",
            terminal_columns=[0, 1, 2, 3, 4],
        )
    )
    if n_classes > 2:
        section.add(
            Table(
                ["learner", "machine", "separates", "examples", "stumps", "bound share"],
                _machine_rows(scm.models),
                title="The machines of each decision list",
            )
        )
    section.add(Code("\n\n".join(scm.descriptions.values())))
    if n_classes == 2:
        section.add(_bound_path_figure(scm.models, scm.majority_error))
    return [section]


def _bound_path_figure(models: dict, majority_error: float) -> Figure:
    """The bound of each binary SCM after each added stump, the chosen size starred."""
    import numpy as np
    from matplotlib.figure import Figure as MplFigure
    from matplotlib.ticker import MaxNLocator

    from widefs.plotting import OKABE_ITO

    # Fixed margins (inches) rather than constrained layout, which measures every text once
    # more at each draw: the y label and its ticks, the title, the x label and a legend of
    # three columns below the axes (centred on the axes: the right margin leaves it room).
    width, height = 6.4, 4.2
    rows = -(-(len(models) + 2) // 3)
    fig = MplFigure(figsize=(width, height))
    fig.subplots_adjust(
        left=0.67 / width,
        right=1 - 0.35 / width,
        bottom=(0.94 + 0.18 * (rows - 1)) / height,
        top=1 - 0.28 / height,
    )
    ax = fig.add_subplot()
    for i, (name, model) in enumerate(models.items()):
        path, k = model.bound_path_, len(model.rules_)
        colour = OKABE_ITO[i % len(OKABE_ITO)]
        ax.plot(
            np.arange(len(path)), path, marker="os^"[i % 3], ls=("-", "--", "-.")[i % 3],
            color=colour, lw=1.8, label=name,
        )  # fmt: skip
        ax.plot([k], [path[k]], marker="*", ms=17, color=colour, markeredgecolor="black", zorder=5)
    ax.plot([], [], "*", ms=12, color="0.6", markeredgecolor="black", label="chosen size")
    ax.axhline(majority_error, color="black", ls=":", lw=1.5, label="majority-class error")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("Number of stumps in the conjunction")
    ax.set_ylabel("Risk bound (fraction of errors, delta = 0.05)")
    ax.set_ylim(0, 1.02)
    ax.grid(alpha=0.3)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=3, frameon=False)
    # Placed at the top, where automatic placement puts it here (ticks below, a y axis from
    # 0): spares that placement's measuring of every y tick label at each draw.
    ax.set_title("Risk bound after each added stump", y=1.0)
    return Figure(
        "scm_bounds.png",
        fig,
        "Risk bound of each SCM against the number of stumps (star: the size each "
        "learner chose; dotted: the majority-class error)",
    )


def rules_sections(analysis, data) -> list[Section]:
    """CN2 with process-oriented stopping on a 67/33 split: the rule list and held-out error."""
    rules = analysis.rules
    summary = rules.summary
    section = Section("CN2 rules with process-oriented estimation (Domingos 1999)")
    section.add(
        Text(
            Markup(
                "CN2 learns an ordered rule list; with process-oriented estimation (POE) the error "
                "estimate of a rule grows with the number of rule versions the search generated, so "
                "the search stops specializing when more searching no longer pays. The list below "
                "was trained on {n_train} examples and tested once on the other {n_test}: held-out "
                "error {error:.3f}, against {default:.3f} for always predicting the majority "
                "class.{enlarged} One split of {n_test} examples describes this list; it is not "
                "the evidence for or against the method, which is its nested cross-validation "
                "and search certificate (its verdict below).\n\n"
                "In the rule list, [a, b] counts the training examples of each class ({order}) "
                "the rule covers, and **m** is the number of candidate rules the search generated and "
                "compared before keeping this one; POE treats the rule as the best of m "
                "guesses, so its error estimate (POE error) moves from the rule's training error "
                "toward the prior error as log2(m) grows.{screen}",
                order=", ".join(str(c) for c in analysis.classes),
                enlarged=" The held-out part was enlarged from a third to one example per class."
                if rules.enlarged
                else "",
                n_train=summary.n_train,
                n_test=summary.n_test,
                error=summary.test_error,
                default=summary.default_error,
                screen=(
                    f" The search saw only the {rules.prescreened} of {analysis.n_features} "
                    "features with the largest F statistic on the training part (a pre-screen that "
                    "keeps the run short); m does not count that pre-selection, so the POE "
                    "estimates are somewhat optimistic, while the held-out error stays honest."
                    if rules.prescreened is not None
                    else ""
                ),
            )
        )
    )
    section.add(Code(_rule_lines(summary.model)))
    for text in verdict_texts(analysis, ("CN2-POE rules",)):
        section.add(text)
    return [section]


def _rule_lines(model) -> list[str]:
    """A rule list's logical lines: the header, one per rule, the default rule."""
    text = str(model)
    head = text.split("\n", 1)[0]
    lines = [head, *(f"  {i}. {rule}" for i, rule in enumerate(model.rules_, 1))]
    prefix = "\n".join(lines)
    if not text.startswith(prefix + "\n"):
        return [text]  # another layout: one block, every line break escaped
    return [*lines, text[len(prefix) + 1 :]]


def cefs_sections(analysis, data) -> list[Section]:
    """Class-specific ensemble feature selection: per-class subsets beside the overall one."""
    cefs = analysis.cefs
    rows = [(str(c), len(s), ", ".join(s)) for c, s in cefs.class_subsets.items()]
    rows.append(("overall (all classes)", len(cefs.overall_subset), ", ".join(cefs.overall_subset)))
    section = Section("Class-specific ensemble feature selection (Soares 2010)")
    section.add(
        Text(
            Markup(
                "A wrapper search (forward selection scored by leave-one-out k-nearest neighbours) "
                "is run once per class, scoring accuracy on that class's examples only, and once "
                "overall. The ensemble predicts the class its members agree on and defers to the "
                "overall-subset model when they disagree (members agreed on {agree:.0f}% of the "
                "training examples).{screen}",
                agree=100 * cefs.model.agreement_rate_,
                screen=f" The searches saw the {cefs.prescreened} features with the largest F "
                "statistic."
                if cefs.prescreened is not None
                else "",
            )
        )
    )
    section.add(
        Table(
            ["class", "features", "subset"],
            rows,
            title="Class-specific and overall feature subsets",
        )
    )
    return [section]
