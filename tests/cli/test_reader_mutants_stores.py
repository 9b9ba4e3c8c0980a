"""The zarr store reader, the ``--counts`` check and the AnnData reader's notes: each
refusal matched in full, each boundary on both sides, on stores and files of a few cells."""

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

from widefs.cli.io import _counts
from widefs.cli.io._anndata import read_h5ad
from widefs.cli.io._counts import counts_option
from widefs.cli.io._memory import Budget, memory_budget
from widefs.cli.io._store import StoreNames, load_store
from widefs.exceptions import DataError

zarr = pytest.importorskip("zarr")
ZARR_MAJOR = int(zarr.__version__.split(".")[0])


def _array(group, name, values, dtype):
    if ZARR_MAJOR >= 3:
        array = group.create_array(name, shape=values.shape, dtype=dtype)
        if values.size:
            array[:] = values
    else:  # zarr 2: text as variable-length UTF-8 (dtype=str)
        data = values.astype(object) if dtype is str else values
        group.create_dataset(name, data=data, shape=values.shape, dtype=dtype)


def _store(path, X=None, labels=("a", "b", "a", "b"), names=None, skip=()):
    group = zarr.open_group(str(path), mode="w")
    X = np.array([[0, 1, 1], [1, 0, 1], [0, 0, 1], [1, 1, 0]], dtype=np.uint8) if X is None else X
    if "X" not in skip:
        _array(group, "X", X, str if X.dtype.kind == "U" else X.dtype)
    if "class" not in skip:
        _array(group, "class", np.asarray(labels, dtype=str), str)
    if names is not None:
        _array(group, "feature_names", np.asarray(names, dtype=str), str)
    return path


def _refused(message, *args):
    with pytest.raises(DataError) as err:
        load_store(*args)
    assert str(err.value) == message


# --- zarr stores ----------------------------------------------------------------------------


def test_a_store_is_read_as_written(tmp_path):
    path = _store(tmp_path / "s.zarr", names=["k0", "k1", "k2"])
    fields = load_store(path, None)
    np.testing.assert_array_equal(fields["X"][:], [[0, 1, 1], [1, 0, 1], [0, 0, 1], [1, 1, 0]])
    assert list(fields["y"]) == ["a", "b", "a", "b"] and fields["target"] == "class"
    assert [fields["feature_names"][j] for j in range(3)] == ["k0", "k1", "k2"]
    assert fields["name"] == "s.zarr" and fields["source"] == f"zarr store {path}"
    assert fields["imputed_columns"] == []
    assert fields["notes"] == [
        "a zarr store: only the Set Covering Machines run on it (packed in bits when its "
        "values are 0/1); the other parts of the report need the data in memory"
    ]


def test_a_store_is_a_directory_with_group_metadata(tmp_path):
    from widefs.cli.io._store import is_store

    for meta in ("zarr.json", ".zgroup"):
        folder = tmp_path / meta.strip(".")
        folder.mkdir()
        assert not is_store(folder)
        (folder / meta).write_text("{}")
        assert is_store(folder)
    assert not is_store(tmp_path / "zarr.json" / "zarr.json")  # a file, not a directory


def test_the_target_names_the_labels_array(tmp_path):
    path = _store(tmp_path / "s.zarr")
    group = zarr.open_group(str(path), mode="r+")
    _array(group, "status", np.array(["r", "s", "s", "r"]), str)
    fields = load_store(path, "status")
    assert list(fields["y"]) == ["r", "s", "s", "r"] and fields["target"] == "status"


@pytest.mark.parametrize("dtype", [bool, np.int8, np.uint16])
def test_booleans_and_integers_are_read(tmp_path, dtype):
    X = np.array([[0, 1], [1, 0], [1, 1], [0, 0]], dtype=dtype)
    np.testing.assert_array_equal(load_store(_store(tmp_path / "s.zarr", X=X), None)["X"][:], X)


def test_other_numbers_labels_and_names_of_the_wrong_size_are_refused(tmp_path):
    path = _store(tmp_path / "f.zarr", X=np.zeros((4, 3)))
    _refused(
        f"'X' in {path} must hold booleans or integers (presence/absence), got float64",
        path,
        None,
    )
    path = _store(tmp_path / "l.zarr", labels=["a", "b", "a"])
    _refused(f"'class' in {path} must hold one label per sample (4), got (3,)", path, None)
    path = _store(tmp_path / "n.zarr", names=["k0", "k1"])
    _refused(f"'feature_names' in {path} must hold one name per feature (3), got (2,)", path, None)


