"""Zarr stores are data: arrays are checked (type, codecs) before a value is read, one line
for a refused or damaged store, and no pickle payload ever runs.

The hostile stores are written by hand (JSON metadata and chunk files), so they are the same
with every zarr version: ``tests/utils/test_stores.py`` runs in the oldest-dependencies job
of ``.ci/run`` (zarr 2) as in the main one (zarr 3).
"""

import base64
import contextlib
import json
import pickle
from pathlib import Path

import numpy as np
import pytest
from sklearn.base import BaseEstimator

from widefs._utils import (
    MAX_TEXT_WIDTH,
    check_array_metadata,
    check_zarr_array,
    load_columns,
    open_store,
    validate_lazy_xy,
)
from widefs.exceptions import DataError

zarr = pytest.importorskip("zarr")
ZARR_MAJOR = int(zarr.__version__.split(".")[0])


class _Payload:
    """Unpickling this touches ``marker``: the proof that a store's content ran."""

    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return (Path.touch, (self.marker,))


def _write(path: Path, name: str, meta: dict, chunks: dict[str, bytes]):
    (path / name).mkdir(parents=True, exist_ok=True)
    (path / name / ".zarray").write_text(json.dumps(meta))
    for key, data in chunks.items():
        (path / name / key).write_bytes(data)


def _v2_meta(shape, dtype, filters=None, compressor=None, fill_value=0):
    return {
        "zarr_format": 2,
        "shape": list(shape),
        "chunks": list(shape),
        "dtype": dtype,
        "compressor": compressor,
        "fill_value": fill_value,
        "filters": filters,
        "order": "C",
        "dimension_separator": ".",
    }


def _hostile_store(path: Path, marker: Path) -> Path:
    """A version 2 store: a valid bool ``X``, an object ``class`` array whose pickle filter
    would touch ``marker`` when read, and a ``fill`` array whose fill value would when opened."""
    path.mkdir()
    (path / ".zgroup").write_text('{"zarr_format": 2}')
    X = np.array([[1, 0, 1], [0, 1, 1], [1, 1, 0], [0, 0, 1]], dtype=bool)
    _write(path, "X", _v2_meta(X.shape, "|b1", fill_value=False), {"0.0": X.tobytes()})
    payload = pickle.dumps(_Payload(marker), protocol=4)
    meta = _v2_meta((4,), "|O", [{"id": "pickle", "protocol": 4}], fill_value=None)
    _write(path, "class", meta, {"0": payload})
    # zarr 2 decodes the fill value of a structure holding an object with its first filter
    # when it opens the array.
    fill = base64.standard_b64encode(payload).decode()
    _write(path, "fill", {**meta, "dtype": [["a", "|O"]], "fill_value": fill}, {})
    return path


def test_the_hostile_store_is_hostile(tmp_path):
    # The test below can fail: unpickling the stored chunk does run the payload, and zarr 2
    # (with the numcodecs Pickle codec) runs it when the array is read naively.
    store = _hostile_store(tmp_path / "s.zarr", tmp_path / "ran")
    pickle.loads((store / "class" / "0").read_bytes())
    assert (tmp_path / "ran").exists()
    (tmp_path / "ran").unlink()
    if ZARR_MAJOR == 2:
        # (The payload returns no array: zarr fails, but only after running it.)
        with contextlib.suppress(TypeError):
            zarr.open_group(str(store), mode="r")["class"][:]
        assert (tmp_path / "ran").exists()
        (tmp_path / "ran").unlink()
        with contextlib.suppress(TypeError):
            zarr.open_group(str(store), mode="r")["fill"]
        assert (tmp_path / "ran").exists()


def test_pickle_store_is_refused_in_one_line_and_nothing_runs(tmp_path):
    marker = tmp_path / "ran"
    store = open_store(_hostile_store(tmp_path / "s.zarr", marker))
    assert "class" in store
    assert store.array("X", "numeric")[:].sum() == 7  # the same store's plain data is read
    for name in ("class", "fill"):
        with pytest.raises(DataError) as err:
            store.array(name)
        message = str(err.value)
        assert "\n" not in message and str(tmp_path / "s.zarr") in message
        assert f"array {name!r}" in message and "refused codec 'pickle'" in message
    assert not marker.exists()


