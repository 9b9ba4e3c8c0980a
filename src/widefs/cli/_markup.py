"""Text that reaches a reader, with data kept apart from markup and escaped once per medium.

Everything the report shows is one of two kinds of text:

- a plain ``str`` is **literal**: a column name, a class label, a file name, a number. Every
  renderer shows it exactly as written; nothing in it is ever read as markup, in any medium.
- :class:`Markup` is **trusted prose** written in this package: a template (a string literal in
  the source, never built from data) in a small markdown subset -- paragraphs, ``- `` bullet
  lists, ``**bold**`` and ```code``` -- whose ``{fields}`` are filled with literal values.
  The template is parsed *before* the fields are filled, so a field can never open a tag,
  a link or a style.

Both become :class:`Span` runs (literal text plus a style from the template), and each medium
has one function that writes spans: :func:`html_spans`, :func:`markdown_spans`,
:func:`rich_spans`, :func:`plain_spans`. Figures are the fourth medium: the command line draws
them with matplotlib's mathtext parsing switched off (see ``widefs.plotting.literal_text``).
:func:`csv_text` writes the CSV files beside the report.

There are no links in the subset: nothing a report says, data or prose, becomes a link.
"""

from __future__ import annotations

import csv
import html
import io
import re
import string
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

__all__ = [
    "Inline",
    "Markup",
    "Span",
    "csv_text",
    "html_spans",
    "markdown_code_block",
    "markdown_spans",
    "plain_spans",
    "rich_spans",
    "spans_of",
    "visible",
]

# Invisible characters that change what a terminal or an editor shows (bidirectional overrides,
# "Trojan source"); shown as escapes like control characters.
_BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def _is_hidden(ch: str) -> bool:
    return ch in _BIDI or unicodedata.category(ch) in ("Cc", "Zl", "Zp")


def visible(text: str, *, keep_newlines: bool = False) -> str:
    """``text`` with control, line-separator and bidi-override characters shown as escapes.

    A name containing ESC would otherwise recolour the terminal, a newline would break a
    one-line error or a markdown table row, and U+202E would reverse what is displayed.
    ``visible("a\\x1b[31m")`` is ``"a\\\\x1b[31m"``.
    """
    if text.isprintable() or not any(_is_hidden(ch) for ch in text):
        return text
    out = []
    for ch in text:
        if keep_newlines and ch == "\n":
            out.append(ch)
        elif _is_hidden(ch):
            code = ord(ch)
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")
        else:
            out.append(ch)
    return "".join(out)


@dataclass(frozen=True)
class Span:
    """A run of literal text with the style the *template* gave it ("", "strong" or "code")."""

    text: str
    style: str = ""


_FORMATTER = string.Formatter()
_STYLE_MARK = re.compile(r"(\*\*|`)")


def _fill(template: str, fields: dict, style: str) -> list[Span]:
    """Literal template text and formatted field values, as spans of one style."""
    spans = []
    for literal, name, spec, conversion in _FORMATTER.parse(template):
        if literal:
            spans.append(Span(literal, style))
        if name is None:
            continue
        if name not in fields:
            raise KeyError(f"template field {{{name}}} has no value")
        value = _FORMATTER.convert_field(fields[name], conversion)
        spans.append(Span(visible(format(value, spec or "")), style))
    return spans


def _parse_inline(template: str, fields: dict) -> list[Span]:
    spans: list[Span] = []
    style = ""
    for piece in _STYLE_MARK.split(template):
        mark = {"**": "strong", "`": "code"}.get(piece)
        if mark is not None and style in ("", mark):
            style = "" if style == mark else mark
        elif piece:
            spans += _fill(piece, fields, style)
    if style:
        raise ValueError(f"unclosed {style} in template {template!r}")
    merged: list[Span] = []
    for span in spans:
        if merged and merged[-1].style == span.style:
            merged[-1] = Span(merged[-1].text + span.text, span.style)
        elif span.text:
            merged.append(span)
    return merged


class Markup:
    """Trusted prose: a template in a small markdown subset, filled with literal fields.

    Parameters
    ----------
    template : str
        Written in this package as a string literal (a style test rejects f-strings here):
        paragraphs separated by blank lines; a paragraph whose lines all start with ``- ``
        (or continue with two spaces) is a bullet list; ``**bold**`` and ```code``` inline.
        ``{name}`` or ``{name:.1f}`` are replaced by ``fields[name]`` formatted with
        :func:`format`; the result is literal text (``{{`` and ``}}`` give braces).
    **fields
        Values of the template's fields: data, numbers, anything with ``format``.

    Examples
    --------
    >>> m = Markup("Column **{name}** has {n} values.", name="[x](javascript:alert(1))", n=3)
    >>> [(s.text, s.style) for s in m.inline()]
    [('Column ', ''), ('[x](javascript:alert(1))', 'strong'), (' has 3 values.', '')]
    """

    def __init__(self, template: str, /, **fields):
        self.blocks: list[tuple[str, list]] = []
        for para in re.split(r"\n\s*\n", template.strip()):
            lines = para.splitlines()
            if lines and all(line.startswith(("- ", "  ")) for line in lines):
                items: list[list[str]] = []
                for line in lines:
                    if line.startswith("- ") or not items:
                        items.append([])
                    items[-1].append(line[2:].strip())
                self.blocks.append(
                    ("ul", [_parse_inline(" ".join(item), fields) for item in items])
                )
            else:
                text = " ".join(line.strip() for line in lines)
                self.blocks.append(("p", _parse_inline(text, fields)))

    def inline(self) -> list[Span]:
        """The spans of a one-paragraph template (for table cells, titles, captions)."""
        if len(self.blocks) != 1 or self.blocks[0][0] != "p":
            raise ValueError("an inline Markup must be a single paragraph")
        return self.blocks[0][1]

    def __repr__(self) -> str:
        return f"Markup({plain_spans(s for kind, b in self.blocks for s in _flat(kind, b))!r})"


