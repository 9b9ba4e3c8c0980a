"""The report's study design: the case, the covariates and groups, what each part did with them.

Every value comes from :attr:`widefs.analysis.Analysis.design` (the analysis's words for each
part) and from the columns read (:attr:`widefs.cli.io.LoadedData.design`); nothing is
computed here.
"""

from __future__ import annotations

from widefs.cli._markup import Markup, visible
from widefs.cli.render._report import Note, Section, Table, Text

__all__ = ["design_sections"]

_PARTS = {
    "chance": "chance analysis",
    "scm": "Set Covering Machines",
    "rules": "CN2-POE rules",
    "cefs": "CEFS",
    "compare": "method comparison",
    "certificates": "search certificates",
}


def design_sections(analysis, data) -> list[Section]:
    """The study design section, or none when no design was given."""
    design = analysis.design
    if design is None:
        return []
    read = data.design
    section = Section("Study design")
    section.add(
        Text(
            Markup(
                "The samples come with a design: the methods that can use it did; the table "
                "below says what each part of this report did with it."
            )
        )
    )
    rows = [("case", f"{design.case}: {design.groups_case}")]
    if read.groups_column is not None:
        rows.append(("groups", f"column {visible(read.groups_column)} ({design.n_groups} groups)"))
    for name in design.covariates:
        rows.append(("covariate", f"{visible(name)}: {read.read_as.get(name, 'as given')}"))
    rows.append(("screen's linear model", ", ".join(visible(c) for c in design.columns)))
    section.add(Table(["", ""], rows, title="Study design"))
    section.add(
        Table(
            ["part", "what it did with the design"],
            [(_PARTS.get(part, part), text) for part, text in design.statements.items()],
            title="The design in each part",
        )
    )
    if design.case == "between groups":
        section.add(
            Note(
                Markup(
                    "Every group holds one class (repeated samples of a subject): the subjects, "
                    "not the samples, are the replicates, so the effective sample size is the "
                    "number of groups ({n}).",
                    n=design.n_groups,
                )
            )
        )
    return [section]
