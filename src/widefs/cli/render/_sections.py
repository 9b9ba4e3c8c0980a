"""The report's sections, from the data read and the analysis made: text only, no number.

Each part's renderer (chance, SCMs, rules, CEFS, comparison, certificates) is a function
``(analysis, data) -> sections``; this module adds the frame around them: the dataset
summary, the reading guide, the library warnings and the citations.
"""

from __future__ import annotations

import re

from widefs.cli import _cite
from widefs.cli._markup import Markup
from widefs.cli.render._report import Note, Section, Table, Text
from widefs.cli.render._words import plural

__all__ = [
    "analysis_sections",
    "citing_section",
    "counts_section",
    "how_to_read",
    "show",
    "summary_section",
    "warnings_section",
]


def summary_section(data, classes, counts) -> Section:
    """The dataset: where it came from, its size and its classes."""
    rows = [
        ("source", data.source),
        ("target column", data.target),
        ("samples", str(data.X.shape[0])),
        ("features", str(data.X.shape[1])),
        ("classes", ", ".join(f"{c} ({k})" for c, k in zip(classes, counts, strict=True))),
    ]
    if data.imputed_columns:
        rows.append(("imputed columns", f"{len(data.imputed_columns)} (median)"))
    section = Section("Dataset")
    section.add(Table(["", ""], rows, title=f"Dataset: {data.name}"))
    for note in data.notes:
        section.add(Note(note))
    return section


def show(console, section: Section) -> None:
    """Print ``section``'s blocks that have a terminal form on ``console``."""
    for block in section.blocks:
        renderable = block.rich() if hasattr(block, "rich") else None
        if renderable is not None:
            console.print(renderable)


def how_to_read(groups) -> Section:
    """The report's reading guide: what each kind of number means and what to compare it with."""
    section = Section("How to read this report")
    section.add(
        Text(
            Markup(
                "- **Accuracy** (%) is the share of examples classified correctly on data that "
                "neither selected the features nor trained the classifier. Compare it with the "
                "**majority-class** accuracy (always predicting the most frequent class), "
                "stated in each section: a method is useful only above it.\n"
                "- **Chance level**: with thousands of features, the best of many useless "
                "features looks good by luck. The chance analysis says how good; a feature's "
                "accuracy means something only beyond it.\n"
                "- **95% intervals** show how much an accuracy could move with other samples. "
                "Wide intervals (few samples, few folds) are flagged; methods whose intervals "
                "overlap cannot be told apart on these data.\n"
                "- **MGM** is the multiplicity-gap midpoint (Palatucci & Carlson 2008): a "
                "feature is kept when it makes fewer validation errors than halfway between "
                "what a useless feature makes on average and what the best of that many useless "
                "features makes by luck.\n"
                "- **pooled %** (method comparison): the share of all held-out predictions "
                "that were right, every example counted once per repeat; the accuracy column "
                "beside it is the mean of the folds' accuracies.\n"
                "- **Fallback** rows: when a threshold keeps no feature, the classifier predicts "
                "the class proportions of its training data; such rows are marked, with the "
                "reason.\n"
                "- **Risk bounds** are guarantees: the true error is below the bound with 95% "
                "probability. A bound at or above the majority-class error guarantees nothing "
                "useful and is marked **vacuous**.\n"
                "- **Verdicts**: one per method, from the evidence that decides it: its nested "
                "cross-validated interval against chance and its search certificate. A single "
                "split or a training fit is described as what it is, never as a verdict.\n"
                "- **Long tables** show their top rows; every feature, in the same order and "
                "with the same column names, is in `features.csv` (and, in the HTML report, "
                "under the table's full list)."
            )
        )
    )
    return section


def warnings_section(caught) -> Section | None:
    """Warnings raised by libraries during the analysis, once each with a count, no paths."""
    if not caught:
        return None
    counts: dict[tuple[str, str], int] = {}
    examples: dict[tuple[str, str], str] = {}
    for w in caught:
        text = str(w.message).strip().splitlines()[0] if str(w.message).strip() else ""
        key = (w.category.__name__, re.sub(r"\d+", "#", text))
        counts[key] = counts.get(key, 0) + 1
        examples.setdefault(key, text)
    rows = [(cat, examples[key], n) for key, n in counts.items() for cat in [key[0]]]
    section = Section("Warnings from libraries")
    section.add(
        Note(
            Markup(
                "{n} raised by the libraries during the analysis ({k}); each kind is listed "
                "once with an example and its count. They did not stop the analysis.",
                n=plural(len(caught), "warning was", "warnings were"),
                k=plural(len(counts), "kind"),
            )
        )
    )
    section.add(Table(["warning", "example", "times"], rows, title="Library warnings"))
    return section


def counts_section(analysis, data) -> Section | None:
    """What was done with counts, method by method (None when the values are not counts)."""
    if not analysis.counts:
        return None
    why = (
        "as --counts asked"
        if data.counts is True
        else "recognised: non-negative integers with zeros, the largest at least 1,000; "
        "--no-counts reads them as intensities"
    )
    screen = analysis.chance.screen.note if analysis.chance is not None else ""
    section = Section("Counts")
    section.add(
        Note(
            Markup(
                "The values were read as counts ({why}).{screen} The other methods take the "
                "counts as they are, without a log transform or a library-size normalisation: "
                "the thresholds of the one-feature naive Bayes (MGM, E[X(1)]), the SCMs and CN2 "
                "would not change under a log transform of a feature, but the naive Bayes, "
                "linear SVM and k-nearest-neighbour (CEFS) classifiers would, so log2(x + 1) or "
                "log-CPM values can change which of them wins.",
                why=why,
                screen=f" The class-difference screen (FDR and Bonferroni rules): {screen}"
                if screen
                else "",
            )
        )
    )
    return section


def analysis_sections(analysis, data) -> list[Section]:
    """The report's sections of each part, each part followed by its search certificates."""
    from widefs.cli.render._certificates import certificate_sections
    from widefs.cli.render._chance import chance_sections
    from widefs.cli.render._compare import comparison_section
    from widefs.cli.render._design import design_sections
    from widefs.cli.render._models import cefs_sections, rules_sections, scm_sections
    from widefs.cli.render._verdicts import verdict_section

    renderers = {
        "chance": chance_sections,
        "scm": scm_sections,
        "rules": rules_sections,
        "cefs": cefs_sections,
        "compare": comparison_section,
    }
    sections = design_sections(analysis, data)
    counts = counts_section(analysis, data)
    sections += [] if counts is None else [counts]
    for part in analysis.methods:
        sections += renderers[part](analysis, data)
        sections += certificate_sections(analysis, part)
    verdicts = verdict_section(analysis)
    return sections if verdicts is None else [*sections, verdicts]


def citing_section(groups) -> Section:
    """The report's last section: CITATION.bib with widefs and the papers of the methods run."""
    section = Section("Citing")
    section.add(
        Text(
            Markup(
                "`CITATION.bib` holds the BibTeX of widefs and of the papers behind the methods "
                "of this report; `widefs cite --methods {methods}` prints the same entries.",
                methods=",".join(groups),
            )
        )
    )
    section.files["CITATION.bib"] = _cite.bibtex(groups)
    return section
