"""Report assembly: sections of text, tables and figures, rendered to markdown, HTML and
the terminal from one description, and written atomically."""

from __future__ import annotations

import base64
import html
import io
import re
import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from rich.table import Table as RichTable

__all__ = ["Code", "Figure", "Report", "Section", "Table", "Text", "md_table"]


def md_table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """A GitHub-flavoured markdown table."""
    out = ["| " + " | ".join(map(str, headers)) + " |", "|" + "---|" * len(headers)]
    out += ["| " + " | ".join(str(c).replace("|", "\\|") for c in row) + " |" for row in rows]
    return "\n".join(out)


_INLINE = [
    (re.compile(r"\*\*(.+?)\*\*"), r"<strong>\1</strong>"),
    (re.compile(r"`(.+?)`"), r"<code>\1</code>"),
    (re.compile(r"\[([^\]]+)\]\(([^)]+)\)"), r'<a href="\2">\1</a>'),
]


def _inline_html(text: str) -> str:
    out = html.escape(text, quote=False)
    for pattern, repl in _INLINE:
        out = pattern.sub(repl, out)
    return out


@dataclass
class Text:
    """Paragraphs in a small markdown subset (bold, code, links, "- " bullet lists)."""

    text: str

    def markdown(self) -> str:
        return self.text.strip()

    def html(self) -> str:
        parts = []
        for para in re.split(r"\n\s*\n", self.text.strip()):
            lines = para.splitlines()
            if lines and all(line.startswith("- ") or line.startswith("  ") for line in lines):
                items, current = [], []
                for line in lines:
                    if line.startswith("- ") and current:
                        items.append(" ".join(current))
                        current = []
                    current.append(line[2:].strip() if line.startswith("- ") else line.strip())
                items.append(" ".join(current))
                parts.append(
                    "<ul>" + "".join(f"<li>{_inline_html(i)}</li>" for i in items) + "</ul>"
                )
            else:
                parts.append(f"<p>{_inline_html(' '.join(line.strip() for line in lines))}</p>")
        return "\n".join(parts)


@dataclass
class Code:
    """Preformatted text (a rule list, a model description), shown as is."""

    text: str

    def markdown(self) -> str:
        return "```text\n" + self.text.rstrip() + "\n```"

    def html(self) -> str:
        return f"<pre>{html.escape(self.text.rstrip())}</pre>"

    def rich(self):
        from rich.panel import Panel

        return Panel(self.text.rstrip(), expand=False)


@dataclass
class Table:
    """A table; ``terminal_rows`` limits what the terminal shows (None: all, 0: none)."""

    headers: Sequence[str]
    rows: Sequence[Sequence[object]]
    title: str = ""
    terminal_rows: int | None = None
    terminal_columns: Sequence[int] | None = None

    def markdown(self) -> str:
        caption = f"**{self.title}**\n\n" if self.title else ""
        return caption + md_table(self.headers, self.rows)

    def html(self) -> str:
        head = "".join(f"<th>{_inline_html(str(h))}</th>" for h in self.headers)
        body = "".join(
            "<tr>" + "".join(f"<td>{_inline_html(str(c))}</td>" for c in row) + "</tr>"
            for row in self.rows
        )
        caption = f"<caption>{_inline_html(self.title)}</caption>" if self.title else ""
        return f"<table>{caption}<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"

    def rich(self) -> RichTable | None:
        if self.terminal_rows == 0:
            return None
        cols = range(len(self.headers)) if self.terminal_columns is None else self.terminal_columns
        table = RichTable(title=self.title or None)
        for c in cols:
            table.add_column(str(self.headers[c]))
        rows = self.rows if self.terminal_rows is None else self.rows[: self.terminal_rows]
        for row in rows:
            table.add_row(*(str(row[c]) for c in cols))
        return table


@dataclass
class Figure:
    """A matplotlib figure saved as ``name`` (PNG) and embedded in the HTML report."""

    name: str
    figure: object
    caption: str = ""

    def png_bytes(self) -> bytes:
        buf = io.BytesIO()
        self.figure.savefig(buf, format="png", dpi=110)
        return buf.getvalue()

    def markdown(self) -> str:
        return f"![{self.caption or self.name}]({self.name})"

    def html(self, png: bytes) -> str:
        data = base64.b64encode(png).decode("ascii")
        cap = f"<figcaption>{_inline_html(self.caption)}</figcaption>" if self.caption else ""
        return f'<figure><img alt="{html.escape(self.caption or self.name)}" src="data:image/png;base64,{data}">{cap}</figure>'


@dataclass
class Section:
    """One part of the report: blocks in order, plus extra files (name -> text)."""

    title: str
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
code{background:#f3f3f3;padding:0 .2em}pre{background:#f6f8fa;padding:.6em;overflow-x:auto;font-size:.85em}nav ul{columns:2}
"""


@dataclass
class Report:
    title: str
    intro: str = ""
    sections: list[Section] = field(default_factory=list)

    def add(self, section: Section) -> Section:
        self.sections.append(section)
        return section

    def markdown(self) -> str:
        parts = [f"# {self.title}", "", self.intro.strip(), ""]
        for sec in self.sections:
            parts += [f"## {sec.title}", ""]
            for block in sec.blocks:
                parts += [block.markdown(), ""]
        return "\n".join(parts).rstrip() + "\n"

    def html(self, pngs: dict[str, bytes]) -> str:
        toc = "".join(
            f'<li><a href="#s{i}">{_inline_html(s.title)}</a></li>'
            for i, s in enumerate(self.sections)
        )
        body = [
            f"<h1>{_inline_html(self.title)}</h1>",
            Text(self.intro).html(),
            f"<nav><ul>{toc}</ul></nav>",
        ]
        for i, sec in enumerate(self.sections):
            body.append(f'<h2 id="s{i}">{_inline_html(sec.title)}</h2>')
            for block in sec.blocks:
                body.append(
                    block.html(pngs[block.name]) if isinstance(block, Figure) else block.html()
                )
        return (
            '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f"<title>{html.escape(self.title)}</title><style>{_CSS}</style></head>"
            "<body>\n" + "\n".join(body) + "\n</body></html>\n"
        )

    def write(self, out_dir: Path) -> list[Path]:
        """Render everything into a temporary directory, then move it into ``out_dir``.

        Nothing is written to ``out_dir`` unless every file rendered, so a failure never
        leaves a half-written report behind. ``report.html`` embeds its figures and opens
        offline; ``report.md`` links the PNG files beside it.
        """
        out_dir = Path(out_dir)
        parent = out_dir.resolve().parent
        parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=parent, prefix=".widefs-report-") as tmp:
            tmp_path = Path(tmp)
            pngs: dict[str, bytes] = {}
            for sec in self.sections:
                for block in sec.blocks:
                    if isinstance(block, Figure):
                        pngs[block.name] = block.png_bytes()
                        (tmp_path / block.name).write_bytes(pngs[block.name])
                for name, text in sec.files.items():
                    (tmp_path / name).write_text(text)
            (tmp_path / "report.md").write_text(self.markdown())
            (tmp_path / "report.html").write_text(self.html(pngs))
            out_dir.mkdir(exist_ok=True)
            written = []
            for item in sorted(tmp_path.iterdir()):
                target = out_dir / item.name
                if target.is_dir():
                    shutil.rmtree(target)
                item.replace(target)
                written.append(target)
        return written
