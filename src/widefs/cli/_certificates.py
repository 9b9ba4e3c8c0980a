"""Search certificates in ``widefs run``: each method's whole search re-run on permuted labels.

One set of ``--permutations`` index arrays, drawn once from ``--seed``, is used for every
method (:func:`widefs.model_selection.search_certificate` with ``random_state=seed``). Each
certified method gets a short report section (observed score, its null, a histogram and
what a p-value means for it); the method comparison shows the p-values in a column.
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
    ),
    Certified(
        "rules",
        "CN2 rules (significance)",
        _cn2,
        "training accuracy of the rules",
        ("CN2 rules (significance)",),
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
        return self


class CertificateRun:
    """The certificates of one ``widefs run``: computed once each, shared by sections and table."""

    def __init__(self, data: LoadedData, *, seed: int, n_permutations: int, n_jobs=None):
        self.data = data
        self.seed = seed
        self.n_permutations = n_permutations
        self.n_jobs = n_jobs
        self.results: dict[str, object] = {}  # name -> SearchCertificate or error text

    def _applies(self, item: Certified) -> bool:
        return not (item.binary_only and np.unique(self.data.y).size != 2)

    def certify(self, item: Certified, progress=None):
        """The certificate of ``item`` (computed on first use), or the error text."""
        if item.name not in self.results:
            from widefs.exceptions import HeuristicBoundWarning
            from widefs.model_selection import search_certificate

            task = None
            if progress is not None:
                task = progress.add_task(f"search certificate: {item.name}", total=None)
            with warnings.catch_warnings():
                # Refits on meaningless labels select nothing or use heuristic bounds: expected.
                warnings.simplefilter("ignore", HeuristicBoundWarning)
                warnings.simplefilter("ignore", UserWarning)
                estimator = item.make(self.seed)
                if item.group in PRESCREENED_GROUPS and self.data.X.shape[1] > PRESCREEN:
                    estimator = _Prescreened(estimator, k=PRESCREEN)
                try:
                    self.results[item.name] = search_certificate(
                        estimator,
                        self.data.X,
                        self.data.y,
                        n_permutations=self.n_permutations,
                        random_state=self.seed,
                        n_jobs=self.n_jobs,
                    )
                except Exception as exc:
                    # The rest of the report stands; the section says why this one is missing.
                    self.results[item.name] = f"{type(exc).__name__}: {exc}"
            if task is not None:
                progress.remove_task(task)
        return self.results[item.name]

    def sections(self, group: str, progress=None) -> list[Section]:
        """One section per certified search of ``group`` (after that group's own sections)."""
        return [
            _section(item, self.certify(item, progress), self.n_permutations)
            for item in CERTIFIED
            if item.group == group and self._applies(item)
        ]

    def pvalue_column(self, groups, progress=None) -> dict[str, str]:
        """``{comparison row name: search p-value text}`` for the certified methods of ``groups``."""
        out = {}
        for item in CERTIFIED:
            if item.group in groups and self._applies(item):
                cert = self.certify(item, progress)
                text = f"{cert.pvalue:.3f}" if not isinstance(cert, str) else "failed"
                for name in item.compared_as:
                    out[name] = text
        return out


def _section(item: Certified, cert, n_permutations: int) -> Section:
    section = Section(Markup("Search certificate: {name}", name=item.name))
    if isinstance(cert, str):
        section.add(Note(Markup("The certificate could not be computed: {error}", error=cert)))
        return section
    q = cert.quantiles
    section.add(
        Text(
            Markup(
                "The {name} search was run again, with the same settings, on {n} random "
                "relabellings of the data (the same relabellings for every method). Its score, "
                "the {score}, is {observed:.3f} on the real labels and {mean:.3f} on average on "
                "the relabelled ones (90% of them between {q05:.3f} and {q95:.3f}): "
                "**search p-value {p:.3f}** (the share of relabellings, counting the real one, "
                "on which the search scored at least as well; the smallest possible value is "
                "{pmin:.3f}).",
                name=item.name,
                n=n_permutations,
                score=item.score,
                observed=cert.observed,
                mean=cert.null_mean,
                q05=q[0.05],
                q95=q[0.95],
                p=cert.pvalue,
                pmin=1 / (n_permutations + 1),
            )
        )
    )
    section.add(
        Text(
            Markup(
                "What it means: a search p-value of 0.3 would say that on 30% of the "
                "relabellings, whose labels mean nothing, the {name} search reached a {score} at "
                "least as high as on the real labels, so its score would show only what this "
                "much searching finds in noise; a small p-value says the search found more than "
                "that. It is not an accuracy estimate (the nested cross-validation measures "
                "that).",
                name=item.name,
                score=item.score,
            )
        )
    )
    if isinstance(cert.estimator, _Prescreened):
        where = (
            "As in the method comparison (its own section above searched every feature)"
            if item.group == "scm"
            else "As in its own section"
        )
        section.add(
            Note(
                Markup(
                    "{where}, the search ran on the {k} features with the largest F statistic; "
                    "the pre-screen was re-run on every relabelling.",
                    where=where,
                    k=cert.estimator.k,
                )
            )
        )
    section.add(
        Table(
            ["", "value"],
            [
                ("observed " + item.score, f"{cert.observed:.3f}"),
                ("mean on relabelled data", f"{cert.null_mean:.3f}"),
                ("excess (observed - mean)", f"{cert.excess:+.3f}"),
                ("null 5% / 50% / 95%", f"{q[0.05]:.3f} / {q[0.5]:.3f} / {q[0.95]:.3f}"),
                ("search p-value", f"{cert.pvalue:.3f}"),
                ("label permutations", str(n_permutations)),
            ],
            title=Markup("Search certificate: {name}", name=item.name),
        )
    )
    from widefs.plotting import plot_search_certificate

    ax = plot_search_certificate(cert, score_name=item.score, title=item.name)
    slug = "".join(ch if ch.isalnum() else "-" for ch in item.name.lower()).strip("-")
    section.add(
        Figure(
            f"certificate-{slug}.png",
            ax.figure,
            Markup(
                "{score}: real labels (vermillion line) against {n} relabellings (blue bars)",
                score=item.score,
                n=n_permutations,
            ),
        )
    )
    return section
