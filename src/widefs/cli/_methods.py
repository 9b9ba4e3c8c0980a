"""What ``widefs run`` can run: report sections and the candidates of the comparison."""

from __future__ import annotations

from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC

from widefs.cli._compare import Candidate
from widefs.model_selection import PriorFallbackClassifier
from widefs.univariate import DiscriminativeSelector

__all__ = ["METHOD_GROUPS", "candidates"]

# Report parts selectable with --methods, in report order.
METHOD_GROUPS = ("chance", "compare")


def _selector_nb(threshold):
    def make(seed):
        return make_pipeline(
            DiscriminativeSelector(threshold, random_state=seed),
            PriorFallbackClassifier(GaussianNB()),
        )

    return make


def candidates(groups, *, quick: bool) -> list[Candidate]:
    """The estimators compared by nested cross-validation for the chosen method groups."""
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
    return out
