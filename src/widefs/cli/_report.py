"""Report assembly: sections of markdown, tables and figures, written atomically."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["Report", "Section", "md_table"]


def md_table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """A GitHub-flavoured markdown table."""
    out = ["| " + " | ".join(map(str, headers)) + " |", "|" + "---|" * len(headers)]
    out += ["| " + " | ".join(str(c).replace("|", "\\|") for c in row) + " |" for row in rows]
    return "\n".join(out)


@dataclass
class Section:
    """One part of the report: markdown text, figures (file name -> Figure), extra files."""

    title: str
    markdown: str = ""
    figures: dict = field(default_factory=dict)
    files: dict[str, str] = field(default_factory=dict)


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
            parts += [f"## {sec.title}", "", sec.markdown.strip(), ""]
            parts += [f"![{name}]({name})\n" for name in sec.figures]
        return "\n".join(parts).rstrip() + "\n"

    def write(self, out_dir: Path) -> list[Path]:
        """Render everything into a temporary directory, then move it into ``out_dir``.

        Nothing is written to ``out_dir`` unless every file rendered, so a failure never
        leaves a half-written report behind.
        """
        out_dir = Path(out_dir)
        parent = out_dir.resolve().parent
        parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=parent, prefix=".widefs-report-") as tmp:
            tmp_path = Path(tmp)
            for sec in self.sections:
                for name, fig in sec.figures.items():
                    fig.savefig(tmp_path / name, dpi=110)
                for name, text in sec.files.items():
                    (tmp_path / name).write_text(text)
            (tmp_path / "report.md").write_text(self.markdown())
            out_dir.mkdir(exist_ok=True)
            written = []
            for item in sorted(tmp_path.iterdir()):
                target = out_dir / item.name
                if target.is_dir():
                    shutil.rmtree(target)
                item.replace(target)
                written.append(target)
        return written