def _flat(kind: str, block: list) -> list[Span]:
    return block if kind == "p" else [s for item in block for s in item]


Inline = str | Markup
"""Where the report takes one line of text: a literal ``str`` or a one-paragraph ``Markup``."""


def spans_of(text: Inline | object) -> list[Span]:
    """Spans of an inline text; anything that is not :class:`Markup` is literal (``str()``)."""
    if isinstance(text, Markup):
        return text.inline()
    return [Span(visible(str(text)))] if str(text) else []


# --- HTML -------------------------------------------------------------------------------


def html_spans(spans: Iterable[Span]) -> str:
    """HTML of spans: every character of the text escaped (quotes too, so it fits attributes)."""
    out = []
    for s in spans:
        text = html.escape(s.text, quote=True)
        out.append(f"<{tag}>{text}</{tag}>" if (tag := _HTML_TAG.get(s.style)) else text)
    return "".join(out)


_HTML_TAG = {"strong": "strong", "code": "code"}


# --- Markdown (CommonMark + GitHub's extensions) ----------------------------------------

# Characters that can start CommonMark/GFM inline syntax: escapes, code, emphasis, links and
# images, raw HTML and autolinks, tables, entities, strikethrough, headings, math ($ on GitHub).
_MD_ESCAPE = frozenset("\\`*_[]<>|&~#$")
_LINE_START = re.compile(r"([+=-]|\d+[.)])")


def _markdown_text(text: str, *, line_start: bool, cell_start: bool = False) -> str:
    out = []
    for i, ch in enumerate(text):
        if ch in _MD_ESCAPE:
            out.append("\\" + ch)
        elif ch == ":" and text.startswith("/", i + 1):
            out.append("\\:")  # http://... would become a GFM autolink
        elif ch == "." and text[max(0, i - 3) : i].lower() == "www":
            out.append("\\.")  # www.example.org would become a GFM autolink
        elif ch == "@" and i > 0:
            out.append(
                "<!-- -->@"
            )  # GFM links e-mail addresses past any escape; a comment splits them
        else:
            out.append(ch)
    escaped = "".join(out)
    if line_start or cell_start:
        if escaped.startswith(" "):
            # Leading spaces would make an indented code block (or be trimmed from a table
            # cell); a character reference does neither.
            escaped = "&#32;" + escaped[1:]
        elif line_start and (m := _LINE_START.match(escaped)) is not None:
            # "-", "+", "=", "1." and "1)" at a line start make lists or headings.
            escaped = escaped[: m.end() - 1] + "\\" + escaped[m.end() - 1 :]
    return escaped


def _markdown_code(text: str, *, table: bool) -> str:
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = text[:1] == "`" or text[-1:] == "`" or (text[:1] == text[-1:] == " " and text.strip())
    body = f" {text} " if pad else text
    if table:
        body = body.replace("|", "\\|")  # GFM splits cells before it parses code spans
    return f"{fence}{body}{fence}"


def markdown_spans(
    spans: Iterable[Span], *, table: bool = False, line_start: bool | None = None
) -> str:
    """Markdown of spans; the text of every span renders exactly as written.

    ``table=True`` for a cell of a GFM table (``|`` is escaped inside code spans too);
    ``line_start`` (default: not in a table) guards list and heading markers at the start.
    """
    if line_start is None:
        line_start = not table
    spans = [s for s in spans if s.text]
    out = []
    for i, s in enumerate(spans):
        if s.style == "code":
            out.append(_markdown_code(s.text, table=table))
            continue
        text = _markdown_text(s.text, line_start=i == 0 and line_start, cell_start=i == 0 and table)
        if table and i == len(spans) - 1 and text.endswith(" "):
            text = text[:-1] + "&#32;"  # GFM trims cells; a character reference survives
        out.append(f"**{text}**" if s.style == "strong" else text)
    return "".join(out)


def markdown_code_block(text: str, info: str = "text") -> str:
    """A fenced code block whose fence no line of ``text`` can close."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{visible(text.rstrip(), keep_newlines=True)}\n{fence}"


# --- Terminal (rich) and plain text -----------------------------------------------------

_RICH_STYLE = {"strong": "bold", "code": "cyan"}


def rich_spans(spans: Iterable[Span]):
    """A ``rich.text.Text`` of spans: styles come from the spans, never from rich markup."""
    from rich.text import Text

    text = Text()
    for s in spans:
        text.append(s.text, style=_RICH_STYLE.get(s.style, ""))
    return text


def plain_spans(spans: Iterable[Span]) -> str:
    """The text of spans with no styling (for figure text, which is drawn literally)."""
    return "".join(s.text for s in spans)


# --- CSV ----------------------------------------------------------------------------------

_FORMULA_START = tuple("=+-@\t\r")


def _csv_cell(value: object) -> str:
    text = str(value)
    if text.startswith(_FORMULA_START):
        try:
            float(text)
        except ValueError:
            # A spreadsheet would run "=HYPERLINK(...)" as a formula; a leading quote keeps it text.
            return "'" + text
    return text


def csv_text(headers: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    """CSV text (quoted where needed), with cells a spreadsheet would run as formulas defused.

    A text cell that starts with ``= + - @``, a tab or a carriage return and is not a
    number gets a leading ``'`` (the OWASP advice for CSV injection); every other cell is
    written exactly.
    """
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow([_csv_cell(h) for h in headers])
    writer.writerows([_csv_cell(c) for c in row] for row in rows)
    return buf.getvalue()
