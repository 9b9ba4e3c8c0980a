"""Search certificates: each method's whole search re-run on permuted labels.

One set of label permutations, drawn once from the seed, serves every method
(:func:`widefs.model_selection.search_certificate` with ``random_state=seed``). What each
certificate certifies is decided in :data:`widefs.analysis._spec.CERTIFIED`; on imbalanced
classes the cross-validated score is balanced accuracy.
"""

from __future__ import annotations

import warnings

from widefs.analysis._result import CertificateOutcome, ProgressEvent
from widefs.analysis._spec import CERTIFIED, PRESCREEN, PRESCREENED_GROUPS, Certified

__all__ = ["CertificateRun", "comparison_pvalues"]


class CertificateRun:
    """The certificates of one analysis: computed once each, on first use."""

    def __init__(
        self, X, y, *, seed: int, n_permutations: int, n_jobs=None, progress=None, design=None
    ):
        from widefs.analysis._design import design_folds
        from widefs.model_selection import majority_baseline

        self.X, self.y = X, y
        self.seed = seed
        self.n_permutations = n_permutations
        self.n_jobs = n_jobs
        self.progress = progress
        self.baseline = majority_baseline(y)
        # Cross-validated scores: 5 stratified folds (fewer if a class is smaller), balanced
        # accuracy on imbalanced classes. Both depend on the class counts only, which every
        # relabelling keeps, so choosing them does not touch the p-value's validity.
        # With groups the relabellings respect them and the folds keep them whole (the
        # searches take no covariates: the analysis's design summary says so).
        self.groups = None if design is None else design.groups
        self.cv = design_folds(y, design, 5)
        self.scoring = "balanced_accuracy" if self.baseline.imbalanced else "accuracy"
        self.results: dict[str, CertificateOutcome] = {}

    def applies(self, item: Certified) -> bool:
        return not (item.binary_only and self.baseline.classes.size != 2)

    def certify(self, item: Certified) -> CertificateOutcome:
        """The certificate of ``item`` (computed on first use)."""
        if item.name not in self.results:
            task = f"search certificate: {item.name}"
            if self.progress is not None:
                self.progress(ProgressEvent(task, task))
            self.results[item.name] = self._compute(item)
            if self.progress is not None:
                self.progress(ProgressEvent(task, task, finished=True))
        return self.results[item.name]

    def group(self, group: str) -> list[CertificateOutcome]:
        """The certificates of one part, in :data:`CERTIFIED` order, sharing work: those of
        a part re-run related searches on the same relabellings (CN2's two stopping rules
        repeat each other's beam rounds), and sharing never changes a result."""
        from widefs._utils import sharing_label_free_work

        with sharing_label_free_work():
            return [
                self.certify(item)
                for item in CERTIFIED
                if item.group == group and self.applies(item)
            ]

    def _compute(self, item: Certified) -> CertificateOutcome:
        from widefs.exceptions import HeuristicBoundWarning
        from widefs.model_selection import Prescreened, search_certificate

        fields = dict(
            group=item.group, name=item.name, score=item.score, compared_as=item.compared_as
        )
        with warnings.catch_warnings():
            # Refits on meaningless labels select nothing or use heuristic bounds: expected.
            warnings.simplefilter("ignore", HeuristicBoundWarning)
            warnings.simplefilter("ignore", UserWarning)
            estimator = item.make(self.seed)
            k = None
            # The pre-screen is part of the search: re-run on every relabelling (and keeps
            # the re-runs affordable; the SCM sections search every feature, but dozens of
            # full-width searches of 200,000 features would take hours).
            if item.group in PRESCREENED_GROUPS and self.X.shape[1] > PRESCREEN:
                k = PRESCREEN
                estimator = Prescreened(estimator, k=k)
            try:
                cert = search_certificate(
                    estimator,
                    self.X,
                    self.y,
                    score=item.certify,
                    cv=self.cv,
                    scoring=self.scoring,
                    n_permutations=self.n_permutations,
                    random_state=self.seed,
                    n_jobs=self.n_jobs,
                    groups=self.groups,
                )
            except Exception as exc:
                # The rest of the analysis stands; the outcome says why this one is missing.
                return CertificateOutcome(**fields, error=f"{type(exc).__name__}: {exc}")
        return CertificateOutcome(**fields, certificate=cert, prescreened=k)


def comparison_pvalues(outcomes) -> dict[str, CertificateOutcome]:
    """``{comparison row name: the certificate that speaks for it}``."""
    return {name: out for out in outcomes for name in out.compared_as}
