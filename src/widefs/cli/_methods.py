"""What ``widefs run`` can run: report sections and the candidates of the comparison.

Importing this module is cheap (``widefs --help`` reads ``METHOD_GROUPS``); the estimators
are imported by :func:`candidates` when a run needs them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["METHOD_GROUPS", "Candidate", "candidates"]

# Report parts selectable with --methods, in report order.
METHOD_GROUPS = ("chance", "scm", "rules", "cefs", "compare")


@dataclass
class Candidate:
    """A method to compare: a name, a factory ``seed -> estimator``, and a short note."""

    name: str
    make: Callable[[int], object]
    note: str = ""
    binary_only: bool = False


def _selector_nb(threshold):
    from sklearn.naive_bayes import GaussianNB
    from sklearn.pipeline import make_pipeline

    from widefs.model_selection import PriorFallbackClassifier
    from widefs.univariate import DiscriminativeSelector

    def make(seed):
        return make_pipeline(
            DiscriminativeSelector(threshold, random_state=seed),
            PriorFallbackClassifier(GaussianNB()),
        )

    return make


def candidates(groups, *, quick: bool) -> list[Candidate]:
    """The estimators compared by nested cross-validation for the chosen method groups."""
    from sklearn.naive_bayes import GaussianNB
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import LinearSVC

    from widefs.ensemble import ClassSpecificEnsemble
    from widefs.rules import CN2Classifier
    from widefs.scm import PACBayesSCM, SampleCompressionSCM

    out = [
        Candidate("naive Bayes, all features", lambda seed: GaussianNB(), "baseline"),
        Candidate(
            "linear SVM, all features",
            lambda seed: make_pipeline(StandardScaler(), LinearSVC(C=0.01)),
            "baseline (C = 0.01, standardized)",
        ),
    ]
    if "chance" in groups:
        out += [
            Candidate("MGM + naive Bayes", _selector_nb("mgm"), "Palatucci & Carlson 2008"),
            Candidate(
                "E[X(1)] + naive Bayes", _selector_nb("max_chance"), "Palatucci & Carlson 2008"
            ),
            Candidate(
                "FDR 5% + naive Bayes", _selector_nb("fdr"), "binomial test + Benjamini-Hochberg"
            ),
        ]
    if "scm" in groups:
        note = "Shah et al. 2010; size chosen by the bound"
        out += [
            Candidate("PAC-Bayes SCM", lambda seed: PACBayesSCM(), note, binary_only=True),
            Candidate(
                "sample-compression SCM",
                lambda seed: SampleCompressionSCM(),
                note,
                binary_only=True,
            ),
        ]
    if "rules" in groups:
        out += [
            Candidate("CN2-POE rules", lambda seed: CN2Classifier(stopping="poe"), "Domingos 1999"),
            Candidate(
                "CN2 rules (significance)", lambda seed: CN2Classifier(), "Clark & Niblett 1989"
            ),
        ]
    if "cefs" in groups:
        out.append(
            Candidate(
                "CEFS ensemble (kNN, SFS)",
                lambda seed: ClassSpecificEnsemble(random_state=seed),
                "Soares 2010",
            )
        )
    return out
