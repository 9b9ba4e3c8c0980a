"""AnnData ``.h5ad`` files (the optional extra ``widefs[anndata]``).

The file is HDF5 and is read through h5py with anndata's element readers; nothing is
unpickled. Every element's encoding and dtype is checked before its values are read, the
dtype against the whitelist of every container widefs reads (:func:`widefs._utils.value_kind`): the matrix (``X`` or a layer) must hold numbers or booleans, dense or
CSR/CSC; the target column of ``obs`` numbers, booleans, strings or categories of them. The
analysis takes a dense matrix, so a sparse one is expanded a block of rows (CSR) or columns
(CSC) at a time into one float matrix whose size is checked against the memory budget first.
Feature names are ``var_names``, sample ids ``obs_names``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from widefs._utils import MAX_TEXT_WIDTH, value_kind
from widefs.cli.io._memory import Budget, check_fits, format_bytes, numbers_need
from widefs.cli.io._tables import RawTable, first_line, show_names
from widefs.exceptions import DataError

__all__ = ["ANNDATA_HINT", "read_h5ad"]

ANNDATA_HINT = 'pip install "widefs[anndata]"'
_SPARSE = {"csr_matrix": "CSR", "csc_matrix": "CSC"}
_LABEL_ENCODINGS = {
    "array",
    "string-array",
    "categorical",
    "nullable-integer",
    "nullable-boolean",
    "nullable-string-array",
}
_BLOCK_BYTES = 64 << 20  # dense float64 bytes expanded from a sparse matrix at a time


def _elem_readers():
    """anndata's element readers (``anndata.io`` since 0.11, ``anndata.experimental`` before)."""
    try:
        import anndata  # noqa: F401
    except ImportError:
        raise DataError(f"reading .h5ad files needs anndata: {ANNDATA_HINT}") from None
    try:
        from anndata.io import read_elem, sparse_dataset
    except ImportError:  # anndata < 0.11
        from anndata.experimental import read_elem, sparse_dataset
    return read_elem, sparse_dataset


def _encoding(elem) -> str:
    value = elem.attrs.get("encoding-type", "array" if hasattr(elem, "dtype") else "")
    return value.decode() if isinstance(value, bytes) else str(value)


def _check_dataset(ds, what: str, text_ok: bool) -> None:
    """Refuse, in one line, a dataset whose values are neither numbers nor (if allowed) text."""
    kind = value_kind(ds.dtype)
    if kind == "text" and text_ok and ds.dtype.kind == "S" and ds.dtype.itemsize > MAX_TEXT_WIDTH:
        raise DataError(
            f"{what} holds text of {ds.dtype.itemsize} characters per value (not read); "
            f"widefs reads at most {MAX_TEXT_WIDTH}"
        )
    if kind == "numeric" or (text_ok and kind == "text"):
        return
    allowed = "numbers or booleans" + (" or text" if text_ok else "")
    raise DataError(f"{what} holds values of type {ds.dtype} (not read); widefs reads {allowed}")


def _matrix_elem(f, layer: str | None):
    """The chosen matrix (``X`` or ``layers/NAME``), its name and its encoding, checked."""
    if layer is None:
        if "X" not in f:
            raise DataError("the .h5ad file has no X matrix; choose a layer with --layer")
        elem, what = f["X"], "X"
    else:
        layers = f.get("layers", {})
        if layer not in layers:
            present = show_names(list(layers)) if len(layers) else "none"
            raise DataError(f"layer {layer!r} not found in the .h5ad file; layers: {present}")
        elem, what = layers[layer], f"layer {layer!r}"
    encoding = _encoding(elem)
    if encoding == "array":
        _check_dataset(elem, what, text_ok=False)
    elif encoding in _SPARSE:
        _check_dataset(elem["data"], what, text_ok=False)
        for part in ("indices", "indptr"):
            if elem[part].dtype.kind not in "iu":
                raise DataError(f"{what} is a damaged sparse matrix ({part} not integers)")
    else:
        raise DataError(f"{what} is stored as {encoding!r}; widefs reads dense, CSR or CSC")
    return elem, what, encoding


