"""Report assembly: sections of prose, tables, code and figures, rendered to markdown, HTML and
the terminal from one description, and written atomically without touching the inputs.

Every text a block holds is either literal (a ``str``: data or a number, shown as written) or
:class:`~widefs.cli._markup.Markup` (prose from this package with literal fields); the blocks
never build markup by concatenating strings, they hand spans to the one renderer per medium in
:mod:`widefs.cli._markup`. A new block type renders safely by doing the same.
"""

from __future__ import annotations

import base64
import html
import io
import re
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from widefs.cli._guard import (
    OUTPUT_FILES,
    OUTPUT_PATTERNS,
    check_output_dir,
    is_output_name,
    write_files,
)
from widefs.cli._markup import (
    Inline,
    Markup,
    Span,
    html_spans,
    markdown_code_block,
    markdown_spans,
    plain_spans,
    rich_spans,
    spans_of,
    visible,
)

__all__ = [
    "FULL_LIST_MAX",
    "OUTPUT_FILES",
    "OUTPUT_PATTERNS",
    "Code",
    "Figure",
    "Note",
    "Report",
    "Section",
    "Table",
    "Text",
    "check_output_dir",
]

FULL_LIST_MAX = 2000  # rows of a long table listed in the HTML report's collapsed full list
_SAFE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*\Z")


@dataclass
class Text:
    """Prose: a :class:`Markup` (paragraphs, bullets, bold, code) or a literal ``str``."""

    text: Markup | str

    def _blocks(self):
        if isinstance(self.text, Markup):
            return self.text.blocks
        return [("p", spans_of(self.text))]

    def markdown(self) -> str:
        parts = []
        for kind, block in self._blocks():
            if kind == "p":
                parts.append(markdown_spans(block))
            else:
                parts.append("\n".join("- " + markdown_spans(item) for item in block))
        return "\n\n".join(parts)

    def html(self) -> str:
        parts = []
        for kind, block in self._blocks():
            if kind == "p":
                parts.append(f"<p>{html_spans(block)}</p>")
            else:
                parts.append("<ul>" + "".join(f"<li>{html_spans(i)}</li>" for i in block) + "</ul>")
        return "\n".join(parts)

    def rich(self):
        return None  # prose is for the report; the terminal shows tables and models


@dataclass
class Note:
    """A caveat the reader must not miss: one paragraph, in the report and in the terminal."""

    text: Inline

    def markdown(self) -> str:
        return "> **Note:** " + markdown_spans(spans_of(self.text), line_start=False)

    def html(self) -> str:
        return f'<p class="note"><strong>Note:</strong> {html_spans(spans_of(self.text))}</p>'

    def rich(self):
        from rich.text import Text as RichText

        return RichText("Note: ", style="bold yellow") + rich_spans(spans_of(self.text))


@dataclass
class Code:
    """Preformatted literal text (a rule list, a model description), shown as is.

    ``text`` is one ``str`` whose line breaks are kept, or a sequence of logical lines: each
    is shown on one line, a line break inside it (from a name or a label) escaped as ``\\n``
    like everywhere else, so that data cannot break a rule box or fake a line of it.
    """

    text: str | Sequence[str]

    def _literal(self) -> str:
        if isinstance(self.text, str):
            return visible(self.text.rstrip(), keep_newlines=True)
        return "\n".join(visible(line) for line in self.text).rstrip()

    def markdown(self) -> str:
        return markdown_code_block(self._literal())

    def html(self) -> str:
        return f"<pre>{html.escape(self._literal())}</pre>"

    def rich(self):
        from rich.panel import Panel
        from rich.text import Text as RichText

        return Panel(RichText(self._literal()), expand=False)


