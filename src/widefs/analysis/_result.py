"""The typed result of :func:`widefs.analysis.analyse`: numbers and fitted models, no text."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

__all__ = [
    "Analysis",
    "CefsAnalysis",
    "CertificateOutcome",
    "ChanceAnalysis",
    "LooOutcome",
    "ProgressEvent",
    "RulesAnalysis",
    "ScmAnalysis",
    "ScmBound",
    "ScreenSummary",
]


@dataclass(frozen=True)
class ProgressEvent:
    """A stage of an analysis starting, moving on or ending (for a progress display).

    ``task`` names a unit of work (``"analysis"``, ``"nested cross-validation"``,
    ``"search certificate: NAME"``); ``description`` says what runs now; ``completed`` and
    ``total`` count its steps (``total`` None: unknown); ``finished`` marks its end.
    """

    task: str
    description: str
    completed: int = 0
    total: int | None = None
    finished: bool = False


@dataclass(frozen=True)
class LooOutcome:
    """One threshold rule of the leave-one-out protocol (Palatucci & Carlson 2008)."""

    rule: str  # "all", "oracle" or a threshold rule
    accuracy: float
    median_selected: float
    empty_rounds: int
    n_rounds: int


@dataclass(frozen=True)
class ScreenSummary:
    """What :class:`~widefs.univariate.ClassDifferenceScreen` did with the data.

    ``kind_counts`` counts the features of each kind (``gaussian``: moderated F;
    ``two_valued``: exact conditional test; ``ranked``: statistics on mid-ranks with a
    permutation null; ``counts``: voom then the weighted moderated F; ``constant``);
    ``spread_weight`` is the share of the level given to the class spreads (0: means only);
    ``n_testable`` the features Tarone's rule counts (a two-valued feature whose smallest
    attainable p-value cannot pass is left out); ``ranked_floor`` the largest smallest
    p-value of a ranked feature (None without one); ``note`` what was done to the data.
    """

    kind_counts: dict
    spread_weight: float
    counts: bool
    note: str
    n_scored: int
    n_testable: int
    ranked_floor: float | None
    alpha: float


@dataclass(frozen=True)
class ChanceAnalysis:
    """The chance analysis: validation errors of every feature, both nulls, every rule.

    Attributes
    ----------
    selector : DiscriminativeSelector
        Fitted with the errors statistic under the null in use (``null_used``).
    nulls : dict
        ``{"analytic": ChanceNull, "permutation": ChanceNull}``: both nulls of the errors.
    screens : dict
        ``{"fdr": screen, "bonferroni": screen}``: the fitted
        :class:`~widefs.univariate.ClassDifferenceScreen` of each rule.
    screen : ScreenSummary
        What the screen did (kinds of features, spread share, counts, Tarone's testable set).
    selections : dict
        Rule -> boolean mask of the kept features (``mgm``, ``max_chance``, ``fdr``,
        ``bonferroni``).
    chance_accuracy : dict
        Null -> E[A_H], the highest expected chance accuracy ``1 - E[X(1)] / N``.
    order : ndarray
        Features best first (fewest errors, file order among ties; constant ones last).
    loo : list of LooOutcome
        The leave-one-out accuracy of each rule; ``loo_curve`` is the library's curve.
    """

    selector: Any
    nulls: dict
    screens: dict
    selections: dict
    n_permutations: int
    null_used: str
    chance_accuracy: dict
    null_gap: float  # |E[X(1)] analytic - E[X(1)] permutation|, in errors
    mgm_threshold: float
    best_errors: int
    best_accuracy: float
    screen: ScreenSummary
    bonferroni_cut: float  # alpha / K, K the features Tarone's rule counts
    order: np.ndarray
    loo: list
    loo_curve: Any
    loo_permutations: int
    loo_below_majority: tuple  # rules (not the oracle) more than 5 points below the majority
    loo_min_pvalue: float  # the paper's binomial p-value of a feature without error


@dataclass(frozen=True)
class ScmBound:
    """A Set Covering Machine's risk bound beside the majority-class error."""

    name: str
    n_rules: int
    training_risk: float  # the Gibbs risk for PAC-Bayes (the classifier its bound covers)
    bound: float
    vacuous: bool  # bound >= the majority-class error: it certifies nothing useful


@dataclass(frozen=True)
class ScmAnalysis:
    """The three Set Covering Machines fitted on every example, with their bounds."""

    models: dict
    bounds: list
    descriptions: dict  # name -> the model's own plain-text description
    majority_error: float
    n_candidate_machines: int


@dataclass(frozen=True)
class RulesAnalysis:
    """CN2-POE on a 67/33 split (Domingos 1999), behind the pre-screen on wide data."""

    summary: Any  # widefs.rules.RulesSummary
    test_size: float | int
    enlarged: bool  # the held-out part was enlarged to one example per class
    better_than_default: bool
    prescreened: int | None  # features kept by the pre-screen, None without one


@dataclass(frozen=True)
class CefsAnalysis:
    """Class-specific ensemble feature selection (Soares 2010) fitted on every example."""

    model: Any
    class_subsets: dict  # class -> list of feature names
    overall_subset: list
    prescreened: int | None


@dataclass(frozen=True)
class CertificateOutcome:
    """A search certificate and what it certifies, or why it failed."""

    group: str
    name: str
    score: str  # the search's own score, in words
    compared_as: tuple
    certificate: Any = None  # widefs.model_selection.SearchCertificate
    error: str | None = None  # "Type: message" when it could not be computed
    prescreened: int | None = None  # k of the pre-screen re-run on every relabelling

    @property
    def pvalue(self) -> float | None:
        """The p-value, or None when it failed or cannot inform."""
        cert = self.certificate
        if cert is None or cert.uninformative is not None:
            return None
        return float(cert.pvalue)

    @property
    def status(self) -> str:
        """``"ok"``, ``"failed"`` or ``"uninformative: <why>"``."""
        if self.certificate is None:
            return "failed"
        if self.certificate.uninformative is not None:
            return f"uninformative: {self.certificate.uninformative}"
        return "ok"


@dataclass(frozen=True)
class Analysis:
    """Everything :func:`widefs.analysis.analyse` computed, by part.

    Attributes
    ----------
    methods : tuple of str
        The parts run, in order (among ``chance, scm, rules, cefs, compare``).
    classes, class_counts : ndarray
        The classes and their sizes.
    majority : MajorityBaseline
        Accuracy and balanced accuracy of always predicting the majority class.
    chance : ChanceAnalysis or None
    scm : ScmAnalysis or None
    rules : RulesAnalysis or None
    cefs : CefsAnalysis or None
    certificates : dict
        Certified search name -> CertificateOutcome, in the order of the parts.
    comparison : pandas.DataFrame or None
        One row per compared method: accuracy, balanced accuracy, per-class recall, their
        intervals, features kept, stability, the search p-value and the certificate status.
    evaluations : dict
        Compared method -> the result of :func:`widefs.model_selection.nested_evaluate`
        (fold scores, selection frequencies), None where the method does not apply.
    features : pandas.DataFrame or None
        The chance analysis's feature table, best first.
    design : DesignSummary or None
        The study design given (``covariates``, ``groups``): its case and what each part did
        with it; None without one.
    verdicts : dict
        Method -> :class:`~widefs.analysis.Verdict`: whether its nested cross-validated score
        and its search certificate show a signal (one verdict per method).
    counts : bool
        Whether ``X`` was analysed as counts (see :func:`widefs.stats.looks_like_counts`).
    """

    methods: tuple
    seed: int
    quick: bool
    n_samples: int
    n_features: int
    classes: np.ndarray
    class_counts: np.ndarray
    majority: Any
    chance: ChanceAnalysis | None = None
    scm: ScmAnalysis | None = None
    rules: RulesAnalysis | None = None
    cefs: CefsAnalysis | None = None
    certificates: dict = field(default_factory=dict)
    certificate_permutations: int = 0
    comparison: pd.DataFrame | None = None
    evaluations: dict = field(default_factory=dict)
    comparison_info: Any = None  # ComparisonInfo: the design and verdicts of the comparison
    features: pd.DataFrame | None = None
    design: Any = None  # DesignSummary: the study design and what each part did with it
    verdicts: dict = field(default_factory=dict)
    counts: bool = False