@pytest.mark.parametrize(
    ("meta", "problem"),
    [
        (_v2_meta((4,), "|O", [{"id": "msgpack2"}]), "refused codec 'msgpack2'"),
        (_v2_meta((4,), "|O", [{"id": "json2"}]), "refused codec 'json2'"),
        (_v2_meta((4,), "|O", [{"id": "vlen-array", "dtype": "<i4"}]), "'vlen-array'"),
        (_v2_meta((4,), "|O", None, None), "data type '|O' is not numbers or text"),
        # A safe codec does not make an object array of something else text.
        (_v2_meta((4,), "|O", [{"id": "zlib"}]), "data type '|O' is not numbers or text"),
        (_v2_meta((4,), "|O", None, {"id": "pickle"}), "refused codec 'pickle'"),
        (_v2_meta((4,), "<i8", [{"id": "categorize"}]), "refused codec 'categorize'"),
        (_v2_meta((4,), "<M8[ns]"), "is not numbers or text"),
        (_v2_meta((4,), "|V8"), "is not numbers or text"),
        (_v2_meta((4,), [["a", "<i4"]]), "is not a plain type"),
        (_v2_meta((4,), "<f8", [{"id": "vlen-utf8"}]), "text codec on an array of numbers"),
        (_v2_meta((4,), f"<U{MAX_TEXT_WIDTH + 1}"), f"{MAX_TEXT_WIDTH + 1} characters"),
        (_v2_meta((4,), "no such type"), "data type"),
        ({**_v2_meta((4,), "<f8"), "chunks": [2**15, 2**15]}, "chunks of 8589934592 bytes"),
        ({**_v2_meta((4,), "<f8"), "chunks": [4, 0]}, "not a list of positive integers"),
        ({"zarr_format": 4}, "not that of a zarr version 2 or 3 array"),
        ([], "not that of a zarr version 2 or 3 array"),
    ],
)
def test_version_2_metadata_refused(meta, problem):
    with pytest.raises(DataError, match=r"^the array 'y': ") as err:
        check_array_metadata(meta, "the array 'y'")
    assert problem in str(err.value) and "\n" not in str(err.value)


def _v3(data_type, codecs):
    return {"zarr_format": 3, "node_type": "array", "data_type": data_type, "codecs": codecs}


@pytest.mark.parametrize(
    ("meta", "problem"),
    [
        (_v3("string", [{"name": "numcodecs.pickle"}]), "refused codec 'pickle'"),
        (_v3("object", [{"name": "bytes"}]), "data type 'object' is not numbers or text"),
        (_v3({"name": "struct", "configuration": {}}, []), "data type 'struct'"),
        (_v3("r16", [{"name": "bytes"}]), "data type 'r16'"),
        (_v3("complex64", [{"name": "bytes"}]), "data type 'complex64'"),
        (_v3("float64", [{"name": "unknown_codec"}]), "refused codec 'unknown_codec'"),
        # The codecs inside a shard are checked too.
        (
            _v3(
                "string",
                [
                    {
                        "name": "sharding_indexed",
                        "configuration": {
                            "codecs": [{"name": "vlen-utf8"}, {"name": "numcodecs.pickle"}],
                            "index_codecs": [{"name": "bytes"}, {"name": "crc32c"}],
                        },
                    }
                ],
            ),
            "refused codec 'pickle'",
        ),
        (
            _v3({"name": "fixed_length_utf32", "configuration": {"length_bytes": 4 * 2000}}, []),
            "2000 characters",
        ),
        (_v3({"name": "fixed_length_utf32"}, []), "no valid length_bytes"),
        (
            {
                **_v3("uint8", []),
                "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [2**31]}},
            },
            "chunks of 2147483648 bytes",
        ),
        (_v3("float32", ["bytes"]), "a codec is str, not an object"),
        (_v3("float32", [{"configuration": {}}]), "a codec has no name"),
    ],
)
def test_version_3_metadata_refused(meta, problem):
    with pytest.raises(DataError) as err:
        check_array_metadata(meta, "where")
    assert problem in str(err.value) and "\n" not in str(err.value)


