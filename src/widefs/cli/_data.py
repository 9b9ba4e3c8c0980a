"""Load and check the data given to the command line (a CSV/TSV path or a bundled name)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from widefs.datasets import list_datasets, load_dataset
from widefs.exceptions import DataError

__all__ = ["LoadedData", "load_cli_data"]

_SHOW = 8  # names listed in an error message before "..."


@dataclass
class LoadedData:
    """Validated data for a report: numeric features, string labels, provenance."""

    name: str
    X: np.ndarray
    y: np.ndarray
    feature_names: np.ndarray
    source: str
    imputed_columns: list[str]


def _names(cols) -> str:
    cols = [str(c) for c in cols]
    more = f", ... ({len(cols)} in all)" if len(cols) > _SHOW else ""
    return ", ".join(cols[:_SHOW]) + more


def _read_table(path: Path) -> pd.DataFrame:
    if not path.exists():
        raise DataError(f"file not found: {path}")
    if path.is_dir():
        raise DataError(f"{path} is a directory, not a CSV/TSV file")
    name = path.name.lower().removesuffix(".gz")
    sep = "\t" if name.endswith((".tsv", ".tab", ".txt")) else ","
    try:
        return pd.read_csv(
            path, sep=sep, keep_default_na=False, na_values=["", "NA", "NaN", "nan", "?"]
        )
    except (pd.errors.ParserError, UnicodeDecodeError, pd.errors.EmptyDataError) as exc:
        raise DataError(
            f"cannot parse {path} as {'TSV' if sep == chr(9) else 'CSV'}: {exc}"
        ) from exc


def load_cli_data(data: str, *, target: str = "class", impute: bool = False) -> LoadedData:
    """Read ``data`` and check it is usable; raise :class:`DataError` naming the problem.

    Checks: the file exists and parses; the target column exists; at least two classes,
    each with at least two examples; every feature column is numeric; no NaN or
    infinite values unless ``impute`` (then each column's median replaces them; the
    median ignores labels, so this leaks no class information).
    """
    path = Path(data)
    if data in list_datasets().index and not path.exists():
        frame = load_dataset(data, as_frame=True).frame
        source = f"bundled dataset {data!r}"
        target = "class"
    else:
        frame = _read_table(path)
        source = str(path)
    if target not in frame.columns:
        raise DataError(
            f"target column {target!r} not found in {source}; columns are: {_names(frame.columns)} "
            "(choose one with --target)"
        )
    y_raw = frame[target]
    if y_raw.isna().any():
        raise DataError(f"target column {target!r} has {int(y_raw.isna().sum())} missing labels")
    y = y_raw.astype(str).to_numpy(dtype=object)
    features = frame.drop(columns=target)
    if features.shape[1] == 0:
        raise DataError(f"{source} has no feature columns besides {target!r}")
    classes, counts = np.unique(y, return_counts=True)
    if classes.size < 2:
        raise DataError(
            f"target column {target!r} has a single class ({classes[0]!r}); need at least 2"
        )
    small = [f"{c!r} ({k})" for c, k in zip(classes, counts, strict=True) if k < 2]
    if small:
        raise DataError(f"every class needs at least 2 examples; too few in: {', '.join(small)}")
    non_numeric = [c for c in features.columns if not pd.api.types.is_numeric_dtype(features[c])]
    if non_numeric:
        raise DataError(f"non-numeric feature columns: {_names(non_numeric)}")
    X = features.to_numpy(dtype=float)
    bad = ~np.isfinite(X)
    imputed: list[str] = []
    if bad.any():
        bad_cols = features.columns[bad.any(axis=0)]
        if not impute:
            raise DataError(
                f"NaN or infinite values in columns: {_names(bad_cols)} (use --impute to replace "
                "them by each column's median)"
            )
        X = np.where(np.isinf(X), np.nan, X)
        medians = np.nanmedian(X, axis=0)
        if np.isnan(medians).any():
            empty = features.columns[np.isnan(medians)]
            raise DataError(f"columns with no finite value cannot be imputed: {_names(empty)}")
        X = np.where(np.isnan(X), medians, X)
        imputed = [str(c) for c in bad_cols]
    name = data if source.startswith("bundled") else path.name
    return LoadedData(
        name=name,
        X=X,
        y=y,
        feature_names=np.asarray(features.columns.astype(str), dtype=object),
        source=source,
        imputed_columns=imputed,
    )
