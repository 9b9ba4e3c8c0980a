"""Sample ids that name the same samples though written differently.

A sample sheet and a data table written by different tools may spell the same id in
another case, or through R's ``make.names`` (``read.csv`` / ``data.frame`` turn a column
named ``1001`` into ``X1001`` and ``S-01`` into ``S.01``). Ids match exactly first; when some
do not, they match by a key that ignores case and those changes, provided the key is unique
on both sides, and the run notes it.
"""

from __future__ import annotations

import re

import numpy as np

__all__ = ["id_key", "match_ids", "renamed_ids_note"]

_NOT_NAME = re.compile(r"[^0-9a-z._]")


def id_key(text: str) -> str:
    """A sample id as R's ``make.names`` and case would leave it, without the ``X``.

    Examples
    --------
    >>> [id_key(s) for s in ("X1001", "1001", "S-01", "s.01", "Xist")]
    ['1001', '1001', 's.01', 's.01', 'xist']
    """
    key = _NOT_NAME.sub(".", str(text).strip().casefold())
    if (key[:1] == "x" and key[1:2].isdigit()) or key[:2] == "x.":
        key = key[1:]
    return key


def match_ids(ids, label_ids) -> np.ndarray:
    """Each of ``ids``' row in ``label_ids`` (-1 where none; the first row of a repeated id):
    exactly, else by :func:`id_key` if that matches more."""
    exact = _positions(ids, label_ids, str)
    if (exact >= 0).all():
        return exact
    keys = [id_key(i) for i in label_ids]
    if not (_unique(keys) and _unique([id_key(i) for i in ids])):
        return exact
    loose = _positions(ids, label_ids, id_key)
    return loose if (loose >= 0).sum() > (exact >= 0).sum() else exact


def _positions(ids, label_ids, key) -> np.ndarray:
    first: dict[str, int] = {}
    for k, value in enumerate(label_ids):
        first.setdefault(key(value), k)
    return np.array([first.get(key(i), -1) for i in ids], dtype=np.intp)


def _unique(values) -> bool:
    return len(set(values)) == len(values)


def renamed_ids_note(ids, label_ids, position: np.ndarray) -> str | None:
    """A note when some ids matched only up to case or R's renaming, with an example."""
    for mine, k in zip(ids, position, strict=True):
        if k >= 0 and str(label_ids[k]) != str(mine):
            return (
                "sample ids matched ignoring case and R's make.names changes (an X before a "
                f"leading digit, '.' for other characters): e.g. {str(mine)!r} = "
                f"{str(label_ids[k])!r}"
            )
    return None
