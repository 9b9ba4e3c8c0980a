"""The SCM, CN2-POE and CEFS parts of ``widefs run``: each method fitted on the data and shown."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split

from widefs.cli._data import LoadedData
from widefs.cli._markup import Markup
from widefs.cli._methods import PRESCREEN, f_screen
from widefs.cli._report import Code, Figure, Note, Section, Table, Text
from widefs.ensemble import ClassSpecificEnsemble
from widefs.exceptions import HeuristicBoundWarning
from widefs.plotting import OKABE_ITO
from widefs.rules import rules_summary
from widefs.scm import OccamSCM, PACBayesSCM, SampleCompressionSCM, describe_model

__all__ = ["cefs_sections", "frame_of", "rules_sections", "scm_sections"]

TEST_FRACTION = 0.33  # Domingos (1999): 67% training, 33% held out

SCM_LEARNERS = {
    "PAC-Bayes SCM": (PACBayesSCM, "PAC-Bayes (Theorem 5), Gibbs risk"),
    "sample-compression SCM": (SampleCompressionSCM, "sample compression (eqs. 4-5)"),
    "Occam SCM": (OccamSCM, "Occam's razor (Theorem 2)"),
}


def frame_of(data: LoadedData) -> pd.DataFrame:
    """The features as a DataFrame, so fitted models name features, not column indices."""
    return pd.DataFrame(data.X, columns=[str(c) for c in data.feature_names])


def _scm_input(data: LoadedData):
    """The features as the SCMs read them (a frame, or a store packed once in bits), their
    names and the labels, with line breaks in names and labels escaped: a description is
    one block of text, so data must not be able to break or fake one of its lines."""
    from widefs.cli._markup import visible

    y = np.array([visible(str(v)) for v in data.y], dtype=object)
    if not data.in_memory:  # a store's names are looked up one at a time, escaped
        from widefs.scm import pack_binary

        packed = pack_binary(data.X)
        return (data.X if packed is None else packed), data.feature_names, y
    names = [visible(str(c)) for c in data.feature_names]
    return pd.DataFrame(data.X, columns=names), None, y


def _fit_scms(X, y) -> dict:
    """The three Set Covering Machines fitted on all examples, by report name."""
    models = {}
    for name, (cls, _) in SCM_LEARNERS.items():
        with warnings.catch_warnings():
            # Without an a-priori feature range the bound takes the training range; said below.
            warnings.simplefilter("ignore", HeuristicBoundWarning)
            models[name] = cls().fit(X, y)
    return models


def _bound_rows(models: dict, majority_error: float):
    """The table rows (learner, stumps, risks, judgement) and the learners with vacuous bounds."""
    rows, vacuous = [], []
    for name, model in models.items():
        # PAC-Bayes bounds the Gibbs classifier, so its training Gibbs risk is the one shown.
        training = getattr(model, "gibbs_risk_", getattr(model, "empirical_risk_", None))
        bound = float(model.risk_bound_)
        if bound >= majority_error:
            vacuous.append(name)
            verdict = f"vacuous: not below the majority-class error {majority_error:.3f}"
        else:
            verdict = f"informative: below the majority-class error {majority_error:.3f}"
        rows.append(
            (
                name,
                len(model.rules_),
                f"{training:.3f}",
                f"{bound:.3f}",
                verdict,
                SCM_LEARNERS[name][1],
            )
        )
    return rows, vacuous


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


def scm_sections(data: LoadedData, *, seed: int, progress=None) -> list[Section]:
    """Fit the three Set Covering Machines on all data and show rules with risk bounds."""
    from widefs.scm import n_candidate_machines

    section = Section("Set Covering Machines of decision stumps (Shah, Marchand & Corbeil 2010)")
    X, names, y = _scm_input(data)
    models = _fit_scms(X, y)
    _, counts = np.unique(data.y, return_counts=True)
    majority_error = 1 - counts.max() / counts.sum()
    for text in _scm_intro(majority_error, counts.size, n_candidate_machines(counts.size)):
        section.add(text)
    rows, vacuous = _bound_rows(models, majority_error)
    if vacuous:
        section.add(
            Note(
                Markup(
                    "Vacuous bounds ({names}): with {n} examples the bound cannot certify any "
                    "rule better than predicting the majority class. The rules may still be "
                    "useful (see their cross-validated accuracy), but the bound does not show it.",
                    names=", ".join(vacuous),
                    n=data.y.size,
                )
            )
        )
    section.add(
        Table(
            ["learner", "stumps", "training risk", "risk bound", "judgement", "bound"],
            rows,
            title="SCM rules and risk bounds (fitted on all examples)",
            terminal_columns=[0, 1, 2, 3, 4],
        )
    )
    if counts.size > 2:
        section.add(
            Table(
                ["learner", "machine", "separates", "examples", "stumps", "bound share"],
                _machine_rows(models),
                title="The machines of each decision list",
            )
        )
    texts = [describe_model(m, feature_names=names) for m in models.values()]
    section.add(Code("\n\n".join(texts)))
    if counts.size == 2:
        section.add(_bound_path_figure(models, majority_error))
    return [section]


def _bound_path_figure(models: dict, majority_error: float) -> Figure:
    """The bound of each binary SCM after each added stump, the chosen size starred."""
    from matplotlib.figure import Figure as MplFigure
    from matplotlib.ticker import MaxNLocator

    fig = MplFigure(figsize=(6.4, 4.2), layout="constrained")
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
    ax.set_title("Risk bound after each added stump")
    return Figure(
        "scm_bounds.png",
        fig,
        "Risk bound of each SCM against the number of stumps (star: the size each "
        "learner chose; dotted: the majority-class error)",
    )


def rules_sections(data: LoadedData, *, seed: int, progress=None) -> list[Section]:
    """CN2 with process-oriented stopping on a 67/33 split: the rule list and held-out error.

    The held-out part holds at least one example per class (so the stratified split exists
    for tiny data, where every class has at least two examples); the text says when it was
    enlarged for that.
    """
    n_classes = np.unique(data.y).size
    n_test = math.ceil(TEST_FRACTION * data.y.size)
    test_size = TEST_FRACTION if n_test >= n_classes else n_classes
    X = frame_of(data)
    screened = data.X.shape[1] > PRESCREEN
    if screened:
        # The same split rules_summary makes; the pre-screen sees its training part only.
        train, _ = train_test_split(
            np.arange(data.y.size), test_size=test_size, random_state=seed, stratify=data.y
        )
        X = X.iloc[:, _top_f(data.X[train], data.y[train])]
    summary = rules_summary(X, data.y, test_size=test_size, random_state=seed)
    section = Section("CN2 rules with process-oriented estimation (Domingos 1999)")
    section.add(
        Text(
            Markup(
                "CN2 learns an ordered rule list; with process-oriented estimation (POE) the error "
                "estimate of a rule grows with the number of rule versions the search generated, so "
                "the search stops specializing when more searching no longer pays. Trained on "
                "{n_train} examples, tested on the other {n_test}: held-out error **{error:.3f}** "
                "(always predicting the majority class: {default:.3f}; {verdict}).{enlarged}\n\n"
                "In the rule list, [a, b] counts the training examples of each class ({order}) "
                "the rule covers, and **m** is the number of candidate rules the search generated and "
                "compared before keeping this one; POE treats the rule as the best of m "
                "guesses, so its error estimate (POE error) moves from the rule's training error "
                "toward the prior error as log2(m) grows.{screen}",
                order=", ".join(str(c) for c in np.unique(data.y)),
                enlarged=""
                if test_size == TEST_FRACTION
                else " The held-out part was enlarged from a third to one example per class.",
                n_train=summary.n_train,
                n_test=summary.n_test,
                error=summary.test_error,
                default=summary.default_error,
                verdict="better than that"
                if summary.test_error < summary.default_error
                else "no better than that: the rules found no usable signal",
                screen=(
                    f" The search saw only the {PRESCREEN} of {data.X.shape[1]} features with the "
                    "largest F statistic on the training part (a pre-screen that keeps the run "
                    "short); m does not count that pre-selection, so the POE estimates are "
                    "somewhat optimistic, while the held-out error stays honest."
                    if screened
                    else ""
                ),
            )
        )
    )
    section.add(Code(_rule_lines(summary.model)))
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


def _top_f(X: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Column indices of the :data:`PRESCREEN` largest F statistics, in column order."""
    return np.flatnonzero(f_screen(PRESCREEN).fit(X, y).get_support())


