"""AnnData ``.h5ad`` input: ``widefs run FILE.h5ad --target OBS_COLUMN`` reads the same data,
and gives the same features, as the equivalent CSV; X dense, CSR or CSC; layers; refusals in
one line (no anndata, a layer or column that is not there, values that are not numbers)."""

import builtins
import contextlib

import h5py
import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

from widefs.cli import main
from widefs.cli.io._data import load_cli_data
from widefs.exceptions import DataError

ad = pytest.importorskip("anndata")


def counts_frame(n=24, p=30, seed=3):
    """Sparse-looking integer data (about 70% zeros) with two informative features."""
    rng = np.random.default_rng(seed)
    X = rng.poisson(0.4, size=(n, p)).astype(float)
    y = np.where(np.arange(n) % 2 == 0, "tumour", "normal")
    X[y == "tumour", 4] += 5
    X[y == "tumour", 11] += 3
    return X, y


def write_h5ad(path, X, y, fmt="dense", layer=None):
    matrix = {"dense": np.asarray, "csr": sp.csr_matrix, "csc": sp.csc_matrix}[fmt](X)
    obs = pd.DataFrame(
        {"cell_type": pd.Categorical(y), "batch": np.arange(len(y)) % 3},
        index=[f"s{i}" for i in range(len(y))],
    )
    var = pd.DataFrame(index=[f"g{j}" for j in range(X.shape[1])])
    adata = ad.AnnData(X=np.zeros(X.shape) if layer else matrix, obs=obs, var=var)
    if layer:
        adata.layers[layer] = matrix
    adata.write_h5ad(path)
    return str(path)


@pytest.mark.parametrize("fmt", ["dense", "csr", "csc"])
def test_h5ad_reads_what_was_written(tmp_path, fmt):
    X, y = counts_frame()
    data = load_cli_data(write_h5ad(tmp_path / "a.h5ad", X, y, fmt), target="cell_type")
    np.testing.assert_array_equal(data.X, X)
    assert list(data.y) == list(y)
    assert list(data.feature_names) == [f"g{j}" for j in range(X.shape[1])]
    assert any("sparse" in n for n in data.notes) == (fmt != "dense")


def test_sparse_is_expanded_block_by_block(tmp_path, monkeypatch):
    # A block smaller than the matrix: the blocks must still tile it exactly.
    from widefs.cli.io import _anndata

    monkeypatch.setattr(_anndata, "_BLOCK_BYTES", 8 * 24 * 7)
    X, y = counts_frame()
    for fmt in ("csr", "csc", "dense"):
        path = write_h5ad(tmp_path / f"{fmt}.h5ad", X, y, fmt)
        np.testing.assert_array_equal(load_cli_data(path, target="cell_type").X, X)


def test_layer_is_chosen(tmp_path):
    X, y = counts_frame()
    path = write_h5ad(tmp_path / "l.h5ad", X, y, "csr", layer="counts")
    data = load_cli_data(path, target="cell_type", layer="counts")
    np.testing.assert_array_equal(data.X, X)
    assert any("layer 'counts'" in n for n in data.notes)
    with pytest.raises(DataError, match=r"layer 'raw' not found .* layers: counts"):
        load_cli_data(path, target="cell_type", layer="raw")


def test_layer_on_a_csv_is_refused(tmp_path):
    path = tmp_path / "a.csv"
    path.write_text("g0,class\n1,a\n2,b\n")
    with pytest.raises(DataError, match="--layer applies to an AnnData"):
        load_cli_data(str(path), layer="counts")


def test_unknown_obs_column_lists_the_columns(tmp_path):
    X, y = counts_frame()
    path = write_h5ad(tmp_path / "a.h5ad", X, y)
    with pytest.raises(
        DataError, match=r"'disease' not found in the .h5ad file's obs; columns are: .*cell_type"
    ):
        load_cli_data(path, target="disease")


def test_object_matrix_is_refused_before_reading(tmp_path):
    X, y = counts_frame(n=6, p=12)
    path = write_h5ad(tmp_path / "a.h5ad", X, y)
    with h5py.File(path, "r+") as f:  # X replaced by fixed-length byte strings
        del f["X"]
        f.create_dataset("X", data=np.full((6, 12), b"1.5", dtype="S3"))
    with pytest.raises(DataError, match=r"^X holds values of type \|S3 \(not read\)"):
        load_cli_data(path, target="cell_type")


def test_without_anndata_one_line_names_the_extra(tmp_path, monkeypatch):
    X, y = counts_frame(n=6, p=12)
    path = write_h5ad(tmp_path / "a.h5ad", X, y)
    real = builtins.__import__

    def no_anndata(name, *args, **kwargs):
        if name == "anndata" or name.startswith("anndata."):
            raise ImportError(name)
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_anndata)
    with pytest.raises(DataError, match=r'pip install "widefs\[anndata\]"'):
        load_cli_data(path, target="cell_type")


@pytest.mark.parametrize("fmt", ["dense", "csr", "csc"])
def test_run_on_h5ad_gives_the_csv_features(tmp_path, fmt):
    X, y = counts_frame()
    h5ad = write_h5ad(tmp_path / "a.h5ad", X, y, fmt)
    csv = tmp_path / "a.csv"
    frame = pd.DataFrame(X, columns=[f"g{j}" for j in range(X.shape[1])])
    frame["cell_type"] = y
    frame.to_csv(csv, index=False)
    tables = []
    for path, out in ((h5ad, tmp_path / "o1"), (str(csv), tmp_path / "o2")):
        argv = ["run", path, "--target", "cell_type", "--quick", "--methods", "chance,scm"]
        assert main([*argv, "--permutations", "5", "--seed", "1", "--out", str(out)]) == 0
        tables.append(pd.read_csv(out / "features.csv"))
    pd.testing.assert_frame_equal(tables[0], tables[1])
    assert set(tables[0].sort_values("errors")["feature"].iloc[:2]) == {"g4", "g11"}


# Nullable strings where anndata writes them (0.11 and later, behind a setting); text in an
# object column, which anndata stores as categories, on older versions.
_STRING = (
    "string" if hasattr(getattr(ad, "settings", None), "allow_write_nullable_strings") else object
)


def test_obs_labels_of_other_types(tmp_path):
    n = 8
    rng = np.random.default_rng(0)
    obs = pd.DataFrame(
        {
            "flag": np.arange(n) % 2 == 0,
            "code": pd.array([0, 1] * 4, dtype="Int64"),
            "text": pd.array(["a", "b"] * 3 + ["a", None], dtype=_STRING),
        },
        index=[f"c{i}" for i in range(n)],
    )
    adata = ad.AnnData(X=rng.normal(size=(n, 6)), obs=obs)
    settings = getattr(ad, "settings", None)
    override = (
        settings.override(allow_write_nullable_strings=True)
        if _STRING == "string"
        else contextlib.nullcontext()
    )
    with override:
        adata.write_h5ad(tmp_path / "o.h5ad")
    path = str(tmp_path / "o.h5ad")
    assert list(load_cli_data(path, target="flag").y) == ["True", "False"] * 4
    assert list(load_cli_data(path, target="code").y) == ["0", "1"] * 4
    with pytest.raises(DataError, match="empty label"):  # the missing string, located
        load_cli_data(path, target="text")
