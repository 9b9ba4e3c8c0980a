"""What every reproduction shares: where it writes, how it names its command, paper tables.

A reproduction writes ``<out>/<paper>.md`` (and, when its detail would make the page long,
``<out>/<paper>_appendix.md``) and its data files (raw results, figures) under
``<out>/<paper>/``. ``<out>`` is the user's ``--out`` directory, by default a new folder
``widefs-<paper>`` in the current directory; the repository's ``docs/results`` pages are
produced with ``--out docs/results``. The numbers a paper prints live in
``widefs_reproduce/papers/<paper>.json`` (data, not code), read by :func:`paper_tables`.
"""

from __future__ import annotations

import argparse
import json
import shlex
from functools import cache
from importlib import resources
from pathlib import Path

__all__ = ["add_out_argument", "command_line", "output_paths", "paper_tables"]


def add_out_argument(parser: argparse.ArgumentParser, paper: str) -> None:
    """Add ``--out DIR`` (default: ``./widefs-<paper>``) to a reproduction's parser."""
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        help=f"output directory for {paper}.md and its data folder {paper}/ "
        f"(default: ./widefs-{paper}, created if missing)",
    )


def output_paths(paper: str, out: Path | str | None) -> tuple[Path, Path]:
    """Create and return ``(page, data_dir)``: ``<out>/<paper>.md`` and ``<out>/<paper>/``.

    Parameters
    ----------
    paper : str
        Name of the reproduction (``"palatucci2008"``, ...).
    out : path or None
        Output directory; None means ``widefs-<paper>`` in the current directory.

    Returns
    -------
    page, data_dir : Path

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     page, data = output_paths("soares2010", Path(tmp) / "results")
    ...     print(page.name, data.name, data.is_dir())
    soares2010.md soares2010 True
    """
    root = Path.cwd() / f"widefs-{paper}" if out is None else Path(out)
    if root.exists() and not root.is_dir():
        raise ValueError(f"--out {root} exists and is not a directory")
    data_dir = root / paper
    data_dir.mkdir(parents=True, exist_ok=True)
    return root / f"{paper}.md", data_dir


def command_line(paper: str, argv) -> str:
    """The shell command that reproduces a page: ``widefs reproduce PAPER ARGS``.

    ``--render-only`` is left out: a page rendered from stored results is the page the
    full command writes, so its header names the full command.

    Examples
    --------
    >>> command_line("shah2010", ["--reps", "20", "--out", "docs/results", "--render-only"])
    'widefs reproduce shah2010 --reps 20 --out docs/results'
    """
    args = [str(a) for a in argv if a != "--render-only"]
    return shlex.join(["widefs", "reproduce", paper, *args])


@cache
def _load(paper: str) -> dict:
    text = resources.files("widefs_reproduce").joinpath("papers", f"{paper}.json").read_text()
    data = json.loads(text)
    for key in ("source", "tables"):
        if key not in data:
            raise ValueError(f"papers/{paper}.json lacks the field {key!r}")
    return data


def paper_tables(paper: str) -> dict:
    """The numbers the paper prints, as shipped in ``papers/<paper>.json``.

    Returns a fresh copy, so callers may modify it.

    Examples
    --------
    >>> tables = paper_tables("palatucci2008")
    >>> tables["tables"]["example_4_1"]["printed"]
    '80%'
    """
    return json.loads(json.dumps(_load(paper)))
