"""``widefs cite``: BibTeX for widefs and the papers behind the methods a run used.

``widefs cite`` prints every reference a default ``widefs run`` relies on; ``widefs cite
--methods chance,scm`` only those of the listed report parts (the same names as ``widefs run
--methods``). The entries are plain data below; :func:`bibtex` renders them, escaping the
characters BibTeX/LaTeX treat as markup, so the output parses as written.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

import widefs
from widefs.exceptions import DataError

__all__ = [
    "METHOD_REFERENCES",
    "REFERENCES",
    "WIDEFS_YEAR",
    "Reference",
    "add_parser",
    "bibtex",
    "parse_methods",
    "run",
]

# Year of the release named by widefs.__version__ (CITATION.cff's date-released; tested).
WIDEFS_YEAR = 2026


@dataclass(frozen=True)
class Reference:
    """One BibTeX entry: its type, citation key and fields in output order."""

    entry_type: str
    key: str
    fields: tuple[tuple[str, str], ...]
    corporate: bool = False  # the author is an organization: its name is one unit


def _widefs() -> Reference:
    return Reference(
        "misc",
        "widefs",
        (
            ("author", "widefs developers"),
            (
                "title",
                "widefs: feature selection for wide data that accounts for how much "
                "searching was done",
            ),
            ("year", str(WIDEFS_YEAR)),
            ("version", widefs.__version__),
            ("note", f"Python package, version {widefs.__version__}"),
        ),
        corporate=True,
    )


REFERENCES: dict[str, Reference] = {
    "palatucci2008": Reference(
        "inproceedings",
        "palatucci2008chance",
        (
            ("author", "Palatucci, Mark and Carlson, Andrew"),
            ("title", "On the Chance Accuracies of Large Collections of Classifiers"),
            (
                "booktitle",
                "Proceedings of the 25th International Conference on Machine Learning (ICML 2008)",
            ),
            ("pages", "744--751"),
            ("year", "2008"),
            ("doi", "10.1145/1390156.1390250"),
        ),
    ),
    "shah2010": Reference(
        "misc",
        "shah2010stumps",
        (
            ("author", "Shah, Mohak and Marchand, Mario and Corbeil, Jacques"),
            (
                "title",
                "Feature Selection with Conjunctions of Decision Stumps and Learning from "
                "Microarray Data",
            ),
            ("year", "2010"),
            ("eprint", "1005.0530"),
            ("archiveprefix", "arXiv"),
            ("primaryclass", "cs.LG"),
            ("doi", "10.48550/arXiv.1005.0530"),
            ("url", "https://arxiv.org/abs/1005.0530"),
        ),
    ),
    "domingos1999": Reference(
        "inproceedings",
        "domingos1999poe",
        (
            ("author", "Domingos, Pedro M."),
            ("title", "Process-Oriented Estimation of Generalization Error"),
            (
                "booktitle",
                "Proceedings of the Sixteenth International Joint Conference on Artificial "
                "Intelligence (IJCAI-99)",
            ),
            ("pages", "714--720"),
            ("year", "1999"),
            ("url", "https://ijcai.org/proceedings/1999/102"),
        ),
    ),
    "soares2010": Reference(
        "phdthesis",
        "soares2010cefs",
        (
            ("author", "Soares, Caio Vinicius"),
            (
                "title",
                "Improving Prediction Accuracy Using Class-specific Ensemble Feature Selection",
            ),
            ("school", "Auburn University"),
            ("address", "Auburn, Alabama"),
            ("year", "2010"),
            ("url", "https://etd.auburn.edu/handle/10415/2273"),
        ),
    ),
    "clark1989": Reference(
        "article",
        "clark1989cn2",
        (
            ("author", "Clark, Peter and Niblett, Tim"),
            ("title", "The CN2 Induction Algorithm"),
            ("journal", "Machine Learning"),
            ("volume", "3"),
            ("number", "4"),
            ("pages", "261--283"),
            ("year", "1989"),
            ("doi", "10.1007/BF00116835"),
        ),
    ),
    "nadeau2003": Reference(
        "article",
        "nadeau2003inference",
        (
            ("author", "Nadeau, Claude and Bengio, Yoshua"),
            ("title", "Inference for the Generalization Error"),
            ("journal", "Machine Learning"),
            ("volume", "52"),
            ("number", "3"),
            ("pages", "239--281"),
            ("year", "2003"),
            ("doi", "10.1023/A:1024068626366"),
        ),
    ),
    "nogueira2018": Reference(
        "article",
        "nogueira2018stability",
        (
            ("author", "Nogueira, Sarah and Sechidis, Konstantinos and Brown, Gavin"),
            ("title", "On the Stability of Feature Selection Algorithms"),
            ("journal", "Journal of Machine Learning Research"),
            ("volume", "18"),
            ("number", "174"),
            ("pages", "1--54"),
            ("year", "2018"),
            ("url", "https://www.jmlr.org/papers/v18/17-514.html"),
        ),
    ),
}

# What each report part of `widefs run --methods` uses (keys: the cli's METHOD_GROUPS; tested).
METHOD_REFERENCES: dict[str, tuple[str, ...]] = {
    "chance": ("palatucci2008",),
    "scm": ("shah2010",),
    "rules": ("domingos1999", "clark1989"),
    "cefs": ("soares2010",),
    "compare": ("nadeau2003", "nogueira2018"),
}

# Characters with a meaning in LaTeX text, written so that they print literally. Braces and
# backslashes have no safe spelling (BibTeX counts every brace, escaped or not), so a text
# field holding one is refused rather than emitted.
_ESCAPES = {
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}
_UNSAFE = set("{}\\")
# Fields copied verbatim (identifiers and addresses, not text).
_VERBATIM = {"doi", "url", "eprint"}


def _value(name: str, text: str, *, corporate: bool = False) -> str:
    """The BibTeX value of field ``name`` (without its outer braces)."""
    if name in _VERBATIM:
        bad = set(text) & (_UNSAFE | set('" %'))
        if bad:
            raise ValueError(f"field {name!r} holds characters it cannot hold: {sorted(bad)}")
        return text
    bad = set(text) & _UNSAFE
    if bad:
        raise ValueError(f"field {name!r} holds characters BibTeX cannot quote: {sorted(bad)}")
    text = "".join(_ESCAPES.get(ch, ch) for ch in text)
    if name == "title" or (name == "author" and corporate):
        # Inner braces keep a title's capitalization and mark a corporate author as one name.
        return "{" + text + "}"
    return text


def _entry(ref: Reference) -> str:
    width = max(len(name) for name, _ in ref.fields)
    lines = [f"@{ref.entry_type}{{{ref.key},"]
    lines += [
        f"  {name:<{width}} = {{{_value(name, text, corporate=ref.corporate)}}},"
        for name, text in ref.fields
    ]
    lines.append("}")
    return "\n".join(lines)


def parse_methods(text: str | None) -> tuple[str, ...]:
    """The report parts named in a comma-separated ``--methods`` value (all when None)."""
    if text is None:
        return tuple(METHOD_REFERENCES)
    groups = tuple(dict.fromkeys(g.strip() for g in text.split(",") if g.strip()))
    unknown = [g for g in groups if g not in METHOD_REFERENCES]
    if unknown or not groups:
        raise DataError(
            f"unknown --methods {', '.join(unknown) or '(none)'}; "
            f"choose among {', '.join(METHOD_REFERENCES)}"
        )
    return groups


def bibtex(methods=None) -> str:
    """BibTeX of widefs and of the papers behind ``methods``.

    ``methods`` names report parts of ``widefs run`` (a comma-separated string or a sequence);
    None means all of them. widefs comes first, then each paper once, in report order.
    """
    if methods is not None and not isinstance(methods, str):
        methods = ",".join(methods)
    groups = parse_methods(methods)
    keys = dict.fromkeys(k for g in METHOD_REFERENCES if g in groups for k in METHOD_REFERENCES[g])
    entries = [_widefs(), *(REFERENCES[k] for k in keys)]
    return "\n\n".join(_entry(ref) for ref in entries) + "\n"


def add_parser(subparsers) -> None:
    """Add the ``cite`` command to the ``widefs`` argument parser."""
    cite = subparsers.add_parser(
        "cite",
        help="print BibTeX for widefs and the papers behind the methods a run used",
        description=(
            "Print BibTeX entries for widefs and for the papers whose methods a `widefs run` "
            "used. Give the same --methods as the run; without it, every method's papers."
        ),
    )
    cite.add_argument(
        "--methods",
        default=None,
        help=f"comma-separated report parts among {', '.join(METHOD_REFERENCES)} (default: all)",
    )


def run(args) -> int:
    """Run ``widefs cite`` with parsed arguments; returns the exit status."""
    sys.stdout.write(bibtex(args.methods))
    return 0
