"""Presence/absence stores for ``widefs run``: a zarr group read where it lies, never loaded whole.

Layout (a directory, made for instance with ``zarr.open_group(path, mode="w")``):

- ``X``: samples x features, booleans or integers (0/1 for presence/absence, e.g. k-mers of
  genomes), chunked along the features (for instance ``chunks=(n_samples, 65536)``);
- the labels: a 1-D array of strings or integers, one per sample, named like the target
  (``class`` unless ``--target`` says otherwise);
- ``feature_names`` (optional): a 1-D array of strings, one per feature (default ``x<j>``).

Such data have millions of features: ``widefs run`` runs the Set Covering Machines on it
(packed in bits, 200 x 10,000,000 in about 320 MB), whose rules name the equivalent
features; the other parts of the report need the data in memory and are left out, with a
note. Every check runs before the analysis starts (the class counts with those of any data).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from widefs.cli._markup import visible
from widefs.exceptions import DataError

__all__ = ["StoreNames", "is_store", "load_store"]


def is_store(path: Path) -> bool:
    """A directory holding a zarr group (version 2 or 3 metadata)."""
    return path.is_dir() and any((path / m).is_file() for m in ("zarr.json", ".zgroup"))


class StoreNames:
    """Feature names by index: the store's ``feature_names`` array, or ``x<j>``."""

    def __init__(self, names, n_features: int):
        self.names = names
        self.shape = (n_features,)

    def __len__(self) -> int:
        return self.shape[0]

    def __getitem__(self, j) -> str:
        j = int(j)
        if not 0 <= j < self.shape[0]:
            raise IndexError(f"feature {j} of {self.shape[0]}")
        if self.names is None:
            return f"x{j}"
        # Escaped like every name the report shows: a description is one block of text.
        return visible(str(self.names[j]))  # (StoreArray gives text as str, bytes decoded)


def _open(path: Path):
    # The store's arrays are data: their types and codecs are checked before any value is
    # read (pickle and object arrays refused in one line), in the library's one place.
    from widefs._utils import open_store

    return open_store(path)


def _array(group, name: str, path: Path, what: str, kind: str | None = None):
    """The checked array ``name`` (type and codecs before any value: widefs._utils._stores)."""
    if name not in group:
        raise DataError(f"the zarr store {path} has no array {name!r} ({what})")
    return group.array(name, kind)


def _labels(group, target: str, path: Path, n: int) -> np.ndarray:
    labels = _array(group, target, path, "the labels, one per sample")
    if tuple(labels.shape) != (n,):  # before its values are read
        raise DataError(
            f"{target!r} in {path} must hold one label per sample ({n}), got {labels.shape}"
        )
    raw = np.asarray(labels[:])
    y = np.array([str(v) for v in raw], dtype=object)
    empty = np.flatnonzero(np.char.strip(y.astype(str)) == "")
    if empty.size:
        raise DataError(f"{target!r} in {path} has {empty.size} empty labels")
    return y  # (the class counts are checked as for any data: widefs.cli.io._data)


def load_store(path: Path, target: str | None) -> dict:
    """The fields of :class:`~widefs.cli.io._data.LoadedData` for the store (``X``: the zarr array)."""
    target = "class" if target is None else target
    group = _open(path)
    X = _array(group, "X", path, "samples x features", "numeric")
    if len(X.shape) != 2 or X.shape[0] < 2 or X.shape[1] < 1:
        raise DataError(f"'X' in {path} must be samples x features, got shape {X.shape}")
    if np.dtype(X.dtype).kind not in "biu":
        raise DataError(
            f"'X' in {path} must hold booleans or integers (presence/absence), got {X.dtype}"
        )
    y = _labels(group, target, path, X.shape[0])
    names = _array(group, "feature_names", path, "") if "feature_names" in group else None
    if names is not None and tuple(names.shape) != (X.shape[1],):
        raise DataError(
            f"'feature_names' in {path} must hold one name per feature ({X.shape[1]}), "
            f"got {names.shape}"
        )
    note = (
        "a zarr store: only the Set Covering Machines run on it (packed in bits when its "
        "values are 0/1); the other parts of the report need the data in memory"
    )
    return dict(
        name=path.name,
        X=X,
        y=y,
        feature_names=StoreNames(names, X.shape[1]),
        source=f"zarr store {path}",
        imputed_columns=[],
        notes=[note],
        target=str(target),
    )