def cefs_sections(data: LoadedData, *, seed: int, progress=None) -> list[Section]:
    """Class-specific ensemble feature selection: per-class subsets beside the overall one."""
    X = frame_of(data)
    screened = data.X.shape[1] > PRESCREEN
    if screened:  # no accuracy is claimed here, so the pre-screen may see every example
        X = X.iloc[:, _top_f(data.X, data.y)]
    model = ClassSpecificEnsemble(random_state=seed).fit(X, data.y)
    rows = [(str(c), len(s), ", ".join(map(str, s))) for c, s in model.class_subsets_.items()]
    rows.append(
        (
            "overall (all classes)",
            len(model.overall_subset_),
            ", ".join(map(str, model.overall_subset_)),
        )
    )
    section = Section("Class-specific ensemble feature selection (Soares 2010)")
    section.add(
        Text(
            Markup(
                "A wrapper search (forward selection scored by leave-one-out k-nearest neighbours) "
                "is run once per class, scoring accuracy on that class's examples only, and once "
                "overall. The ensemble predicts the class its members agree on and defers to the "
                "overall-subset model when they disagree (members agreed on {agree:.0f}% of the "
                "training examples).{screen}",
                agree=100 * model.agreement_rate_,
                screen=f" The searches saw the {PRESCREEN} features with the largest F statistic."
                if screened
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