@pytest.mark.parametrize(
    ("meta", "kind"),
    [
        (_v2_meta((4,), "|b1", None, {"id": "blosc", "cname": "lz4"}), "numeric"),
        (_v2_meta((4,), "<f4", [{"id": "delta", "dtype": "<f4"}], {"id": "zstd"}), "numeric"),
        (_v2_meta((4,), "|O", [{"id": "vlen-utf8"}], {"id": "blosc"}), "text"),
        (_v2_meta((4,), f"<U{MAX_TEXT_WIDTH}"), "text"),
        (_v2_meta((4,), f"|S{MAX_TEXT_WIDTH}"), "text"),
        (_v3("uint64", [{"name": "bytes"}, {"name": "zstd"}]), "numeric"),
        # 1 GiB of booleans in a chunk; the inner chunks of a shard are what is decoded.
        ({**_v2_meta((4,), "|b1"), "chunks": [2**15, 2**15]}, "numeric"),
        (
            {
                **_v3(
                    "float64",
                    [
                        {
                            "name": "sharding_indexed",
                            "configuration": {
                                "chunk_shape": [1000, 1000],
                                "codecs": [{"name": "bytes"}],
                            },
                        }
                    ],
                ),
                "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [10**5, 10**5]}},
            },
            "numeric",
        ),
        (_v3("string", [{"name": "vlen-utf8"}, {"name": "numcodecs.zlib"}]), "text"),
        (_v3({"name": "null_terminated_bytes", "configuration": {"length_bytes": 8}}, []), "text"),
    ],
)
def test_numbers_and_text_accepted(meta, kind):
    assert check_array_metadata(meta, "where") == kind


def _zarr_store(path: Path, *, fmt: int):
    """A store as users make it with the installed zarr: bool X, text labels and names."""
    X = np.random.default_rng(0).random((6, 5)) < 0.5
    kwargs = {"zarr_format": fmt} if ZARR_MAJOR >= 3 else {}
    group = zarr.open_group(str(path), mode="w", **kwargs)
    make = group.create_array if ZARR_MAJOR >= 3 else group.create_dataset
    make("X", shape=X.shape, chunks=(6, 2), dtype=bool)[:] = X
    labels = np.array(["a", "b", "a", "b", "a", "bé"])
    if ZARR_MAJOR >= 3:
        make("class", shape=(6,), dtype=str)[:] = labels
    else:
        group.create_dataset("class", data=labels.astype(object), dtype=str)
    make("codes", shape=(6,), dtype=np.int16)[:] = np.arange(6, dtype=np.int16)
    return X, labels


@pytest.mark.parametrize("fmt", [2, 3] if ZARR_MAJOR >= 3 else [2])
def test_stores_of_the_installed_zarr_are_read(tmp_path, fmt):
    X, labels = _zarr_store(tmp_path / "s.zarr", fmt=fmt)
    store = open_store(tmp_path / "s.zarr")
    x = store.array("X", "numeric")
    assert x.shape == X.shape and x.kind == "numeric"
    np.testing.assert_array_equal(x[:], X)
    np.testing.assert_array_equal(x.oindex[:, [4, 0]], X[:, [4, 0]])
    y = store.array("class", "text")[:]
    assert y.dtype == object and y.tolist() == labels.tolist()
    assert store.array("class")[5] == "bé" and store.array("codes")[2] == 2
    assert store.array("codes")[:].tolist() == list(range(6))
    with pytest.raises(DataError, match=r"array 'codes': holds numeric values, not text$"):
        store.array("codes", "text")


def test_long_variable_text_refused_when_read(tmp_path):
    store = tmp_path / "s.zarr"
    group = zarr.open_group(str(store), mode="w")
    long = "x" * (MAX_TEXT_WIDTH + 1)
    if ZARR_MAJOR >= 3:
        group.create_array("names", shape=(2,), dtype=str)[:] = np.array(["ok", long])
    else:
        group.create_dataset("names", data=np.array(["ok", long], dtype=object), dtype=str)
    names = open_store(store).array("names", "text")
    assert names[:1].tolist() == ["ok"]
    with pytest.raises(DataError, match=f"a value of {MAX_TEXT_WIDTH + 1} characters"):
        names[:]


