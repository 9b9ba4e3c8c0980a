"""The columns ``--exclude`` leaves out, as the readers see them while a file is read.

A text column must be dropped before the readers check its cells as numbers, deep inside
each format's reader; rather than pass the names through every one, the run sets them for
the duration of the reading (:func:`excluding`) and each reader asks which of its columns
are excluded (:func:`take_excluded`).
"""

from __future__ import annotations

import contextlib
from contextvars import ContextVar

__all__ = ["dropped_so_far", "excluding", "take_excluded"]


class _Exclusion:
    def __init__(self, names: list[str]):
        self.names = set(names)
        self.dropped: set[str] = set()


_EXCLUDED: ContextVar[_Exclusion | None] = ContextVar("widefs_excluded", default=None)


@contextlib.contextmanager
def excluding(names: list[str]):
    """Within the block, readers leave the columns ``names`` out (see :func:`take_excluded`)."""
    token = _EXCLUDED.set(_Exclusion(names) if names else None)
    try:
        yield
    finally:
        _EXCLUDED.reset(token)


def take_excluded(names) -> set[str]:
    """Which of a reader's column ``names`` are excluded (recorded as dropped)."""
    exclusion = _EXCLUDED.get()
    if exclusion is None:
        return set()
    hit = exclusion.names & {str(n) for n in names}
    exclusion.dropped |= hit
    return hit


def dropped_so_far() -> set[str]:
    """The excluded names the readers have dropped in the current :func:`excluding` block."""
    exclusion = _EXCLUDED.get()
    return set() if exclusion is None else set(exclusion.dropped)
