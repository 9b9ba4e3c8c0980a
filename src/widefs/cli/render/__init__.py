"""The command line's renderers: pure functions from an analysis to report sections.

Each renderer takes :class:`widefs.analysis.Analysis` (and the data read, for names) and
returns :class:`Section` objects of text, tables and figures; a :class:`Report` writes them
as markdown and HTML. No number is computed while a sentence is written: every value comes
from the analysis.
"""

from widefs.cli.render._report import Report, Section
from widefs.cli.render._sections import (
    analysis_sections,
    citing_section,
    how_to_read,
    show,
    summary_section,
    warnings_section,
)

__all__ = [
    "Report",
    "Section",
    "analysis_sections",
    "citing_section",
    "how_to_read",
    "show",
    "summary_section",
    "warnings_section",
]
