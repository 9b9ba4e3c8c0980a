"""HDF5/AnnData files are data, checked by the one whitelist of every container
(``widefs._utils.value_kind``, shared with zarr stores): an element of any other type is
refused in one line before a value of it is read."""

import h5py
import numpy as np
import pandas as pd
import pytest

from widefs._utils import MAX_TEXT_WIDTH, value_kind
from widefs.cli.io._data import load_cli_data
from widefs.exceptions import DataError

ad = pytest.importorskip("anndata")


@pytest.mark.parametrize(
    ("dtype", "kind"),
    [
        (h5py.string_dtype("utf-8"), "text"),
        (h5py.string_dtype("ascii"), "text"),
        (h5py.string_dtype("utf-8", 10), "text"),
        (np.dtype("S4"), "text"),
        (np.dtype("<U4"), "text"),  # (zarr's fixed text; HDF5 has none)
        (h5py.ref_dtype, None),
        (h5py.regionref_dtype, None),
        (h5py.vlen_dtype(np.int32), None),
        (h5py.enum_dtype({"a": 0, "b": 1}, basetype="i1"), "numeric"),
        (np.dtype([("a", "<i4"), ("b", "<f8")]), None),
        (np.dtype("<c16"), None),
        (np.dtype("<M8[ns]"), None),
        (np.dtype("O"), None),
        (np.dtype("?"), "numeric"),
        (np.dtype("<u8"), "numeric"),
        (np.dtype("<f2"), "numeric"),
    ],
)
def test_one_whitelist_for_hdf5_and_zarr(dtype, kind):
    assert value_kind(dtype) == kind
    if kind != "numeric" and np.dtype(dtype).kind != "U":  # h5py's own idea of text agrees
        assert (h5py.check_string_dtype(dtype) is not None) == (kind == "text")


def _h5ad(path, n=6, p=4):
    rng = np.random.default_rng(0)
    obs = pd.DataFrame(
        {"cls": pd.Categorical(["a", "b"] * (n // 2))}, index=[f"s{i}" for i in range(n)]
    )
    var = pd.DataFrame(index=[f"g{j}" for j in range(p)])
    ad.AnnData(X=rng.normal(size=(n, p)), obs=obs, var=var).write_h5ad(path)
    return path


def _replace(f, name, data=None, **kwargs):
    attrs = dict(f[name].attrs)
    del f[name]
    ds = f.create_dataset(name, data=data, **kwargs)
    ds.attrs.update(attrs)
    return ds


@pytest.mark.parametrize(
    ("element", "make", "problem"),
    [
        ("X", dict(shape=(6, 4), dtype=h5py.ref_dtype), "X holds values of type object"),
        (
            "X",
            dict(data=np.zeros((6, 4), dtype=[("a", "<i4"), ("b", "<f4")])),
            "X holds values of type",
        ),
        ("X", dict(data=np.zeros((6, 4), dtype="<c16")), "X holds values of type complex128"),
        (
            "obs/cls/codes",
            dict(shape=(6,), dtype=h5py.vlen_dtype(np.int32)),
            "obs column 'cls' holds values of type object",
        ),
        (
            "obs/cls/categories",
            dict(data=np.array([b"a" * (MAX_TEXT_WIDTH + 1), b"b"])),
            f"text of {MAX_TEXT_WIDTH + 1} characters per value",
        ),
        ("var/_index", dict(shape=(4,), dtype=h5py.ref_dtype), "the index of var holds values"),
    ],
)
def test_an_element_of_another_type_is_refused_unread(
    tmp_path, monkeypatch, element, make, problem
):
    path = _h5ad(tmp_path / "a.h5ad")
    with h5py.File(path, "r+") as f:
        _replace(f, element, **make)
    read = []
    real = h5py.Dataset.__getitem__
    monkeypatch.setattr(
        h5py.Dataset, "__getitem__", lambda ds, key: read.append(ds.name) or real(ds, key)
    )
    with pytest.raises(DataError) as err:
        load_cli_data(path, target="cls")
    message = str(err.value)
    assert problem in message and "\n" not in message
    assert "/" + element not in read  # refused before a value of it was read


def test_the_plain_file_is_read(tmp_path):
    data = load_cli_data(_h5ad(tmp_path / "a.h5ad"), target="cls")
    assert data.X.shape == (6, 4) and list(data.y) == ["a", "b"] * 3
