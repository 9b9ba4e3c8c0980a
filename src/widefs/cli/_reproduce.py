"""``widefs reproduce PAPER``: find an installed paper reproduction and run it.

The reproductions are a separate package of the distribution (``widefs_reproduce``), found
through the ``widefs.reproductions`` entry points, so the library never imports them.
``importlib.metadata`` is imported only when ``reproduce`` runs or its help is shown.
"""

from __future__ import annotations

from widefs.exceptions import DataError

__all__ = ["GROUP", "INSTALLED", "run"]

GROUP = "widefs.reproductions"
MISSING = (
    "no paper reproductions are installed (they ship with widefs as the widefs_reproduce "
    "package: reinstall widefs, e.g. `pip install --force-reinstall widefs`)"
)


def _entry_points() -> dict:
    from importlib.metadata import entry_points

    return {ep.name: ep for ep in entry_points(group=GROUP)}


class _Installed:
    """The installed papers, looked up on first use (``choices`` of the PAPER argument).

    With none installed every name is accepted, so that :func:`run` can say in one line
    what to install instead of argparse listing an empty choice.
    """

    def __contains__(self, name) -> bool:
        found = _entry_points()
        return not found or name in found

    def __iter__(self):
        return iter(sorted(_entry_points()))


INSTALLED = _Installed()


def run(paper: str, argv) -> int:
    """Run the reproduction ``paper`` with its own arguments ``argv``; its exit status."""
    found = _entry_points()
    if paper not in found:
        raise DataError(MISSING if not found else f"unknown paper {paper!r}")
    try:
        return found[paper].load()(list(argv))
    except ValueError as exc:
        # The reproductions say what is wrong with their options and stored tasks in a
        # ValueError (e.g. "--render-only: 2 task(s) not stored under ..."): one line.
        text = str(exc).strip()
        line = text.splitlines()[0] if text else type(exc).__name__
        raise DataError(f"reproduce {paper}: {line}") from exc