def test_missing_arrays_are_named_with_what_they_hold(tmp_path):
    path = _store(tmp_path / "s.zarr", skip=("X",))
    _refused(f"the zarr store {path} has no array 'X' (samples x features)", path, None)
    path = _store(tmp_path / "t.zarr", skip=("class",))
    _refused(f"the zarr store {path} has no array 'class' (the labels, one per sample)", path, None)


def test_a_text_matrix_is_refused_by_the_stores_check(tmp_path):
    X = np.array([["0", "1"], ["1", "0"], ["0", "0"], ["1", "1"]])
    path = _store(tmp_path / "s.zarr", X=X)
    _refused(f"the zarr store {path}: array 'X': holds text values, not numeric", path, None)


@pytest.mark.parametrize("shape", [(1, 3), (4, 0)])
def test_fewer_than_two_samples_or_no_feature_is_refused(tmp_path, shape):
    X = np.zeros(shape, dtype=np.uint8)
    path = _store(tmp_path / "s.zarr", X=X, labels=["a", "b", "a", "b"][: shape[0]])
    _refused(f"'X' in {path} must be samples x features, got shape {shape}", path, None)


def test_two_samples_and_one_feature_are_enough(tmp_path):
    path = _store(tmp_path / "s.zarr", X=np.array([[0], [1]], dtype=np.uint8), labels=["a", "b"])
    fields = load_store(path, None)
    assert fields["X"].shape == (2, 1) and fields["feature_names"][0] == "x0"


def test_empty_labels_are_counted(tmp_path):
    path = _store(tmp_path / "s.zarr", labels=["a", "", "a", "  "])
    _refused(f"'class' in {path} has 2 empty labels", path, None)


def test_store_names_by_index_and_their_bounds():
    names = StoreNames(np.array(["k0", "k1", "k<2>"], dtype=object), 3)
    assert [names[0], names[1], names[np.int64(2)]] == ["k0", "k1", "k<2>"]
    assert len(names) == 3
    for j in (3, -1):
        with pytest.raises(IndexError) as err:
            names[j]
        assert str(err.value) == f"feature {j} of 3"
    generic = StoreNames(None, 2)
    assert [generic[0], generic[1]] == ["x0", "x1"]


# --- --counts -------------------------------------------------------------------------------


def test_counts_message_gives_the_range_of_the_values():
    with pytest.raises(DataError) as err:
        counts_option(np.array([[0.0, 5.0], [3.0, 12.5]]), True)
    assert str(err.value) == (
        "--counts: the data hold values that are not non-negative integers (from 0 to 12.5); "
        "counts are whole numbers of at least 0"
    )


@pytest.mark.parametrize("bad", [0.5, -1.0])
def test_counts_look_at_the_first_column_too(bad):
    X = np.array([[bad, 2.0, 3.0], [1.0, 2.0, 3.0]])
    with pytest.raises(DataError, match="not non-negative integers"):
        counts_option(X, True)
    assert counts_option(np.abs(np.round(X)), True) is True


class _Spy(np.ndarray):
    """An array recording the column blocks sliced from it."""

    blocks: list

    def __getitem__(self, key):
        if isinstance(key, tuple) and isinstance(key[1], slice):
            self.blocks.append((key[1].start, key[1].stop))
        return np.asarray(self)[key]


def test_counts_are_checked_a_block_of_columns_at_a_time(monkeypatch):
    monkeypatch.setattr(_counts, "_BLOCK", 4)
    X = np.arange(20.0).reshape(2, 10).view(_Spy)
    X.blocks = []
    assert counts_option(X, True) is True
    assert X.blocks == [(0, 4), (4, 8), (8, 12)]


# --- the AnnData reader: groups, shapes, memory, notes --------------------------------------

ad = pytest.importorskip("anndata")


