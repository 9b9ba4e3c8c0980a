"""What an analysis can run, and the policies that size it (no heavy import here).

The command line's ``--help`` reads these names, so this module imports nothing but the
standard library; the estimators are imported when an analysis builds them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

__all__ = [
    "CERTIFIED",
    "METHODS",
    "PRESCREEN",
    "PRESCREENED_GROUPS",
    "Candidate",
    "Certified",
    "candidates",
    "certificate_permutations",
    "null_permutations",
]

# The parts of an analysis, in report order.
METHODS = ("chance", "scm", "rules", "cefs", "compare")
# On wider data the wrappers (SCM, CN2, CEFS) first keep this many features by a univariate
# F test, inside each training fold: their cost grows with the features searched, the F
# test's is one pass over the data.
PRESCREEN = 2000
# Groups whose searches run behind the pre-screen on wider data (in the comparison, in their
# certificates and, for rules and cefs, in their own fits).
PRESCREENED_GROUPS = ("scm", "rules", "cefs")
# Label permutations of the search certificates: p-values down to 1/30 while every method's
# whole search is re-run that often (9 in the quick mode).
CERTIFICATE_PERMUTATIONS = 29
QUICK_CERTIFICATE_PERMUTATIONS = 9
# At most this many label permutations for the chance screen's permutation null when quick.
QUICK_NULL_PERMUTATIONS = 100


def certificate_permutations(quick: bool) -> int:
    """Label permutations of every search certificate by default."""
    return QUICK_CERTIFICATE_PERMUTATIONS if quick else CERTIFICATE_PERMUTATIONS


def null_permutations(n_features: int, quick: bool) -> int:
    """Label permutations of the chance screen's permutation null by default (size-aware)."""
    from widefs.univariate import default_permutations

    n = default_permutations(n_features)
    return min(n, QUICK_NULL_PERMUTATIONS) if quick else n


@dataclass
class Candidate:
    """A method to compare: a name, a factory ``seed -> estimator``, and a short note."""

    name: str
    make: Callable[[int], object]
    note: str = ""
    binary_only: bool = False
    takes_covariates: bool = False  # a step's fit takes covariates (the screen)


def _selector_nb(threshold, counts="auto"):
    """Selection then naive Bayes: the paper's chance-aware cuts on validation errors, or the
    class-difference screen for the error-controlling rules (``counts``: the analysis's
    decision, so that every training fold reads the values as the whole data were read)."""

    def make(seed):
        from sklearn.naive_bayes import GaussianNB

        from widefs.analysis._pipeline import rows_pipeline
        from widefs.model_selection import PriorFallbackClassifier
        from widefs.univariate import ClassDifferenceScreen, DiscriminativeSelector

        if threshold in ("fdr", "bonferroni"):
            selector = ClassDifferenceScreen(threshold, counts=counts, random_state=seed)
        else:
            selector = DiscriminativeSelector(threshold, statistic="errors", random_state=seed)
        # make_pipeline's, fitted on a fold's rows of the matrix in place (the same model).
        return rows_pipeline(selector, PriorFallbackClassifier(GaussianNB()))

    return make


def _prescreened(make):
    def wrapped(seed):
        from widefs.model_selection import Prescreened

        return Prescreened(make(seed), k=PRESCREEN)

    return wrapped


def _naive_bayes(seed):
    from widefs.analysis._naive_bayes import BlockGaussianNB

    # GaussianNB, fitted on a fold's rows of the matrix in place (the same model).
    return BlockGaussianNB()


def _linear_svm(seed):
    from widefs.analysis._linear_svm import GramLinearSVC

    # make_pipeline(StandardScaler(), SVC(kernel="linear", C=0.01)), fitted on its Gram matrix.
    return GramLinearSVC(C=0.01)


def _discriminative(seed):
    from widefs.univariate import DiscriminativeSelector

    # search_score_ (best validation accuracy) does not depend on the threshold or the null;
    # "all" thresholds nothing, so the analytic null is allowed with groups too.
    return DiscriminativeSelector("all", statistic="errors", null="analytic", random_state=seed)


def _pac_bayes(seed):
    from widefs.scm import PACBayesSCM

    return PACBayesSCM()


def _sample_compression(seed):
    from widefs.scm import SampleCompressionSCM

    return SampleCompressionSCM()


def _occam(seed):
    from widefs.scm import OccamSCM

    return OccamSCM()