def _dense(elem, encoding: str, sparse_dataset) -> np.ndarray:
    """The matrix as one float64 array, filled a block at a time."""
    n, p = (int(v) for v in (elem.shape if encoding == "array" else elem.attrs["shape"]))
    X = np.empty((n, p))
    if encoding == "array":
        step = max(1, _BLOCK_BYTES // (8 * max(n, 1)))
        for j in range(0, p, step):
            X[:, j : j + step] = elem[:, j : j + step]
        return X
    source = sparse_dataset(elem)
    if encoding == "csr_matrix":
        step = max(1, _BLOCK_BYTES // (8 * max(p, 1)))
        for i in range(0, n, step):
            X[i : i + step] = source[i : i + step].toarray()
    else:
        step = max(1, _BLOCK_BYTES // (8 * max(n, 1)))
        for j in range(0, p, step):
            X[:, j : j + step] = source[:, j : j + step].toarray()
    return X


def _index(frame, read_elem) -> np.ndarray:
    """A dataframe element's index (``obs_names`` / ``var_names``) as strings."""
    key = frame.attrs.get("_index", "_index")
    key = key.decode() if isinstance(key, bytes) else str(key)
    _check_dataset(frame[key], f"the index of {frame.name.strip('/')}", text_ok=True)
    return np.array([str(v) for v in read_elem(frame[key])], dtype=object)


def _obs_column(obs, target: str, read_elem) -> np.ndarray:
    """The labels: the ``obs`` column ``target``, checked before its values are read."""
    columns = [c for c in obs if c != obs.attrs.get("_index", "_index")]
    if target not in columns:
        raise DataError(
            f"target column {target!r} not found in the .h5ad file's obs; columns are: "
            f"{show_names(columns) if columns else 'none'} (choose one with --target)"
        )
    elem, what = obs[target], f"obs column {target!r}"
    encoding = _encoding(elem)
    if encoding not in _LABEL_ENCODINGS:
        raise DataError(f"{what} is stored as {encoding!r}; widefs reads labels of text or numbers")
    parts = [elem] if encoding in ("array", "string-array") else [elem[k] for k in elem]
    for part in parts:
        _check_dataset(part, what, text_ok=True)
    values = read_elem(elem)
    values = values.to_numpy(dtype=object) if hasattr(values, "to_numpy") else values
    labels = np.asarray(values, dtype=object)
    missing = np.array(
        [v is None or v is pd.NA or (isinstance(v, float) and v != v) for v in labels]
    )
    labels[missing] = None
    return labels


def _read(f, target: str, layer: str | None, budget: Budget, path: Path) -> RawTable:
    read_elem, sparse_dataset = _elem_readers()
    for group in ("obs", "var"):
        if group not in f:
            raise DataError(f"{path} has no {group}: not an AnnData file")
    elem, what, encoding = _matrix_elem(f, layer)
    ids, names = _index(f["obs"], read_elem), _index(f["var"], read_elem)
    labels = _obs_column(f["obs"], target, read_elem)
    n, p = len(ids), len(names)
    shape = tuple(int(v) for v in (elem.shape if encoding == "array" else elem.attrs["shape"]))
    if shape != (n, p):
        raise DataError(f"{what} has shape {shape} but the file has {n} obs and {p} var")
    check_fits(numbers_need(n, p), budget, f"{path} ({n} x {p})")
    notes = []
    if encoding in _SPARSE:
        nnz = int(elem["data"].shape[0])
        notes.append(
            f"{what} is a sparse {_SPARSE[encoding]} matrix ({nnz / max(n * p, 1):.1%} non-zero), "
            f"expanded block by block into a dense {n} x {p} matrix "
            f"({format_bytes(8 * n * p)}): the analysis takes a dense matrix"
        )
    if layer is not None:
        notes.append(f"the matrix analysed is the layer {layer!r}, not X")
    X = _dense(elem, encoding, sparse_dataset)
    return RawTable(list(names), X, labels, [], notes, ids)


def read_h5ad(path: Path, target: str, layer: str | None, budget: Budget) -> RawTable:
    """An AnnData ``.h5ad`` file: ``X`` (or ``layer``) as features, ``obs[target]`` as labels."""
    _elem_readers()
    import h5py

    try:
        with h5py.File(path, "r") as f:
            return _read(f, target, layer, budget, path)
    except DataError:
        raise
    except Exception as exc:  # h5py and anndata raise many types for a damaged file
        raise DataError(f"cannot read {path} as .h5ad: {first_line(exc)}") from exc