def _damage(path: Path, how: str):
    if how == "truncated metadata":
        file = path / "X" / ".zarray"
        file.write_text(file.read_text()[:25])
    elif how == "metadata not an object":
        (path / "X" / ".zarray").write_text("[1, 2]")
    elif how == "huge metadata":
        (path / "X" / ".zarray").write_text(" " * (2**20 + 1))
    elif how == "garbage chunk":
        meta = json.loads((path / "X" / ".zarray").read_text())
        meta["compressor"] = {"id": "zlib", "level": 1}
        (path / "X" / ".zarray").write_text(json.dumps(meta))
        (path / "X" / "0.0").write_bytes(b"not zlib at all")
    elif how == "short chunk":
        (path / "X" / "0.0").write_bytes(b"\x01\x00")
    elif how == "group metadata":
        (path / ".zgroup").write_text("{not json")


@pytest.mark.parametrize(
    ("how", "problem"),
    [
        ("truncated metadata", "unreadable .zarray"),
        ("metadata not an object", ".zarray is not a JSON object"),
        ("huge metadata", "larger than"),
        ("garbage chunk", "cannot read its values"),
        ("short chunk", "cannot read its values"),
        ("group metadata", "cannot open it"),
    ],
)
def test_damaged_store_is_one_line(tmp_path, how, problem):
    path = _hostile_store(tmp_path / "s.zarr", tmp_path / "ran")
    _damage(path, how)
    with pytest.raises(DataError) as err:
        open_store(path).array("X")[:]
    message = str(err.value)
    assert problem in message and str(path) in message and "\n" not in message
    assert len(message) < 500


@pytest.mark.parametrize("name", ["../s.zarr/X", "/X", "", "X/../X", "nothing"])
def test_names_outside_the_store_or_missing(tmp_path, name):
    store = open_store(_hostile_store(tmp_path / "s.zarr", tmp_path / "ran"))
    with pytest.raises(DataError, match=r"is not an array name|has no array"):
        store.array(name)


def test_not_a_store_and_a_group_for_an_array(tmp_path):
    with pytest.raises(DataError, match="not a directory holding a zarr group"):
        open_store(tmp_path)
    path = _hostile_store(tmp_path / "s.zarr", tmp_path / "ran")
    (path / "sub").mkdir()
    (path / "sub" / "zarr.json").write_text('{"zarr_format": 3, "node_type": "group"}')
    with pytest.raises(DataError, match="is a 'group', not an array"):
        open_store(path).array("sub")


class _FakeZarr:
    """An array that presents itself as zarr's, with a pickle codec; reading it fails the test."""

    __module__ = "zarr.core.array"
    shape = (4, 3)
    chunks = (4, 3)
    dtype = np.dtype(object)
    filters = (type("P", (), {"get_config": lambda self: {"id": "pickle"}})(),)
    compressor = None
    oindex = property(lambda self: pytest.fail("values read"))

    def __getitem__(self, key):
        pytest.fail("values read")


def test_estimators_and_blocks_check_a_zarr_array_before_reading_it():
    X = _FakeZarr()
    with pytest.raises(DataError, match="refused codec 'pickle'"):
        validate_lazy_xy(BaseEstimator(), X, [0, 1, 0, 1])
    with pytest.raises(DataError, match="refused codec 'pickle'"):
        load_columns(X, [0, 2])
    with pytest.raises(DataError, match="refused codec 'pickle'"):
        check_zarr_array(X)


def test_blocks_of_a_damaged_zarr_array_are_one_line(tmp_path):
    path = _hostile_store(tmp_path / "s.zarr", tmp_path / "ran")
    X = zarr.open_group(str(path), mode="r")["X"]
    assert load_columns(X, [0, 2]).sum() == 5
    _damage(path, "short chunk")
    X = zarr.open_group(str(path), mode="r")["X"]
    with pytest.raises(DataError, match=r"^X \(a zarr array\): cannot read its values"):
        load_columns(X, slice(0, 2))


def test_packing_checks_a_zarr_array_before_reading_it():
    from widefs.scm import pack_binary

    with pytest.raises(DataError, match="refused codec 'pickle'"):
        pack_binary(_FakeZarr())


