"""Shared helpers for benchmark scripts: timing, peak memory and the results pages.

``docs/results/benchmarks.md`` is rendered from stored results, never edited: each script
stores its section as data in ``docs/results/benchmarks/<name>.json`` (the title, text
blocks and tables as rows of cells, plus a one-line headline for the page's verdict), then
the whole page is rendered again from every stored section. ``python benchmarks/_report.py``
renders the page from the stored sections alone, computing nothing; a test checks the
committed page is exactly that.

``docs/results/benchmarks_scale.md`` and ``docs/results/scm_multiclass.md`` are rendered
the same way (:data:`PAGES`). ``docs/certificates.md`` keeps its measured section between
``<!-- section: NAME -->`` markers (``write_section`` with a ``path``).
"""

from __future__ import annotations

import fcntl
import json
import os
import platform
import re
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "docs" / "results" / "benchmarks.md"
STORE = RESULTS.with_suffix("")  # docs/results/benchmarks/<name>.json


class Page(NamedTuple):
    """A page rendered from stored sections: its title, its introduction, its sections in
    order, and those whose headline enters its verdict."""

    path: Path
    title: str
    intro: str
    sections: tuple[str, ...]
    verdict: tuple[str, ...]


_STORED = (
    "A section marked *stored* was not re-run on the current code: its numbers are those of "
    "the command's last run."
)
PAGES = (
    Page(
        RESULTS,
        "Benchmarks: widefs against peer libraries",
        "widefs timed against peer libraries side by side in one run, on the same task, with "
        "the answers compared (ratio = peer / widefs). Each section names the command that "
        "measures it; the command stores its numbers in `benchmarks/<section>.json` beside "
        f"this page and renders the pages again. {_STORED} Scale and memory: "
        "[benchmarks at scale](benchmarks_scale.md).",
        (
            "discriminative",
            "discriminative_null",
            "search",
            "cn2",
            "scm",
            "fresh_screen",
            "certificate",
            "certificate-calibration",
        ),
        ("discriminative", "search", "cn2", "scm", "fresh_screen"),
    ),
    Page(
        RESULTS.with_name("benchmarks_scale.md"),
        "Benchmarks at scale: time and memory on large inputs",
        "Fits on matrices up to 100 x 100,000,000, in memory and out of "
        "core, a sparse 100,000 x 30,000 count matrix, and the command line's default "
        "analysis. Each section names the command that measures it; the numbers are stored "
        f"in `benchmarks/<section>.json`. {_STORED} Against peer libraries: "
        "[benchmarks](benchmarks.md).",
        (
            "scaling",
            "scaling_null",
            "screen_scale",
            "screen_huge",
            "sparse_screen",
            "cli_colon",
            "cli_scale",
            "cli_scale_large",
            "read",
        ),
        ("scaling", "screen_scale", "cli_colon", "cli_scale_large"),
    ),
    Page(
        RESULTS.with_name("scm_multiclass.md"),
        "Set Covering Machines: tumour subtypes and genomes",
        "Multiclass decision lists of Set Covering Machines (how they and their bound work: "
        "[docs/methods/scm.md](../methods/scm.md)) on synthetic and real data, and the "
        "presence/absence path on a synthetic k-mer task. Each section names the command "
        "that measures it; the numbers are stored in `benchmarks/<section>.json`.",
        ("multiclass_validity", "multiclass_real", "kmer_task", "scm_presence"),
        ("multiclass_validity", "multiclass_real", "kmer_task", "scm_presence"),
    ),
)


def machine_note() -> str:
    """One line describing where the numbers were measured."""
    threads = os.environ.get("OMP_NUM_THREADS", "unset")
    # Other jobs on the machine inflate wall and CPU times alike (shared caches and
    # memory bandwidth): the load at the start says how busy it was.
    load = os.getloadavg()[0]
    return (
        f"Measured on {platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}, OMP_NUM_THREADS={threads}, load average "
        f"{load:.1f} at the start."
    )


def median_time(fn: Callable[[], object], repeat: int = 3) -> tuple[float, object]:
    """Median wall-clock seconds of ``fn()`` over ``repeat`` calls, and the last result."""
    times, result = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), result


# ------------------------------------------------------------------ sections as data


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip()[1:-1].split("|")]