def _h5ad(path, X, layer=None):
    n, p = X.shape
    obs = pd.DataFrame(
        {"lab": ["a", "b"] * (n // 2) + ["a"] * (n % 2)}, index=[f"c{i}" for i in range(n)]
    )
    var = pd.DataFrame(index=[f"g{j}" for j in range(p)])
    adata = ad.AnnData(X=np.zeros((n, p)) if layer else X, obs=obs, var=var)
    if layer:
        adata.layers[layer] = X
    adata.write_h5ad(path)
    return path


def _h5ad_refused(path, message, budget=None, layer=None):
    with pytest.raises(DataError) as err:
        read_h5ad(path, "lab", layer, budget or memory_budget(None))
    assert str(err.value) == message


def test_sparse_notes_give_the_density_and_the_dense_size(tmp_path):
    X = sp.csr_matrix(np.array([[1.0, 0, 0], [0, 2.0, 0], [0, 0, 0], [0, 0, 3.0]]))
    table = read_h5ad(_h5ad(tmp_path / "a.h5ad", X), "lab", None, memory_budget(None))
    assert table.notes == [
        "X is a sparse CSR matrix (25.0% non-zero), expanded block by block into a dense "
        "4 x 3 matrix (96 bytes): the analysis takes a dense matrix"
    ]
    assert table.non_numeric == []
    one = sp.csc_matrix(np.array([[7.0]]))
    table = read_h5ad(
        _h5ad(tmp_path / "b.h5ad", one, "counts"), "lab", "counts", memory_budget(None)
    )
    assert table.notes == [
        "layer 'counts' is a sparse CSC matrix (100.0% non-zero), expanded block by block into "
        "a dense 1 x 1 matrix (8 bytes): the analysis takes a dense matrix",
        "the matrix analysed is the layer 'counts', not X",
    ]


def test_a_dense_matrix_has_no_note(tmp_path):
    X = np.arange(12.0).reshape(4, 3)
    table = read_h5ad(_h5ad(tmp_path / "a.h5ad", X), "lab", None, memory_budget(None))
    assert table.notes == [] and table.non_numeric == []
    np.testing.assert_array_equal(table.X, X)


def test_groups_shapes_and_memory_are_named(tmp_path):
    import h5py

    path = _h5ad(tmp_path / "a.h5ad", np.arange(12.0).reshape(4, 3))
    small = Budget(50, "set by --max-memory", "raise it")
    with pytest.raises(DataError) as err:
        read_h5ad(path, "lab", None, small)
    assert str(err.value).startswith(f"{path} (4 x 3) would need about ")
    assert str(err.value).endswith(
        " of memory, more than the 50 bytes set by --max-memory; raise it"
    )
    with h5py.File(path, "r+") as f:
        del f["var/_index"]
        f["var"].create_dataset("_index", data=np.array([b"g0", b"g1"]))
        f["var/_index"].attrs.update({"encoding-type": "string-array", "encoding-version": "0.2.0"})
    _h5ad_refused(path, "X has shape (4, 3) but the file has 4 obs and 2 var")
    with h5py.File(path, "r+") as f:
        del f["obs"]
    _h5ad_refused(path, f"{path} has no obs: not an AnnData file")


def test_a_damaged_file_is_one_line_with_the_cause(tmp_path):
    path = tmp_path / "bad.h5ad"
    path.write_bytes(b"\x89HDF\r\n\x1a\n" + b"\0" * 64)
    with pytest.raises(DataError) as err:
        read_h5ad(path, "lab", None, memory_budget(None))
    message = str(err.value)
    assert message.startswith(f"cannot read {path} as .h5ad: ")
    assert "Unable to" in message and "\n" not in message


def test_layers_absent_or_empty_say_none(tmp_path):
    import h5py

    path = _h5ad(tmp_path / "a.h5ad", np.arange(12.0).reshape(4, 3))
    with h5py.File(path, "r") as f:
        assert len(f["layers"]) == 0
    _h5ad_refused(path, "layer 'raw' not found in the .h5ad file; layers: none", layer="raw")
    path = _h5ad(tmp_path / "b.h5ad", np.arange(12.0).reshape(4, 3), layer="counts")
    _h5ad_refused(path, "layer 'raw' not found in the .h5ad file; layers: counts", layer="raw")


@pytest.mark.parametrize(
    ("part", "values", "message"),
    [
        (
            "data",
            np.zeros(3, dtype="c16"),
            "X holds values of type complex128 (not read); widefs reads numbers or booleans",
        ),
        (
            "data",
            np.array([b"1", b"2", b"3"]),
            "X holds values of type |S1 (not read); widefs reads numbers or booleans",
        ),
        (
            "indices",
            np.array([0.0, 1.0, 2.0]),
            "X is a damaged sparse matrix (indices not integers)",
        ),
        (
            "indptr",
            np.array([0.0, 1, 2, 2, 3]),
            "X is a damaged sparse matrix (indptr not integers)",
        ),
    ],
)
def test_the_parts_of_a_sparse_matrix_are_checked(tmp_path, part, values, message):
    import h5py

    X = sp.csr_matrix(np.array([[1.0, 0, 0], [0, 2.0, 0], [0, 0, 0], [0, 0, 3.0]]))
    path = _h5ad(tmp_path / "a.h5ad", X)
    with h5py.File(path, "r+") as f:
        del f[f"X/{part}"]
        f["X"].create_dataset(part, data=values)
    _h5ad_refused(path, message)
