"""The verdict on each method in words, from :class:`widefs.analysis.Verdict`: the same
sentence wherever the report names it (the method's certificate section and the verdicts
table), so that the report gives one verdict per method.
"""

from __future__ import annotations

from widefs.cli._markup import Markup
from widefs.cli.render._report import Section, Table, Text

__all__ = ["LABELS", "verdict_section", "verdict_sentence", "verdict_texts"]

# Short labels (the table's verdict column), by outcome.
LABELS = {
    "signal": "signal beyond chance",
    "certified only": "search beats noise, accuracy not shown",
    "accurate only": "accurate, search not certified",
    "not shown": "no evidence beyond chance",
}


def _percent(x: float) -> str:
    return f"{100 * x:.1f}%"


def _nested(v) -> str:
    if v.low is None:
        return "not evaluated by nested cross-validation (run --methods with compare)"
    side = "lies above" if v.above_chance else "includes"
    return (
        f"nested cross-validated {v.score} {_percent(v.estimate)}, 95% interval "
        f"[{_percent(v.low)}, {_percent(v.high)}], which {side} chance ({_percent(v.chance)})"
    )


def _search(v) -> str:
    if v.pvalue is None:
        return "no search p-value"
    text = f"search p-value {v.pvalue:.3f}"
    if v.floor_too_high:
        return text + f" (its smallest possible value, {v.pvalue_floor:.3f}, is above 0.05)"
    return text + (" (at most 0.05)" if v.certified else " (above 0.05)")


def _evidence(v) -> str:
    return f"{_nested(v)}; {_search(v)}."


def verdict_sentence(v) -> str:
    """The verdict on one method with its evidence, e.g. ``"signal beyond chance: ..."``."""
    return f"{LABELS[v.outcome]}: {_evidence(v)}"


def verdict_section(analysis) -> Section | None:
    """The table of every method's verdict (None when no method got one)."""
    if not analysis.verdicts:
        return None
    section = Section("Verdicts")
    section.add(
        Text(
            Markup(
                "One verdict per method, from the two pieces of evidence that decide it: the "
                "**nested cross-validated** {score} (its 95% interval must lie above {chance}, "
                "what a classifier that ignores the data scores) and the **search certificate** "
                "(its p-value must be at most 0.05). A single train/test split, a training "
                "fit or a risk bound alone decides nothing either way.",
                score=next(iter(analysis.verdicts.values())).score,
                chance=_percent(next(iter(analysis.verdicts.values())).chance),
            )
        )
    )
    rows = [(name, LABELS[v.outcome], _evidence(v)) for name, v in analysis.verdicts.items()]
    section.add(
        Table(["method", "verdict", "evidence"], rows, title="Verdicts", terminal_columns=[0, 1])
    )
    return section


def verdict_texts(analysis, names) -> list[Text]:
    """The verdict sentence of each of ``names`` that has one, as report paragraphs."""
    return [
        Text(Markup("**Verdict on {name}**: {text}", name=name, text=verdict_sentence(v)))
        for name in names
        if (v := analysis.verdicts.get(name)) is not None
    ]