def parse_section(markdown: str) -> dict:
    """A section's markdown (``## title``, paragraphs, tables) as data: the title and a list
    of blocks, each ``{"text": ...}`` or ``{"table": {"columns": [...], "rows": [[...]]}}``.

    Examples
    --------
    >>> s = parse_section("## T\\n\\nSome text.\\n\\n| a | b |\\n|---|---|\\n| 1 | 2 |")
    >>> s["title"], s["blocks"][1]["table"]["rows"]
    ('T', [['1', '2']])
    """
    lines = markdown.strip().splitlines()
    if not lines or not lines[0].startswith("## "):
        raise ValueError("a section starts with its '## ' title")
    blocks, text, table = [], [], None
    for line in [*lines[1:], ""]:
        if line.startswith("|"):
            if text:
                blocks.append({"text": "\n".join(text)})
                text = []
            if table is None:
                table = {"columns": _cells(line), "rows": []}
            elif not re.fullmatch(r"\|(\s*:?-+:?\s*\|)+", line.strip()):
                table["rows"].append(_cells(line))
            continue
        if table is not None:
            blocks.append({"table": table})
            table = None
        if line.strip():
            text.append(line)
        elif text:
            blocks.append({"text": "\n".join(text)})
            text = []
    return {"title": lines[0][3:].strip(), "blocks": blocks}


def render_section(section: dict) -> str:
    """The markdown of a stored section (the inverse of :func:`parse_section`)."""
    out = [f"## {section['title']}"]
    if section.get("stored"):
        out.append("*Stored* (from the command's last run; not re-run on the current code).")
    for block in section["blocks"]:
        if "text" in block:
            out.append(block["text"])
            continue
        t = block["table"]
        rows = [t["columns"], *t["rows"]]
        lines = ["| " + " | ".join(r) + " |" for r in rows]
        lines.insert(1, "|" + "---|" * len(t["columns"]))
        out.append("\n".join(lines))
    return "\n\n".join(out)


def stored_sections(store: Path | None = None) -> dict[str, dict]:
    """Every stored section, by name (``store``: default ``STORE``)."""
    files = sorted((store or STORE).glob("*.json"))
    return {p.stem: json.loads(p.read_text()) for p in files}


def render_page(page: Page, sections: dict[str, dict]) -> str:
    """A page: title, verdict (its listed sections' headlines), introduction, sections."""
    heads = [sections[n]["headline"] for n in page.verdict if sections.get(n, {}).get("headline")]
    joined = "; ".join(heads)
    verdict = f"**Verdict.** {joined[:1].upper()}{joined[1:]}." if heads else ""
    body = [render_section(sections[n]) for n in page.sections if n in sections]
    return "\n\n".join(p for p in [f"# {page.title}", verdict, page.intro, *body] if p) + "\n"


def render_pages(store: Path | None = None) -> dict[Path, str]:
    """Every page's text from the stored sections; a stored section no page lists is an error."""
    sections = stored_sections(store)
    orphans = set(sections) - {n for page in PAGES for n in page.sections}
    if orphans:
        raise ValueError(f"stored sections on no page: {sorted(orphans)}")
    return {page.path: render_page(page, sections) for page in PAGES}


def store_section(name: str, markdown: str, *, headline: str | None = None):
    """Store section ``name`` as data and render the pages again, under a lock."""
    section = parse_section(markdown)
    if headline:
        section["headline"] = headline
    STORE.mkdir(parents=True, exist_ok=True)
    with open(RESULTS.with_suffix(".lock"), "w") as lock:  # ignored by git
        fcntl.flock(lock, fcntl.LOCK_EX)
        (STORE / f"{name}.json").write_text(json.dumps(section, indent=1) + "\n")
        for path, text in render_pages().items():
            path.write_text(text)


def write_section(name: str, markdown: str, path: Path = RESULTS, *, headline=None) -> None:
    """Store section ``name``: on the benchmarks page as data (:func:`store_section`), on
    another page between its ``<!-- section: NAME -->`` markers, under a file lock."""
    if path == RESULTS:
        store_section(name, markdown, headline=headline)
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    begin, end = f"<!-- section: {name} -->", f"<!-- end section: {name} -->"
    block = f"{begin}\n{markdown.strip()}\n{end}"
    with open(path.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        text = path.read_text() if path.exists() else f"# {path.stem}\n"
        pattern = re.compile(re.escape(begin) + r".*?" + re.escape(end), flags=re.S)
        text = (
            pattern.sub(lambda _: block, text)
            if pattern.search(text)
            else text.rstrip() + "\n\n" + block + "\n"
        )
        path.write_text(text)


if __name__ == "__main__":
    # The pages from the stored sections alone: `python benchmarks/_report.py`.
    for path, text in render_pages().items():
        path.write_text(text)
        print(f"wrote {path.relative_to(ROOT)}")
    sys.exit(0)
