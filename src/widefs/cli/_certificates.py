"""Search certificates in ``widefs run``: each method's whole search re-run on permuted labels.

One set of ``--permutations`` index arrays, drawn once from ``--seed``, is used for every
method (:func:`widefs.model_selection.search_certificate` with ``random_state=seed``). Each
certified method gets a short report section (observed score, its null, a histogram and
what a p-value means for it); the method comparison shows the p-values in a column.

CN2 certifies its 5-fold cross-validated accuracy (its training accuracy is 1 on almost any
relabelling of wide data); the other searches certify their own score and switch to the
cross-validated one when that score's null saturates (``score="auto"``). On imbalanced
classes the cross-validated score is balanced accuracy. A certificate that cannot inform
(null at the maximum, nothing selected) says so in words instead of a p-value.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from widefs.cli._data import LoadedData
from widefs.cli._markup import Markup
from widefs.cli._methods import PRESCREEN, f_screen
from widefs.cli._report import Figure, Note, Section, Table, Text
from widefs.model_selection import majority_baseline

__all__ = ["CERTIFIED", "CertificateRun", "Certified"]


# Searches whose comparison rows run behind the F-test pre-screen on wide data (and, for
# rules and cefs, their report sections too): their certificates re-run it on every
# relabelling. The SCMs' sections search every feature, but 29 full-width PAC-Bayes searches
# of 200,000 features would take hours; their certificate is that of the comparison's search.
PRESCREENED_GROUPS = ("scm", "rules", "cefs")


@dataclass(frozen=True)
class Certified:
    """A search the report certifies: its group, name, estimator factory and score."""

    group: str
    name: str
    make: Callable[[int], object]
    score: str  # what search_score_ is, for the text and the axis
    compared_as: tuple[str, ...]  # names of the comparison rows it certifies
    binary_only: bool = False
    certify: str = "auto"  # search_certificate's score=


def _discriminative(seed):
    from widefs.univariate import DiscriminativeSelector

    # search_score_ (best validation accuracy) does not depend on the threshold or the null.
    return DiscriminativeSelector(null="analytic", random_state=seed)


def _pac_bayes(seed):
    from widefs.scm import PACBayesSCM

    return PACBayesSCM()


def _sample_compression(seed):
    from widefs.scm import SampleCompressionSCM

    return SampleCompressionSCM()


def _cn2_poe(seed):
    from widefs.rules import CN2Classifier

    return CN2Classifier(stopping="poe")


def _cn2(seed):
    from widefs.rules import CN2Classifier

    return CN2Classifier()


def _cefs(seed):
    from widefs.ensemble import ClassSpecificEnsemble

    return ClassSpecificEnsemble(random_state=seed)


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


class _Prescreened:
    """A search behind the comparison's F-test pre-screen, as one estimator.

    On data wider than :data:`widefs.cli._methods.PRESCREEN` features the comparison runs the
    groups of :data:`PRESCREENED_GROUPS` on the best-F features only; their certificate re-runs
    the pre-screen on every relabelling too, since it is part of the search (and keeps 29
    re-runs affordable).
    """

    def __init__(self, estimator=None, k: int = 2000):
        self.estimator = estimator
        self.k = k

    def get_params(self, deep=False):
        return {"estimator": self.estimator, "k": self.k}

    def set_params(self, **params):
        for key, value in params.items():
            setattr(self, key, value)
        return self

    def fit(self, X, y):
        from sklearn.base import clone

        self.screen_ = f_screen(self.k).fit(X, y)
        self.estimator_ = clone(self.estimator).fit(self.screen_.transform(X), y)
        self.search_score_ = self.estimator_.search_score_
        self.classes_ = self.estimator_.classes_
        return self

    def predict(self, X):
        return self.estimator_.predict(self.screen_.transform(X))

    def get_support(self):
        mask = self.screen_.get_support()
        inner = getattr(self.estimator_, "get_support", None)
        if inner is not None:
            mask[np.flatnonzero(mask)[~np.asarray(inner(), bool)]] = False
        return mask


class CertificateRun:
    """The certificates of one ``widefs run``: computed once each, shared by sections and table."""

    def __init__(self, data: LoadedData, *, seed: int, n_permutations: int, n_jobs=None):
        self.data = data
        self.seed = seed
        self.n_permutations = n_permutations
        self.n_jobs = n_jobs
        self.baseline = majority_baseline(data.y)
        # Cross-validated scores: 5 stratified folds (fewer if a class is smaller), balanced
        # accuracy on imbalanced classes. Both depend on the class counts only, which every
        # relabelling keeps, so choosing them does not touch the p-value's validity.
        self.cv = int(min(5, self.baseline.counts.min()))
        self.scoring = "balanced_accuracy" if self.baseline.imbalanced else "accuracy"
        self.results: dict[str, object] = {}  # name -> SearchCertificate or error text

    def _applies(self, item: Certified) -> bool:
        return not (item.binary_only and self.baseline.classes.size != 2)

    def certify(self, item: Certified, progress=None):
        """The certificate of ``item`` (computed on first use), or the error text."""
        if item.name not in self.results:
            task = None
            if progress is not None:
                task = progress.add_task(f"search certificate: {item.name}", total=None)
            self.results[item.name] = self._compute(item)
            if task is not None:
                progress.remove_task(task)
        return self.results[item.name]

    def _compute(self, item: Certified):
        from widefs.exceptions import HeuristicBoundWarning
        from widefs.model_selection import search_certificate

        with warnings.catch_warnings():
            # Refits on meaningless labels select nothing or use heuristic bounds: expected.
            warnings.simplefilter("ignore", HeuristicBoundWarning)
            warnings.simplefilter("ignore", UserWarning)
            estimator = item.make(self.seed)
            if item.group in PRESCREENED_GROUPS and self.data.X.shape[1] > PRESCREEN:
                estimator = _Prescreened(estimator, k=PRESCREEN)
            try:
                return search_certificate(
                    estimator,
                    self.data.X,
                    self.data.y,
                    score=item.certify,
                    cv=self.cv,
                    scoring=self.scoring,
                    n_permutations=self.n_permutations,
                    random_state=self.seed,
                    n_jobs=self.n_jobs,
                )
            except Exception as exc:
                # The rest of the report stands; the section says why this one is missing.
                return f"{type(exc).__name__}: {exc}"

    def sections(self, group: str, progress=None) -> list[Section]:
        """One section per certified search of ``group`` (after that group's own sections)."""
        return [
            _section(item, self.certify(item, progress), self)
            for item in CERTIFIED
            if item.group == group and self._applies(item)
        ]

    def pvalue_column(self, groups, progress=None) -> dict[str, str]:
        """``{comparison row name: search p-value text}`` for the certified methods of ``groups``."""
        out = {}
        for item in CERTIFIED:
            if item.group in groups and self._applies(item):
                text = pvalue_text(self.certify(item, progress))
                for name in item.compared_as:
                    out[name] = text
        return out


def pvalue_text(cert) -> str:
    """The p-value as the comparison table shows it, or in words when there is none."""
    if isinstance(cert, str):
        return "failed"
    if cert.uninformative is not None:
        return f"none ({cert.uninformative})"
    return f"{cert.pvalue:.3f}"


def score_label(item: Certified, cert) -> str:
    """What the certificate certified, in words (the search score, or the cross-validated one)."""
    if cert.score == "search":
        return item.score
    metric = "balanced accuracy" if cert.scoring == "balanced_accuracy" else "accuracy"
    return f"{cert.cross_validation.n_splits}-fold cross-validated {metric}"


def _section(item: Certified, cert, run: CertificateRun) -> Section:
    section = Section(Markup("Search certificate: {name}", name=item.name))
    if isinstance(cert, str):
        section.add(Note(Markup("The certificate could not be computed: {error}", error=cert)))
        return section
    label = score_label(item, cert)
    section.add(Text(_intro(item, cert, label, run.n_permutations)))
    section.add(Text(_pvalue_sentence(cert, run.n_permutations)))
    if cert.score == "cv":
        section.add(Text(_why_cross_validated(item, cert, label)))
    if cert.uninformative is not None:
        section.add(Note(_uninformative(cert, label)))
    section.add(Text(_meaning(item, label)))
    if isinstance(cert.estimator, _Prescreened):
        section.add(Note(_prescreen_note(item, cert.estimator.k)))
    rows = _score_rows(label, cert, run.n_permutations) + _balance_rows(cert, run.baseline)
    title = Markup("Search certificate: {name}", name=item.name)
    section.add(Table(["", "value"], rows, title=title))
    section.add(_figure(item, cert, label, run.n_permutations))
    return section


def _intro(item: Certified, cert, label: str, n_permutations: int) -> Markup:
    q = cert.quantiles
    return Markup(
        "The {name} search was run again, with the same settings, on {n} random relabellings "
        "of the data (the same relabellings for every method). Its score, the {score}, is "
        "{observed:.3f} on the real labels and {mean:.3f} on average on the relabelled ones "
        "(90% of them between {q05:.3f} and {q95:.3f}).",
        name=item.name,
        n=n_permutations,
        score=label,
        observed=cert.observed,
        mean=cert.null_mean,
        q05=q[0.05],
        q95=q[0.95],
    )


def _pvalue_sentence(cert, n_permutations: int) -> Markup:
    if cert.uninformative is not None:
        return Markup("**No search p-value**: this certificate cannot inform (see the note).")
    return Markup(
        "**Search p-value {p:.3f}**: the share of relabellings, counting the real one, on which "
        "the search scored at least as well (the smallest possible value is {pmin:.3f}).",
        p=cert.pvalue,
        pmin=1 / (n_permutations + 1),
    )


def _why_cross_validated(item: Certified, cert, label: str) -> Markup:
    fields = dict(name=item.name, search=item.score, score=label)
    if cert.replaced is not None:
        return Markup(
            "Its own search score, the {search}, reached the maximum on at least half of the "
            "relabellings, so it could not tell signal from noise; the certificate therefore "
            "certifies the {score} of the whole method, on a fresh set of relabellings (the "
            "switch depends only on the first set, not on the real labels, so the p-value "
            "stays exact). Each relabelling is cross-validated on the same kind of folds, "
            "fixed by the seed.",
            **fields,
        )
    return Markup(
        "The certified score is the {score} of the whole method, not its search score (the "
        "{search}), which reaches its maximum on almost any relabelling of wide data. Every "
        "relabelling is cross-validated the same way, on stratified folds fixed by the seed, "
        "so the p-value is exact.",
        **fields,
    )


def _uninformative(cert, label: str) -> Markup:
    if cert.uninformative == "nothing selected":
        where = "in any fold" if cert.score == "cv" else "on the real labels"
        return Markup(
            "This certificate cannot inform: the method kept no feature {where}, so its "
            "{score} is that of predicting without features, and no p-value is reported.",
            where=where,
            score=label,
        )
    return Markup(
        "This certificate cannot inform: the relabelled data reach the maximum {score} "
        "({top:.3f}) in at least half of the relabellings, so no score on the real labels "
        "could give a p-value below {floor:.3f}, and none is reported.",
        score=label,
        top=cert.max_score,
        floor=cert.pvalue_floor,
    )


def _meaning(item: Certified, label: str) -> Markup:
    return Markup(
        "What it means: a search p-value of 0.3 would say that on 30% of the relabellings, "
        "whose labels mean nothing, the {name} search reached a {score} at least as high as "
        "on the real labels, so its score would show only what this much searching finds in "
        "noise; a small p-value says the search found more than that. It is not an accuracy "
        "estimate (the nested cross-validation measures that).",
        name=item.name,
        score=label,
    )


def _prescreen_note(item: Certified, k: int) -> Markup:
    where = (
        "As in the method comparison (its own section above searched every feature)"
        if item.group == "scm"
        else "As in its own section"
    )
    return Markup(
        "{where}, the search ran on the {k} features with the largest F statistic; the "
        "pre-screen was re-run on every relabelling.",
        where=where,
        k=k,
    )


def _score_rows(label: str, cert, n_permutations: int) -> list[tuple[str, str]]:
    q = cert.quantiles
    pvalue = f"{cert.pvalue:.3f}" if cert.uninformative is None else "none: " + cert.uninformative
    return [
        ("observed " + label, f"{cert.observed:.3f}"),
        ("mean on relabelled data", f"{cert.null_mean:.3f}"),
        ("excess (observed - mean)", f"{cert.excess:+.3f}"),
        ("null 5% / 50% / 95%", f"{q[0.05]:.3f} / {q[0.5]:.3f} / {q[0.95]:.3f}"),
        ("search p-value", pvalue),
        ("smallest p-value any score could get here", f"{cert.pvalue_floor:.3f}"),
        ("label permutations", str(n_permutations)),
    ]


def _balance_rows(cert, baseline) -> list[tuple[str, str]]:
    """Accuracy, balanced accuracy and recall per class, beside the majority-class baseline."""
    rows = []
    cv = cert.cross_validation
    if cv is not None:
        rows.append(("cross-validated accuracy (real labels)", f"{cv.accuracy:.3f}"))
    if not baseline.imbalanced:
        return rows
    if cv is not None:
        recall = "; ".join(
            f"{c}: {r:.3f}" for c, r in zip(cv.classes.astype(str), cv.class_recall, strict=True)
        )
        rows.append(("cross-validated balanced accuracy", f"{cv.balanced_accuracy:.3f}"))
        rows.append(("cross-validated recall per class", recall))
    rows.append(
        (
            "majority class: accuracy / balanced accuracy",
            f"{baseline.accuracy:.3f} / {baseline.balanced_accuracy:.3f}",
        )
    )
    return rows


def _figure(item: Certified, cert, label: str, n_permutations: int) -> Figure:
    from widefs.plotting import plot_search_certificate

    ax = plot_search_certificate(cert, score_name=label, title=item.name)
    slug = "".join(ch if ch.isalnum() else "-" for ch in item.name.lower()).strip("-")
    return Figure(
        f"certificate-{slug}.png",
        ax.figure,
        Markup(
            "{score}: real labels (vermillion line) against {n} relabellings (blue bars)",
            score=label,
            n=n_permutations,
        ),
    )