@dataclass
class Table:
    """A table of literal cells (or one-paragraph :class:`Markup`).

    ``terminal_rows`` limits what the terminal shows (None: all, 0: none);
    ``terminal_columns`` picks the columns it shows. ``top`` limits the rows the report shows
    (None: all); the rest are said to be elsewhere by ``more`` (e.g. "all rows are in
    features.csv") and, in the HTML report, listed in a collapsed ``<details>`` element (up to
    :data:`FULL_LIST_MAX` rows).
    """

    headers: Sequence[Inline]
    rows: Sequence[Sequence[object]]
    title: Inline = ""
    terminal_rows: int | None = None
    terminal_columns: Sequence[int] | None = None
    top: int | None = None
    more: Inline = ""
    total_rows: int | None = None  # when ``rows`` holds only the first rows of a longer table

    def _shown(self):
        return self.rows if self.top is None else self.rows[: self.top]

    def _total(self) -> int:
        return len(self.rows) if self.total_rows is None else self.total_rows

    def _truncated(self) -> bool:
        return self.top is not None and self._total() > self.top

    def markdown(self) -> str:
        def line(cells):
            return "| " + " | ".join(markdown_spans(spans_of(c), table=True) for c in cells) + " |"

        caption = f"**{markdown_spans(spans_of(self.title))}**\n\n" if self.title else ""
        rule = "|" + "---|" * len(self.headers)
        text = caption + "\n".join([line(self.headers), rule, *map(line, self._shown())])
        if self._truncated():
            text += "\n\n" + markdown_spans(
                [Span(f"The top {self.top} of {self._total()} rows. "), *spans_of(self.more)]
            )
        return text

    def _html_table(self, rows, caption: str) -> str:
        head = "".join(f"<th>{html_spans(spans_of(h))}</th>" for h in self.headers)
        body = "".join(
            "<tr>" + "".join(f"<td>{html_spans(spans_of(c))}</td>" for c in row) + "</tr>"
            for row in rows
        )
        return f"<table>{caption}<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"

    def html(self) -> str:
        caption = f"<caption>{html_spans(spans_of(self.title))}</caption>" if self.title else ""
        out = self._html_table(self._shown(), caption)
        if self._truncated():
            listed = self.rows[:FULL_LIST_MAX]
            total = self._total()
            shown = (
                f"all {total} rows"
                if len(listed) == total
                else f"the first {len(listed)} of {total} rows"
            )
            out += (
                f'<p class="more">{html_spans([Span(f"The top {self.top} of {total} rows. ")])}'
                f"{html_spans(spans_of(self.more))}</p>"
                f"<details><summary>Full list ({html_spans([Span(shown)])})</summary>"
                f"{self._html_table(listed, '')}</details>"
            )
        return out

    def rich(self):
        if self.terminal_rows == 0:
            return None
        cols = range(len(self.headers)) if self.terminal_columns is None else self.terminal_columns
        rows = self.rows if self.terminal_rows is None else self.rows[: self.terminal_rows]
        return _FittedTable(self, list(cols), rows)


def _longest_word(cell) -> int:
    words = plain_spans(spans_of(cell)).split()
    return max((len(w) for w in words), default=0)


def _longest_line(cell) -> int:
    return max((len(line) for line in plain_spans(spans_of(cell)).splitlines()), default=0)