def _cn2_poe(seed):
    from widefs.rules import CN2Classifier

    return CN2Classifier(stopping="poe")


def _cn2(seed):
    from widefs.rules import CN2Classifier

    return CN2Classifier()


def _cefs(seed):
    from widefs.ensemble import ClassSpecificEnsemble

    return ClassSpecificEnsemble(random_state=seed)


def candidates(groups, *, n_features: int = 0, counts="auto") -> list[Candidate]:
    """The estimators compared by nested cross-validation for the chosen method groups.

    With more than :data:`PRESCREEN` features, the SCM, CN2 and CEFS candidates first keep
    the :data:`PRESCREEN` features with the largest F statistic on the training fold
    (:class:`widefs.model_selection.Prescreened`); their note says so.
    """
    out = [
        Candidate("naive Bayes, all features", _naive_bayes, "baseline"),
        Candidate("linear SVM, all features", _linear_svm, "baseline (C = 0.01, standardized)"),
    ]
    if "chance" in groups:
        out += [
            Candidate("MGM + naive Bayes", _selector_nb("mgm"), "Palatucci & Carlson 2008"),
            Candidate(
                "E[X(1)] + naive Bayes", _selector_nb("max_chance"), "Palatucci & Carlson 2008"
            ),
            Candidate(
                "FDR 5% + naive Bayes",
                _selector_nb("fdr", counts),
                "class-difference screen: moderated F, exact or rank tests by kind of "
                "feature, Benjamini-Hochberg",
                takes_covariates=True,
            ),
        ]
    wrappers = []
    if "scm" in groups:
        # More than two classes: a decision list of machines, sized and chosen by its bound.
        note = "Shah et al. 2010; size chosen by the bound"
        wrappers += [
            Candidate("PAC-Bayes SCM", _pac_bayes, note),
            Candidate("sample-compression SCM", _sample_compression, note),
            Candidate("Occam SCM", _occam, note),
        ]
    if "rules" in groups:
        wrappers += [
            Candidate("CN2-POE rules", _cn2_poe, "Domingos 1999"),
            Candidate("CN2 rules (significance)", _cn2, "Clark & Niblett 1989"),
        ]
    if "cefs" in groups:
        wrappers.append(Candidate("CEFS ensemble (kNN, SFS)", _cefs, "Soares 2010"))
    if n_features > PRESCREEN:
        for cand in wrappers:
            cand.make = _prescreened(cand.make)
            cand.note += f"; top {PRESCREEN} features by F test in each training fold first"
    return out + wrappers


@dataclass(frozen=True)
class Certified:
    """A search an analysis certifies: its group, name, factory and what it certifies.

    ``score`` names the search's own score (``search_score_``); ``certify`` is
    :func:`widefs.model_selection.search_certificate`'s ``score=``: CN2's training accuracy
    reaches 1 on almost any relabelling of wide data, so its certificate is cross-validated;
    the other searches certify their own score and switch to the cross-validated one when its
    null saturates (``"auto"``).
    """

    group: str
    name: str
    make: Callable[[int], object]
    score: str
    compared_as: tuple[str, ...]  # names of the comparison rows it certifies
    binary_only: bool = False
    certify: str = "auto"


CERTIFIED = (
    Certified(
        "chance",
        "discriminative selection",
        _discriminative,
        "validation accuracy of the best single feature",
        ("MGM + naive Bayes", "E[X(1)] + naive Bayes", "FDR 5% + naive Bayes"),
    ),
    Certified(
        "scm",
        "PAC-Bayes SCM",
        _pac_bayes,
        "training Gibbs accuracy of the kept stumps",
        ("PAC-Bayes SCM",),
    ),
    Certified(
        "scm",
        "sample-compression SCM",
        _sample_compression,
        "training accuracy of the kept stumps",
        ("sample-compression SCM",),
    ),
    Certified(
        "rules",
        "CN2-POE rules",
        _cn2_poe,
        "training accuracy of the rules",
        ("CN2-POE rules",),
        certify="cv",
    ),
    Certified(
        "rules",
        "CN2 rules (significance)",
        _cn2,
        "training accuracy of the rules",
        ("CN2 rules (significance)",),
        certify="cv",
    ),
    Certified(
        "cefs",
        "CEFS ensemble (kNN, SFS)",
        _cefs,
        "leave-one-out accuracy of the combined ensemble",
        ("CEFS ensemble (kNN, SFS)",),
    ),
)
