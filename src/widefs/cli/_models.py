"""The SCM, CN2-POE and CEFS parts of ``widefs run``: each method fitted on the data and shown."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd

from widefs.cli._data import LoadedData
from widefs.cli._markup import Markup
from widefs.cli._report import Code, Figure, Section, Table, Text
from widefs.ensemble import ClassSpecificEnsemble
from widefs.exceptions import HeuristicBoundWarning
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


def scm_sections(data: LoadedData, *, seed: int, progress=None) -> list[Section]:
    """Fit the three Set Covering Machines on all data and show rules with risk bounds."""
    section = Section("Set Covering Machines of decision stumps (Shah, Marchand & Corbeil 2010)")
    if np.unique(data.y).size != 2:
        section.add(
            Text(
                Markup(
                    "Set Covering Machines are binary classifiers; this dataset has more than two "
                    "classes."
                )
            )
        )
        return [section]
    X = frame_of(data)
    rows, texts, paths = [], [], {}
    for name, (cls, bound_name) in SCM_LEARNERS.items():
        with warnings.catch_warnings():
            # Without an a-priori feature range the bound takes the training range; said below.
            warnings.simplefilter("ignore", HeuristicBoundWarning)
            model = cls().fit(X, data.y)
        # PAC-Bayes bounds the Gibbs classifier, so its training Gibbs risk is the one shown.
        training = getattr(model, "gibbs_risk_", None)
        if training is None:
            training = model.empirical_risk_
        rows.append(
            (
                name,
                len(model.rules_),
                f"{training:.3f}",
                f"{model.risk_bound_:.3f}",
                bound_name,
            )
        )
        texts.append(describe_model(model))
        paths[name] = model.bound_path_
    section.add(
        Text(
            Markup(
                "Each learner builds a conjunction of decision stumps greedily and keeps the number "
                "of stumps whose risk bound is smallest (no cross-validation needed). The bound "
                "holds with probability 0.95 over the draw of the training set; the feature ranges "
                "were taken from the data, which makes the Occam and PAC-Bayes bounds slightly "
                "optimistic. Their cross-validated accuracy is in the method comparison."
            )
        )
    )
    section.add(
        Table(
            ["learner", "stumps", "training risk", "risk bound", "bound"],
            rows,
            title="SCM rules and risk bounds (fitted on all examples)",
        )
    )
    section.add(Code("\n\n".join(texts)))
    from matplotlib.figure import Figure as MplFigure

    fig = MplFigure(figsize=(6, 3.6), layout="constrained")
    ax = fig.add_subplot()
    for name, path in paths.items():
        ax.plot(np.arange(len(path)), path, marker="o", label=name)
    ax.set_xlabel("number of stumps")
    ax.set_ylabel("risk bound (delta = 0.05)")
    ax.set_ylim(0, 1.02)
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small")
    ax.set_title("Risk bound after each added stump")
    section.add(
        Figure("scm_bounds.png", fig, "Risk bound of each SCM against the number of stumps")
    )
    return [section]


def rules_sections(data: LoadedData, *, seed: int, progress=None) -> list[Section]:
    """CN2 with process-oriented stopping on a 67/33 split: the rule list and held-out error.

    The held-out part holds at least one example per class (so the stratified split exists
    for tiny data, where every class has at least two examples); the text says when it was
    enlarged for that.
    """
    n_classes = np.unique(data.y).size
    n_test = math.ceil(TEST_FRACTION * data.y.size)
    test_size = TEST_FRACTION if n_test >= n_classes else n_classes
    summary = rules_summary(frame_of(data), data.y, test_size=test_size, random_state=seed)
    section = Section("CN2 rules with process-oriented estimation (Domingos 1999)")
    section.add(
        Text(
            Markup(
                "CN2 learns an ordered rule list; with process-oriented estimation (POE) the error "
                "estimate of a rule grows with the number of rule versions the search generated, so "
                "the search stops specializing when more searching no longer pays. Trained on "
                "{n_train} examples, tested on the other {n_test}: held-out error **{error:.3f}** "
                "(always predicting the majority class: {default:.3f}).{enlarged}",
                enlarged=""
                if test_size == TEST_FRACTION
                else " The held-out part was enlarged from a third to one example per class.",
                n_train=summary.n_train,
                n_test=summary.n_test,
                error=summary.test_error,
                default=summary.default_error,
            )
        )
    )
    section.add(Code(str(summary.model)))
    return [section]


def cefs_sections(data: LoadedData, *, seed: int, progress=None) -> list[Section]:
    """Class-specific ensemble feature selection: per-class subsets beside the overall one."""
    model = ClassSpecificEnsemble(random_state=seed).fit(frame_of(data), data.y)
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
                "training examples).",
                agree=100 * model.agreement_rate_,
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
