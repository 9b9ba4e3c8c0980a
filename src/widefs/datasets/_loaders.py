"""Loaders for the real datasets bundled with widefs (nothing is downloaded at run time)."""

from __future__ import annotations

import functools
import hashlib
import re
from importlib import resources

import numpy as np
import pandas as pd

__all__ = ["dataset_path", "list_datasets", "load_dataset", "read_manifest"]

_PACKAGE = "widefs.datasets"
TARGET_COLUMN = "class"


def _data_dir():
    return resources.files(_PACKAGE).joinpath("data")


@functools.cache
def read_manifest() -> pd.DataFrame:
    """The bundled ``MANIFEST.tsv``: sha256, rows, features and class counts of every file."""
    with _data_dir().joinpath("MANIFEST.tsv").open("r", encoding="utf-8") as fh:
        manifest = pd.read_csv(fh, sep="\t", dtype={"classes": str})
    return manifest.set_index("name")


@functools.cache
def _provenance() -> tuple[dict[str, dict[str, str]], str]:
    """Parse the provenance README into one dict per dataset plus the shared notes."""
    text = resources.files(_PACKAGE).joinpath("descr", "PROVENANCE.md").read_text(encoding="utf-8")
    lines = text.splitlines()
    header_idx = next(i for i, line in enumerate(lines) if line.startswith("| name |"))
    columns = [c.strip() for c in lines[header_idx].strip("|").split("|")]
    rows: dict[str, dict[str, str]] = {}
    for line in lines[header_idx + 2 :]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        rows[cells[0]] = dict(zip(columns, cells))
    notes_match = re.search(r"Notes for all files\n(.*?)\n\n", text, flags=re.S)
    sources_match = re.search(r"## Sources \(repository @ commit\)\n\n(.*)", text, flags=re.S)
    notes = (notes_match.group(1) if notes_match else "").strip()
    sources = (sources_match.group(1) if sources_match else "").strip()
    shared = f"Notes for all files\n{notes}\n\nSources (repository @ commit)\n{sources}"
    return rows, shared


def _check_name(name: str) -> None:
    names = read_manifest().index
    if name not in names:
        raise ValueError(f"Unknown dataset {name!r}. Available: {', '.join(sorted(names))}.")


def dataset_path(name: str):
    """Path (a ``Traversable``) of the bundled gzip CSV of dataset ``name``."""
    _check_name(name)
    return _data_dir().joinpath(read_manifest().loc[name, "file"])


def file_sha256(name: str) -> str:
    """sha256 of the bundled file of dataset ``name`` (checked against the manifest in tests)."""
    return hashlib.sha256(dataset_path(name).read_bytes()).hexdigest()


@functools.cache
def _read_frame(name: str) -> pd.DataFrame:
    with dataset_path(name).open("rb") as fh:
        # Only empty cells are missing: strings such as "None" or "NA" may be real categories.
        return pd.read_csv(
            fh,
            compression="gzip",
            dtype={TARGET_COLUMN: str},
            keep_default_na=False,
            na_values=[""],
        )


def _describe(name: str, frame: pd.DataFrame, n_dropped: int) -> str:
    rows, shared = _provenance()
    info = rows.get(name, {})
    title = f"{name} dataset"
    parts = [title, "=" * len(title), ""]
    parts += [f"{key}: {value}" for key, value in info.items() if key != "name"]
    parts.append("")
    parts.append(
        f"As loaded: {frame.shape[0]} samples x {frame.shape[1] - 1} features, "
        f"target column {TARGET_COLUMN!r}."
    )
    if n_dropped:
        parts.append(f"{n_dropped} rows with a missing class label were dropped.")
    parts += ["", shared]
    return "\n".join(parts)


def list_datasets() -> pd.DataFrame:
    """List the bundled datasets with their shapes and class counts.

    Returns
    -------
    pandas.DataFrame
        Indexed by dataset name, with columns ``n_samples``, ``n_features``,
        ``n_classes``, ``classes`` and ``group`` (microarray, UCI, ...).

    Examples
    --------
    >>> table = list_datasets()
    >>> int(table.loc["colon", "n_samples"]), int(table.loc["colon", "n_features"])
    (62, 2000)
    """
    manifest = read_manifest()
    rows, _ = _provenance()
    n_classes = [
        sum(1 for part in spec.split(", ") if not part.startswith("<missing>"))
        for spec in manifest["classes"]
    ]
    return pd.DataFrame(
        {
            "n_samples": manifest["rows"].astype(int),
            "n_features": manifest["features"].astype(int),
            "n_classes": n_classes,
            "classes": manifest["classes"],
            "group": [rows.get(name, {}).get("group", "") for name in manifest.index],
        },
        index=manifest.index,
    )


def load_dataset(
    name: str,
    *,
    return_X_y: bool = False,
    as_frame: bool = False,
    drop_missing_target: bool = True,
):
    """Load a bundled dataset.

    Parameters
    ----------
    name : str
        One of :func:`list_datasets` (e.g. ``"colon"``, ``"leukemia"``, ``"hepatitis"``).
    return_X_y : bool, default=False
        Return ``(data, target)`` instead of a Bunch.
    as_frame : bool, default=False
        Return ``data`` as a DataFrame (nominal columns stay strings, missing values are
        NaN) and ``target`` as a Series; the Bunch also gets ``frame`` with both.
        Otherwise ``data`` is a float ndarray when every feature is numeric, and an
        object ndarray (strings and NaN) when some are nominal.
    drop_missing_target : bool, default=True
        Drop rows whose class label is missing (57 rows of echocardiogram); the DESCR
        says how many.

    Returns
    -------
    Bunch or tuple
        ``data``, ``target`` (string labels), ``feature_names``, ``DESCR`` (provenance)
        and ``frame`` when ``as_frame``.

    Examples
    --------
    >>> X, y = load_dataset("colon", return_X_y=True)
    >>> X.shape, sorted(set(y))
    ((62, 2000), ['normal', 'tumor'])
    """
    _check_name(name)
    frame = _read_frame(name).copy()
    n_dropped = 0
    if drop_missing_target:
        missing = frame[TARGET_COLUMN].isna().to_numpy()
        n_dropped = int(missing.sum())
        frame = frame.loc[~missing].reset_index(drop=True)
    data_frame = frame.drop(columns=TARGET_COLUMN)
    target = frame[TARGET_COLUMN]
    feature_names = np.asarray(data_frame.columns, dtype=object)
    if as_frame:
        data, target_out = data_frame, target
    else:
        numeric = all(pd.api.types.is_numeric_dtype(dt) for dt in data_frame.dtypes)
        if numeric:
            data = data_frame.to_numpy(dtype=float)
        else:
            data = (
                data_frame.astype(object).where(data_frame.notna(), np.nan).to_numpy(dtype=object)
            )
        target_out = target.to_numpy(dtype=object)
    if return_X_y:
        return data, target_out
    from sklearn.utils import Bunch  # scikit-learn loads with the data, not on `widefs datasets`

    bunch = Bunch(
        data=data,
        target=target_out,
        feature_names=feature_names,
        target_names=np.array(sorted(target.dropna().unique()), dtype=object),
        DESCR=_describe(name, frame, n_dropped),
        name=name,
    )
    if as_frame:
        bunch.frame = frame
    return bunch