def _share(low: list[int], high: list[int], room: int) -> list[int]:
    """Widths between ``low`` and ``high`` summing to at most ``room`` (at least ``low``):
    each column gets its longest word, the space left goes to the columns in proportion to
    what they lack.

    Examples
    --------
    >>> _share([5, 3], [20, 3], 12), _share([5, 3], [6, 4], 40)
    ([9, 3], [6, 4])
    """
    if sum(high) <= room:
        return list(high)
    spare, want = room - sum(low), [h - lo for lo, h in zip(low, high, strict=True)]
    widths = [lo + max(spare, 0) * w // max(sum(want), 1) for lo, w in zip(low, want, strict=True)]
    for i in sorted(range(len(widths)), key=lambda i: widths[i] - high[i]):
        if sum(widths) < room and widths[i] < high[i]:
            widths[i] += 1
    return widths


# Each column of a rich table adds its padding and a rule (3 characters), the table one rule.
_PADDING, _RULES = 2, 1


@dataclass
class _FittedTable:
    """A table for the terminal that wraps its cells at word boundaries only: where the
    columns' longest words do not fit the width together, the last columns are left out
    (named under the table; the report has them all)."""

    table: Table
    columns: list
    rows: Sequence

    def _measure(self, measure) -> dict:
        heads = self.table.headers
        return {
            c: max([measure(heads[c]), *(measure(r[c]) for r in self.rows)]) for c in self.columns
        }

    def _fitting(self, width: int) -> tuple[list, list | None]:
        """The columns that fit at word boundaries, and their content widths (None: rich's)."""
        low, high = self._measure(_longest_word), self._measure(_longest_line)
        kept = list(self.columns)

        def room():
            return width - (_PADDING + _RULES) * len(kept) - _RULES

        while len(kept) > 2 and sum(low[c] for c in kept) > room():
            kept.pop()
        if sum(high[c] for c in kept) <= room():
            return kept, None
        # rich would narrow the widest columns below their longest word: set the widths.
        return kept, _share([low[c] for c in kept], [high[c] for c in kept], room())

    def __rich_console__(self, console, options):
        from rich.table import Table as RichTable

        kept, widths = self._fitting(options.max_width)
        left_out = [plain_spans(spans_of(self.table.headers[c])) for c in self.columns[len(kept) :]]
        title = self.table.title
        table = RichTable(
            title=rich_spans(spans_of(title)) if title else None,
            caption=f"not shown at this width: {', '.join(left_out)} (see report.md)"
            if left_out
            else None,
        )
        for i, c in enumerate(kept):
            # A single word wider than the terminal is folded rather than cut: "Hsa.692.1" and
            # "Hsa.692.2" must not both show as "Hsa.692…". rich's width includes the padding.
            table.add_column(
                rich_spans(spans_of(self.table.headers[c])),
                overflow="fold",
                width=None if widths is None else max(widths[i], 1) + _PADDING,
            )
        for row in self.rows:
            table.add_row(*(rich_spans(spans_of(row[c])) for c in kept))
        yield table


_PNG_DPI = 110


@dataclass
class Figure:
    """A matplotlib figure saved as ``name`` (PNG) and embedded in the HTML report.

    Draw it inside :func:`widefs.plotting.literal_text` (``widefs run`` does), so that no text
    on it is read as mathtext.
    """

    name: str
    figure: object
    caption: Inline = ""

    def png_bytes(self) -> bytes:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.image import imsave

        from widefs.plotting import literal_text

        buf = io.BytesIO()
        with literal_text(), warnings.catch_warnings():
            # A name in a script the font lacks is drawn as boxes; the report shows it as text.
            warnings.filterwarnings("ignore", message="Glyph .* missing from", category=UserWarning)
            # What savefig(format="png") does, with one draw instead of two (savefig runs a
            # layout-only draw first; the figures' constrained layout is half their cost).
            self.figure.set_dpi(_PNG_DPI)
            canvas = FigureCanvasAgg(self.figure)
            canvas.draw()
            imsave(buf, canvas.buffer_rgba(), format="png", dpi=_PNG_DPI)
        return buf.getvalue()

    def markdown(self) -> str:
        alt = markdown_spans(spans_of(self.caption or self.name), line_start=False)
        return f"![{alt}]({self.name})"

    def html(self, png: bytes) -> str:
        data = base64.b64encode(png).decode("ascii")
        alt = html.escape(plain_spans(spans_of(self.caption or self.name)), quote=True)
        cap = (
            f"<figcaption>{html_spans(spans_of(self.caption))}</figcaption>" if self.caption else ""
        )
        return f'<figure><img alt="{alt}" src="data:image/png;base64,{data}">{cap}</figure>'


@dataclass
class Section:
    """One part of the report: blocks in order, plus extra files (name -> text)."""

    title: Inline
    blocks: list = field(default_factory=list)
    files: dict[str, str] = field(default_factory=dict)

    def add(self, block):
        self.blocks.append(block)
        return block


_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222;line-height:1.45}
h1{border-bottom:2px solid #345;padding-bottom:.3em}h2{margin-top:2em;color:#234}
table{border-collapse:collapse;margin:1em 0;font-size:.9em}th,td{border:1px solid #ccc;padding:.25em .6em;text-align:left}
th{background:#eef2f6}caption{font-weight:bold;text-align:left;padding:.3em 0}
figure{margin:1em 0}img{max-width:100%;border:1px solid #ddd}figcaption{font-size:.85em;color:#555}
.note{background:#fff8e1;border-left:4px solid #e0a800;padding:.4em .8em}
code{background:#f3f3f3;padding:0 .2em}details{margin:.2em 0 1em}summary{cursor:pointer;color:#234}.more{font-size:.9em;color:#444}pre{background:#f6f8fa;padding:.6em;overflow-x:auto;font-size:.85em}nav ul{columns:2}
"""
# No script, no external resource: the page is static and opens offline.
_CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"


@dataclass
class Report:
    title: Inline
    intro: Markup | str = ""
    sections: list[Section] = field(default_factory=list)

    def add(self, section: Section) -> Section:
        self.sections.append(section)
        return section

    def markdown(self) -> str:
        parts = [f"# {markdown_spans(spans_of(self.title))}", "", Text(self.intro).markdown(), ""]
        for sec in self.sections:
            parts += [f"## {markdown_spans(spans_of(sec.title))}", ""]
            for block in sec.blocks:
                parts += [block.markdown(), ""]
        return "\n".join(parts).rstrip() + "\n"

    def html(self, pngs: dict[str, bytes]) -> str:
        toc = "".join(
            f'<li><a href="#s{i}">{html_spans(spans_of(s.title))}</a></li>'
            for i, s in enumerate(self.sections)
        )
        body = [
            f"<h1>{html_spans(spans_of(self.title))}</h1>",
            Text(self.intro).html(),
            f"<nav><ul>{toc}</ul></nav>",
        ]
        for i, sec in enumerate(self.sections):
            body.append(f'<section><h2 id="s{i}">{html_spans(spans_of(sec.title))}</h2>')
            for block in sec.blocks:
                body.append(
                    block.html(pngs[block.name]) if isinstance(block, Figure) else block.html()
                )
            body.append("</section>")
        title = html.escape(plain_spans(spans_of(self.title)), quote=True)
        return (
            '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">'
            f"<title>{title}</title><style>{_CSS}</style></head>"
            "<body>\n" + "\n".join(body) + "\n</body></html>\n"
        )

    def _files(self) -> dict[str, bytes | str]:
        files: dict[str, bytes | str] = {}
        pngs: dict[str, bytes] = {}
        for sec in self.sections:
            for block in sec.blocks:
                if isinstance(block, Figure):
                    pngs[block.name] = files[block.name] = block.png_bytes()
            files.update(sec.files)
        files["report.md"] = self.markdown()
        files["report.html"] = self.html(pngs)
        for name in files:
            if not (_SAFE_NAME.match(name) and is_output_name(name)):
                raise ValueError(
                    f"report file {name!r} is not declared in OUTPUT_FILES/OUTPUT_PATTERNS"
                )
        return files

    def write(self, out_dir: Path, *, inputs: Sequence[Path] = ()) -> list[Path]:
        """Render everything, then move the files into ``out_dir``; never replace an input.

        Nothing is written to ``out_dir`` unless every file rendered, so a failure never
        leaves a half-written report behind. ``report.html`` embeds its figures and opens
        offline; ``report.md`` links the PNG files beside it. The files of an earlier report
        in ``out_dir`` are replaced or removed, nothing else there is touched (see
        :func:`widefs.cli._guard.write_files`); :func:`check_output_dir` runs again first.
        """
        check_output_dir(Path(out_dir), inputs)
        return write_files(Path(out_dir), self._files(), inputs)
