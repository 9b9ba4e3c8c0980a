"""The search-certificate sections of ``widefs run`` and their p-value cells.

Each certified method gets a short section (observed score, its null, a histogram and what
a p-value means for it), from :class:`widefs.analysis.CertificateOutcome`. A certificate
that cannot inform (null at the maximum, nothing selected) says so in words.
"""

from __future__ import annotations

from widefs.cli._markup import Markup
from widefs.cli.render._report import Figure, Note, Section, Table, Text
from widefs.cli.render._verdicts import verdict_texts
from widefs.cli.render._words import plural

__all__ = ["certificate_sections", "pvalue_text", "score_label"]


def certificate_sections(analysis, group: str) -> list[Section]:
    """One section per certified search of ``group`` (after that group's own sections)."""
    sections = []
    for out in analysis.certificates.values():
        if out.group == group:
            section = _section(out, analysis.certificate_permutations, analysis.majority)
            for text in verdict_texts(analysis, out.compared_as):
                section.add(text)
            sections.append(section)
    return sections


def pvalue_text(status: str, pvalue: float) -> str:
    """The p-value as the comparison table shows it, or in words when there is none."""
    if status == "ok":
        return f"{pvalue:.3f}"
    if status.startswith("uninformative: "):
        return f"none ({status.removeprefix('uninformative: ')})"
    return "failed" if status == "failed" else "-"


def score_label(item, cert) -> str:
    """What the certificate certified, in words (the search score, or the cross-validated one)."""
    if cert.score == "search":
        return item.score
    metric = "balanced accuracy" if cert.scoring == "balanced_accuracy" else "accuracy"
    return f"{cert.cross_validation.n_splits}-fold cross-validated {metric}"


def _section(item, n_permutations: int, baseline) -> Section:
    section = Section(Markup("Search certificate: {name}", name=item.name))
    cert = item.certificate
    if cert is None:
        section.add(
            Note(Markup("The certificate could not be computed: {error}", error=item.error))
        )
        return section
    label = score_label(item, cert)
    n_permutations = cert.n_permutations  # relabellings scored (fewer when the null stopped)
    section.add(Text(_intro(item, cert, label, n_permutations)))
    section.add(Text(_pvalue_sentence(cert, n_permutations)))
    if cert.score == "cv":
        section.add(Text(_why_cross_validated(item, cert, label)))
    if cert.uninformative is not None:
        section.add(Note(_uninformative(cert, label)))
    section.add(Text(_meaning(item, label)))
    if item.prescreened is not None:
        section.add(Note(_prescreen_note(item, item.prescreened)))
    rows = _score_rows(label, cert, n_permutations) + _balance_rows(cert, baseline)
    title = Markup("Search certificate: {name}", name=item.name)
    section.add(Table(["", "value"], rows, title=title))
    section.add(_figure(item, cert, label, n_permutations))
    return section


def _intro(item, cert, label: str, n_permutations: int) -> Markup:
    q = cert.quantiles
    return Markup(
        "The {name} search was run again, with the same settings, on {n} "
        "of the data (the same relabellings for every method). Its score, the {score}, is "
        "{observed:.3f} on the real labels and {mean:.3f} on average on the relabelled ones "
        "(90% of them between {q05:.3f} and {q95:.3f}).",
        name=item.name,
        n=plural(n_permutations, "random relabelling"),
        score=label,
        observed=cert.observed,
        mean=cert.null_mean,
        q05=q[0.05],
        q95=q[0.95],
    )


def _pvalue_sentence(cert, n_permutations: int) -> Markup:
    if cert.uninformative is not None:
        return Markup("**No search p-value**: this certificate cannot inform (see the note).")
    if cert.stopped:
        return Markup(
            "**Search p-value {p:.3f}**: the null stopped once {h} relabellings had scored at "
            "least as well as the real labels, after {n} of them (a sequential p-value, "
            "Besag & Clifford 1991: {h} / {n}, valid, and settled: more relabellings could "
            "not make it small).",
            p=cert.pvalue,
            h=cert.stop_after,
            n=n_permutations,
        )
    return Markup(
        "**Search p-value {p:.3f}**: the share of relabellings, counting the real one, on which "
        "the search scored at least as well (the smallest possible value is {pmin:.3f}).",
        p=cert.pvalue,
        pmin=1 / (n_permutations + 1),
    )


def _why_cross_validated(item, cert, label: str) -> Markup:
    fields = dict(name=item.name, search=item.score, score=label)
    if cert.replaced is not None:
        return Markup(
            "Its own search score, the {search}, reached the maximum on one of up to four "
            "pilot relabellings, so it could not tell signal from noise; the certificate "
            "therefore certifies the {score} of the whole method (the switch depends only on "
            "the pilot relabellings, not on the real labels, so the p-value stays exact). Each relabelling is cross-validated on the same kind of folds, "
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


def _meaning(item, label: str) -> Markup:
    return Markup(
        "What it means: a search p-value of 0.3 would say that on 30% of the relabellings, "
        "whose labels mean nothing, the {name} search reached a {score} at least as high as "
        "on the real labels, so its score would show only what this much searching finds in "
        "noise; a small p-value says the search found more than that. It is not an accuracy "
        "estimate (the nested cross-validation measures that).",
        name=item.name,
        score=label,
    )


def _prescreen_note(item, k: int) -> Markup:
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
        ("label permutations", _permutation_count(cert)),
    ]


def _permutation_count(cert) -> str:
    if cert.stopped:
        return f"{cert.n_permutations} of {cert.n_planned} (stopped early)"
    return str(cert.n_permutations)


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


def _figure(item, cert, label: str, n_permutations: int) -> Figure:
    from widefs.plotting import plot_search_certificate

    ax = plot_search_certificate(cert, score_name=label, title=item.name)
    slug = "".join(ch if ch.isalnum() else "-" for ch in item.name.lower()).strip("-")
    return Figure(
        f"certificate-{slug}.png",
        ax.figure,
        Markup(
            "{score}: real labels (vermillion line) against {n} (blue bars)",
            score=label,
            n=plural(n_permutations, "relabelling"),
        ),
    )