class _FakeNumbers(_FakeZarr):
    """A float array presenting itself as zarr's, decoded by a pickle filter; reads recorded."""

    __module__ = "zarr.core.array"
    dtype = np.dtype(np.float64)
    ndim = 2
    oindex = None
    reads: list = []

    def __getitem__(self, key):
        self.reads.append(key)
        return np.zeros((4, 3))[key]


@pytest.mark.parametrize("inline", [False, True])
def test_a_dask_array_reading_a_zarr_array_is_checked_before_it_is_computed(inline):
    """``from_zarr``/``from_array`` of a zarr array keep it in the graph (as a value of its
    own, or inside every task with ``inline_array=True``): found and checked, nothing read."""
    da = pytest.importorskip("dask.array")
    from widefs.scm import OccamSCM, pack_binary

    X = da.from_array(_FakeNumbers(), chunks=(4, 1), inline_array=inline, asarray=False)
    derived = (X[:, :2] * 2 + 1).T.T  # the store read through tasks of other tasks
    _FakeNumbers.reads = []  # (dask may take an empty slice for its meta: no chunk is read)
    y = [0, 1, 0, 1]
    for matrix in (X, derived):
        for read in (
            lambda m: validate_lazy_xy(BaseEstimator(), m, y),
            lambda m: load_columns(m, [0, 1]),
            pack_binary,
            lambda m: OccamSCM().fit(m, y),
        ):
            with pytest.raises(DataError) as err:
                read(matrix)
            message = str(err.value)
            assert message.startswith("X (a dask array): the zarr array ") and "\n" not in message
            assert "refused codec 'pickle'" in message
    assert _FakeNumbers.reads == []
    assert X[:, :1].compute().shape == (4, 1) and _FakeNumbers.reads  # (the fake is read)


def test_a_dask_array_of_a_zarr_store_is_read_and_checked_once(tmp_path, monkeypatch):
    da = pytest.importorskip("dask.array")
    from widefs._utils import _dask_stores as _stores

    X, _ = _zarr_store(tmp_path / "s.zarr", fmt=2)

    def open_lazy():
        # dask opens the zarr array the test opened (dask before 2024.12 cannot open a zarr 3
        # store by its path), as a user's own `da.from_zarr(zarr.open_array(...))` does.
        return da.from_zarr(zarr.open_array(str(tmp_path / "s.zarr" / "X"), mode="r"))

    lazy = open_lazy()
    walks = []
    real = _stores._graph_zarr_arrays
    monkeypatch.setattr(_stores, "_graph_zarr_arrays", lambda g: walks.append(1) or real(g))
    for j in range(X.shape[1]):
        np.testing.assert_array_equal(load_columns(lazy, [j])[:, 0], X[:, j])
    assert len(walks) == 1  # the graph is walked once, not once a block
    assert len(real(lazy.__dask_graph__())) == 1
    # The store changed and opened again (the same path, the same dask name): checked again.
    meta_file = tmp_path / "s.zarr" / "X" / ".zarray"
    meta = json.loads(meta_file.read_text())
    meta["filters"] = [{"id": "astype", "encode_dtype": "|b1", "decode_dtype": "|b1"}]
    meta_file.write_text(json.dumps(meta))
    again = open_lazy()
    with pytest.raises(DataError, match="refused codec 'astype'"):
        load_columns(again, [0])


@pytest.mark.skipif(ZARR_MAJOR >= 3, reason="zarr 3 does not open a pickled array of numbers")
def test_dask_from_zarr_of_a_pickled_store_never_runs_it(tmp_path):
    da = pytest.importorskip("dask.array")
    marker = tmp_path / "ran"
    path = _hostile_store(tmp_path / "s.zarr", marker)
    payload = pickle.dumps(_Payload(marker), protocol=4)
    _write(path, "Xp", _v2_meta((4, 3), "<f8", [{"id": "pickle"}]), {"0.0": payload})
    array = zarr.open_group(str(path), mode="r")["Xp"]
    with contextlib.suppress(TypeError):  # the test can fail: computing it runs the payload
        da.from_zarr(array).compute()
    assert marker.exists()
    marker.unlink()
    for inline in (False, True):
        with pytest.raises(DataError, match=r"the zarr array 'Xp' it reads: refused codec"):
            load_columns(da.from_zarr(array, inline_array=inline), [0, 1])
    assert not marker.exists()
