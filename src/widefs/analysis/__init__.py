"""One analysis of a wide dataset, as numbers: what ``widefs run`` reports, for a notebook.

:func:`analyse` takes ``(X, y)`` and returns an :class:`Analysis`: the chance analysis, each
method's fit, the search certificates and the nested cross-validated comparison as a
DataFrame. Every statistical decision of the command line lives here (which features a
wrapper searches on wide data, what each certificate certifies, when a bound is vacuous);
the command line only reads files and renders this result.

Importing this package is light (the estimators load when an analysis runs).
"""

from widefs.analysis._analyse import STAGES, analyse
from widefs.analysis._design import DesignSummary, check_design
from widefs.analysis._result import (
    Analysis,
    CefsAnalysis,
    CertificateOutcome,
    ChanceAnalysis,
    LooOutcome,
    ProgressEvent,
    RulesAnalysis,
    ScmAnalysis,
    ScmBound,
    ScreenSummary,
)
from widefs.analysis._spec import (
    CERTIFIED,
    METHODS,
    PRESCREEN,
    QUICK_NULL_PERMUTATIONS,
    Candidate,
    Certified,
    candidates,
    certificate_permutations,
    null_permutations,
)
from widefs.analysis._verdict import Verdict

__all__ = [
    "CERTIFIED",
    "METHODS",
    "PRESCREEN",
    "QUICK_NULL_PERMUTATIONS",
    "STAGES",
    "Analysis",
    "Candidate",
    "CefsAnalysis",
    "CertificateOutcome",
    "Certified",
    "ChanceAnalysis",
    "DesignSummary",
    "LooOutcome",
    "ProgressEvent",
    "RulesAnalysis",
    "ScmAnalysis",
    "ScmBound",
    "ScreenSummary",
    "Verdict",
    "analyse",
    "candidates",
    "certificate_permutations",
    "check_design",
    "null_permutations",
]
