"""The AnnData reader's checks, one element at a time: tiny ``.h5ad`` files written with
anndata, then altered with h5py the way other writers (or damage) leave them; every refusal
matched in full, every value read compared with the one written."""

import h5py
import numpy as np
import pandas as pd
import pytest

from widefs.cli.io import _anndata
from widefs.cli.io._anndata import read_h5ad
from widefs.cli.io._memory import memory_budget
from widefs.exceptions import DataError

ad = pytest.importorskip("anndata")

BUDGET = memory_budget(None)


def _write(path, n=4, p=3, obs=None, index_name=None):
    """An AnnData file: X = 10 * row + column, obs column 'lab' = a, b, a, b (or ``obs``)."""
    X = 10.0 * np.arange(n)[:, None] + np.arange(p)[None, :]
    obs = pd.DataFrame({"lab": ["a", "b"] * (n // 2)} if obs is None else obs)
    obs.index = pd.Index([f"c{i}" for i in range(n)], name=index_name)
    var = pd.DataFrame(index=[f"g{j}" for j in range(p)])
    ad.AnnData(X=X, obs=obs, var=var).write_h5ad(path)
    return path, X


def _read(path, target="lab", layer=None):
    return read_h5ad(path, target, layer, BUDGET)


def _refused(path, message, target="lab", layer=None):
    with pytest.raises(DataError) as err:
        _read(path, target, layer)
    assert str(err.value) == message


def _replace(path, name, data, encoding="array"):
    with h5py.File(path, "r+") as f:
        del f[name]
        f.create_dataset(name, data=data)
        if encoding is not None:
            f[name].attrs["encoding-type"] = encoding
            f[name].attrs["encoding-version"] = "0.2.0"


# --- text width of labels and names ---------------------------------------------------------


@pytest.mark.parametrize("width", [1023, 1024])
def test_labels_of_the_widest_text_allowed_are_read(tmp_path, width):
    path, _ = _write(tmp_path / "a.h5ad")
    labels = np.array([b"a" * width, b"b" * width] * 2, dtype=f"S{width}")
    _replace(path, "obs/lab", labels)
    got = _read(path).labels
    assert [len(v) for v in got] == [width] * 4
    assert got[0] == b"a" * width and got[1] == b"b" * width


def test_labels_one_character_wider_are_refused_unread(tmp_path):
    path, _ = _write(tmp_path / "a.h5ad")
    _replace(path, "obs/lab", np.array([b"a" * 1025] * 4, dtype="S1025"))
    _refused(
        path,
        "obs column 'lab' holds text of 1025 characters per value (not read); "
        "widefs reads at most 1024",
    )


def test_a_wide_number_type_is_not_text(tmp_path):
    # The width rule is about text: a matrix of wide numbers is refused by type, not by width.
    path, _ = _write(tmp_path / "a.h5ad")
    _replace(path, "X", np.zeros((4, 3), dtype="c16"))
    _refused(path, "X holds values of type complex128 (not read); widefs reads numbers or booleans")


# --- types refused, in full -----------------------------------------------------------------


def test_a_label_column_of_another_type_names_the_column_and_allows_text(tmp_path):
    path, _ = _write(tmp_path / "a.h5ad")
    _replace(path, "obs/lab", np.zeros(4, dtype="c16"))
    _refused(
        path,
        "obs column 'lab' holds values of type complex128 (not read); widefs reads numbers or "
        "booleans or text",
    )


def test_an_index_of_another_type_names_the_group(tmp_path):
    path, _ = _write(tmp_path / "a.h5ad")
    _replace(path, "obs/_index", np.zeros(4, dtype="c16"))
    _refused(
        path,
        "the index of obs holds values of type complex128 (not read); widefs reads numbers "
        "or booleans or text",
    )


def test_a_text_matrix_is_refused_without_text_allowed(tmp_path):
    path, _ = _write(tmp_path / "a.h5ad")
    _replace(path, "X", np.full((4, 3), b"1", dtype="S1"))
    _refused(path, "X holds values of type |S1 (not read); widefs reads numbers or booleans")


# --- encodings ------------------------------------------------------------------------------


def test_a_matrix_group_without_an_encoding_is_named(tmp_path):
    path, _ = _write(tmp_path / "a.h5ad")
    with h5py.File(path, "r+") as f:
        del f["X"]
        f.create_group("X")
    _refused(path, "X is stored as ''; widefs reads dense, CSR or CSC")


def test_a_dataset_without_an_encoding_is_an_array(tmp_path):
    path, X = _write(tmp_path / "a.h5ad")
    _replace(path, "X", X, encoding=None)
    np.testing.assert_array_equal(_read(path).X, X)


def test_encodings_written_as_bytes_are_read(tmp_path):
    path, X = _write(tmp_path / "a.h5ad")
    with h5py.File(path, "r+") as f:
        f["X"].attrs["encoding-type"] = np.bytes_(b"array")
        f["obs"].attrs["_index"] = np.bytes_(b"_index")
    table = _read(path)
    np.testing.assert_array_equal(table.X, X)
    assert list(table.ids) == ["c0", "c1", "c2", "c3"]


def test_a_label_column_stored_as_a_dict_is_refused(tmp_path):
    path, _ = _write(tmp_path / "a.h5ad")
    with h5py.File(path, "r+") as f:
        del f["obs/lab"]
        f["obs"].create_group("lab").attrs["encoding-type"] = "dict"
    _refused(path, "obs column 'lab' is stored as 'dict'; widefs reads labels of text or numbers")


def test_a_string_array_label_column_is_read(tmp_path):
    path, _ = _write(tmp_path / "a.h5ad")
    labels = np.array(["x", "y", "x", "y"], dtype=object)
    _replace(path, "obs/lab", labels.astype(h5py.string_dtype()), encoding="string-array")
    assert list(_read(path).labels) == ["x", "y", "x", "y"]


# --- the index and the columns of obs -------------------------------------------------------


def test_a_named_index_is_the_ids_and_not_a_column(tmp_path):
    path, _ = _write(tmp_path / "a.h5ad", index_name="cell_id")
    with h5py.File(path, "r") as f:
        assert f["obs"].attrs["_index"] == "cell_id"
    assert list(_read(path).ids) == ["c0", "c1", "c2", "c3"]
    _refused(
        path,
        "target column 'disease' not found in the .h5ad file's obs; columns are: lab "
        "(choose one with --target)",
        target="disease",
    )


def test_without_an_index_attribute_the_index_is_named_index(tmp_path):
    path, _ = _write(tmp_path / "a.h5ad")
    with h5py.File(path, "r+") as f:
        del f["obs"].attrs["_index"]
        del f["var"].attrs["_index"]
    table = _read(path)
    assert list(table.ids) == ["c0", "c1", "c2", "c3"]
    assert table.names == ["g0", "g1", "g2"]
    _refused(
        path,
        "target column 'disease' not found in the .h5ad file's obs; columns are: lab "
        "(choose one with --target)",
        target="disease",
    )


def test_an_obs_without_columns_says_none(tmp_path):
    path, _ = _write(tmp_path / "a.h5ad", obs={})
    _refused(
        path,
        "target column 'lab' not found in the .h5ad file's obs; columns are: none "
        "(choose one with --target)",
    )


def test_missing_matrix_and_layers_are_named(tmp_path):
    path, _ = _write(tmp_path / "a.h5ad")
    with h5py.File(path, "r+") as f:
        del f["layers"]
    _refused(path, "layer 'raw' not found in the .h5ad file; layers: none", layer="raw")
    with h5py.File(path, "r+") as f:
        del f["X"]
    _refused(path, "the .h5ad file has no X matrix; choose a layer with --layer")


# --- missing labels -------------------------------------------------------------------------


def test_missing_float_labels_are_none_and_the_others_kept(tmp_path):
    path, _ = _write(tmp_path / "a.h5ad", obs={"lab": [1.5, np.nan, 2.5, 1.5]})
    got = _read(path).labels
    assert got.dtype == object
    assert got[0] == 1.5 and got[1] is None and got[2] == 2.5 and got[3] == 1.5


def test_missing_nullable_integers_are_none_and_the_others_integers(tmp_path):
    obs = {"lab": pd.array([0, None, 1, 0], dtype="Int64")}
    path, _ = _write(tmp_path / "a.h5ad", obs=obs)
    got = _read(path).labels
    assert got[1] is None
    assert [str(v) for v in got[[0, 2, 3]]] == ["0", "1", "0"]  # not 0.0, 1.0


# --- the blocks a matrix is expanded in -----------------------------------------------------


class _Spy:
    """Wraps a sliceable source and records the (start, stop) of each block read."""

    def __init__(self, source, axis):
        self.source, self.axis, self.blocks = source, axis, []

    def __getitem__(self, key):
        part = key if self.axis == 0 else key[1]
        self.blocks.append((part.start, part.stop))
        return self.source[key]


# (rows, columns, bytes per block, format, rows (CSR) or columns per block): the most whose
# float64 values fit in the block, at least one.
_GEOMETRY = [
    (6, 5, 96, "dense", 2),  # 96 bytes = 2 columns of 6 floats
    (6, 5, 96, "csc", 2),
    (6, 5, 96, "csr", 2),  # 2 rows of 5 floats (80 bytes; 3 rows would be 120)
    (6, 5, 8, "dense", 1),  # not even one column fits: one at a time
    (6, 5, 8, "csc", 1),
    (6, 5, 8, "csr", 1),
    (1, 5, 24, "dense", 3),  # a single row: 3 columns of 1 float
    (1, 5, 24, "csc", 3),
    (1, 5, 24, "csr", 1),
    (6, 5, 80, "csr", 2),  # 2 rows of 5 floats fill 80 bytes exactly
    (6, 1, 16, "csr", 2),  # a single column: 2 rows of 1 float
]


@pytest.mark.parametrize(("n", "p", "block_bytes", "fmt", "step"), _GEOMETRY)
def test_blocks_are_the_largest_that_fit(monkeypatch, n, p, block_bytes, fmt, step):
    import scipy.sparse as sp

    monkeypatch.setattr(_anndata, "_BLOCK_BYTES", block_bytes)
    X = 10.0 * np.arange(n)[:, None] + np.arange(p)[None, :]
    axis = 0 if fmt == "csr" else 1
    if fmt == "dense":
        spy = _Spy(X, 1)
        elem, encoding, sparse_dataset = spy, "array", None
        spy.shape = X.shape
    else:
        matrix = (sp.csr_matrix if fmt == "csr" else sp.csc_matrix)(X)
        spy = _Spy(matrix, axis)

        class _Elem:
            attrs = {"shape": X.shape}

        elem, encoding, sparse_dataset = _Elem(), f"{fmt}_matrix", lambda _: spy
    got = _anndata._dense(elem, encoding, sparse_dataset)
    np.testing.assert_array_equal(got, X)
    size = n if axis == 0 else p
    assert spy.blocks == [(s, s + step) for s in range(0, size, step)]
