"""What ``widefs run`` can run: report sections and the candidates of the comparison.

Importing this module is cheap (``widefs --help`` reads ``METHOD_GROUPS``); the estimators
are imported by :func:`candidates` when a run needs them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

__all__ = [
    "METHOD_GROUPS",
    "PRESCREEN",
    "Candidate",
    "candidates",
    "f_scores_blockwise",
    "f_screen",
    "prescreened",
]

# Report parts selectable with --methods, in report order.
METHOD_GROUPS = ("chance", "scm", "rules", "cefs", "compare")
# On wider data the wrappers (SCM, CN2, CEFS) in the comparison first keep this many features
# by a univariate F test, inside each training fold: their cost grows with the features
# searched, the F test's is one pass over the data.
PRESCREEN = 2000


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


def f_scores_blockwise(X, y):
    """scikit-learn's ``f_classif``, computed a block of features at a time.

    The same values (``f_classif`` reduces each column on its own), with temporaries of one
    block instead of several copies of ``X``: on 80 x 200,000 a fit's peak memory falls by
    about 300 MB, per worker process. Constant columns get F = NaN silently (ranked last).
    """
    import warnings

    import numpy as np
    from sklearn.feature_selection import f_classif

    from widefs._utils import block_width, iter_column_blocks

    X = np.asarray(X)
    scores = np.empty(X.shape[1])
    pvalues = np.empty(X.shape[1])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # constant columns: F undefined
        for b in iter_column_blocks(X.shape[1], block_width(X.shape[0])):
            scores[b], pvalues[b] = f_classif(X[:, b], y)
    return scores, pvalues


def f_screen(k: int = PRESCREEN):
    """The pre-screen of wide data: the ``k`` features of largest F statistic."""
    from sklearn.feature_selection import SelectKBest

    return SelectKBest(f_scores_blockwise, k=k)


def prescreened(make, n_features: int):
    """``make`` behind a univariate pre-screen to :data:`PRESCREEN` features, when wider."""
    if n_features <= PRESCREEN:
        return make
    from sklearn.pipeline import make_pipeline

    def wrapped(seed):
        return make_pipeline(f_screen(), make(seed))

    return wrapped


def candidates(groups, *, quick: bool, n_features: int = 0) -> list[Candidate]:
    """The estimators compared by nested cross-validation for the chosen method groups.

    With more than :data:`PRESCREEN` features, the SCM, CN2 and CEFS candidates first keep
    the :data:`PRESCREEN` features with the largest F statistic on the training fold; their
    note says so.
    """
    from sklearn.naive_bayes import GaussianNB
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC

    from widefs.ensemble import ClassSpecificEnsemble
    from widefs.rules import CN2Classifier
    from widefs.scm import OccamSCM, PACBayesSCM, SampleCompressionSCM

    out = [
        Candidate("naive Bayes, all features", lambda seed: GaussianNB(), "baseline"),
        Candidate(
            "linear SVM, all features",
            # The kernel form costs one n x n Gram matrix, whatever the number of features.
            lambda seed: make_pipeline(StandardScaler(), SVC(kernel="linear", C=0.01)),
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
                "FDR 5% + naive Bayes",
                _selector_nb("fdr"),
                "class means and spreads, pooled permutation p-values, Benjamini-Hochberg",
            ),
        ]
    wrappers = []
    if "scm" in groups:
        # More than two classes: a decision list of machines, sized and chosen by its bound.
        note = "Shah et al. 2010; size chosen by the bound"
        wrappers += [
            Candidate("PAC-Bayes SCM", lambda seed: PACBayesSCM(), note),
            Candidate("sample-compression SCM", lambda seed: SampleCompressionSCM(), note),
            Candidate("Occam SCM", lambda seed: OccamSCM(), note),
        ]
    if "rules" in groups:
        wrappers += [
            Candidate("CN2-POE rules", lambda seed: CN2Classifier(stopping="poe"), "Domingos 1999"),
            Candidate(
                "CN2 rules (significance)", lambda seed: CN2Classifier(), "Clark & Niblett 1989"
            ),
        ]
    if "cefs" in groups:
        wrappers.append(
            Candidate(
                "CEFS ensemble (kNN, SFS)",
                lambda seed: ClassSpecificEnsemble(random_state=seed),
                "Soares 2010",
            )
        )
    if n_features > PRESCREEN:
        for cand in wrappers:
            cand.make = prescreened(cand.make, n_features)
            cand.note += f"; top {PRESCREEN} features by F test in each training fold first"
    return out + wrappers
