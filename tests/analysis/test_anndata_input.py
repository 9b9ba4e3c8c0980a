"""analyse() on an AnnData object and on scipy sparse X: the same numbers as on the dense
matrix with the same names; labels from an obs column; layers; refusals in one line."""

import subprocess
import sys
import warnings
from importlib import metadata

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from packaging.version import Version

from widefs.analysis import _inputs, analyse

ad = pytest.importorskip("anndata")

QUICK = dict(quick=True, random_state=0, n_permutations=2, n_null_permutations=20)


def data(n=40, m=50, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.poisson(0.5, size=(n, m)).astype(float)
    y = np.repeat(["b_cell", "t_cell"], n // 2)
    X[y == "t_cell", :3] += 2
    return X, y, [f"g{j}" for j in range(m)]


def adata_of(X, y, names, layer=None):
    obs = pd.DataFrame(
        {"cell_type": pd.Categorical(y), "batch": np.arange(len(y)) % 2},
        index=[f"c{i}" for i in range(len(y))],
    )
    var = pd.DataFrame(index=names)
    if layer is None:
        return ad.AnnData(X=X, obs=obs, var=var)
    A = ad.AnnData(X=np.zeros(X.shape), obs=obs, var=var)
    A.layers[layer] = X
    return A


def run(*args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return analyse(*args, **kwargs, **QUICK)


@pytest.mark.parametrize("fmt", [np.asarray, sp.csr_matrix, sp.csc_array])
def test_anndata_gives_the_dense_numbers(fmt):
    X, y, names = data()
    if fmt is sp.csc_array and Version(metadata.version("anndata")) < Version("0.11"):
        pytest.skip("anndata before 0.11 does not hold scipy sparse arrays")
    dense = run(X, y, feature_names=names, methods=["chance", "scm"])
    got = run(adata_of(fmt(X), y, names), target="cell_type", methods=["chance", "scm"])
    pd.testing.assert_frame_equal(got.features, dense.features)
    assert got.scm.descriptions == dense.scm.descriptions
    assert "g2" in " ".join(got.scm.descriptions.values())  # var_names name the rules


def test_sparse_runs_the_scms_without_densifying(monkeypatch):
    X, y, names = data()
    dense = run(X, y, feature_names=names, methods=["scm"])
    monkeypatch.setattr(_inputs, "SPARSE_DENSE_LIMIT", 8)  # no dense copy allowed
    got = run(adata_of(sp.csr_matrix(X), y, names), target="cell_type", methods=["scm"])
    assert got.scm.descriptions == dense.scm.descriptions
    for name, model in dense.scm.models.items():
        assert model.risk_bound_ == got.scm.models[name].risk_bound_
    with pytest.raises(ValueError, match=r"the parts chance need it dense: run methods=\['scm'\]"):
        run(sp.csr_matrix(X), y, methods=["chance", "scm"])


def test_layer_and_labels_given_as_y():
    X, y, names = data()
    dense = run(X, y, feature_names=names, methods=["scm"])
    A = adata_of(sp.csr_matrix(X), y, names, layer="counts")
    got = run(A, y, layer="counts", methods=["scm"])
    assert got.scm.descriptions == dense.scm.descriptions


def test_anndata_refusals():
    X, y, names = data()
    A = adata_of(X, y, names)
    with pytest.raises(ValueError, match=r"target 'celltype' is not an obs column; .*'cell_type'"):
        run(A, target="celltype", methods=["scm"])
    with pytest.raises(ValueError, match=r"layer 'counts' is not in the AnnData object"):
        run(A, target="cell_type", layer="counts", methods=["scm"])
    with pytest.raises(ValueError, match="either as y or as target="):
        run(A, y, target="cell_type", methods=["scm"])
    with pytest.raises(ValueError, match="either as y or as target="):
        run(A, methods=["scm"])
    with pytest.raises(ValueError, match="target= and layer= read an AnnData object"):
        run(X, y, target="cell_type", methods=["scm"])
    with pytest.raises(ValueError, match="y is required"):
        run(X, methods=["scm"])
    A.obs["cell_type"] = A.obs["cell_type"].cat.add_categories("x")
    A.obs.loc["c3", "cell_type"] = np.nan
    with pytest.raises(ValueError, match="1 missing labels"):
        run(A, target="cell_type", methods=["scm"])


def test_anndata_not_imported_for_other_inputs():
    code = (
        "import sys, numpy as np\n"
        "from widefs.analysis._inputs import check_inputs\n"
        "X = np.random.default_rng(0).normal(size=(6, 4))\n"
        "check_inputs(X, np.array([0, 0, 0, 1, 1, 1]), ['scm'], None)\n"
        "assert 'anndata' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
