"""Out-of-core fits (memmap, dask, zarr) give exactly the in-memory Set Covering Machines."""

import numpy as np
import pytest

from widefs.scm import OccamSCM, PACBayesSCM, SampleCompressionSCM
from widefs.scm import _covering as cov


@pytest.fixture(scope="module")
def wide():
    rng = np.random.default_rng(0)
    m, n = 40, 1500
    X = np.round(rng.normal(size=(m, n)) * 8).astype(np.float32)  # ties, exact in float32
    y = ((X[:, 10] > -2) & (X[:, 700] < 5)) ^ (rng.random(m) < 0.1)
    return X, y.astype(int)


MODELS = {
    "sc": lambda: SampleCompressionSCM(p=1.5, max_rules=6),
    "sc-reuse": lambda: SampleCompressionSCM(p=1.0, max_rules=6, feature_reuse=True),
    "occam": lambda: OccamSCM(p=1.0, eta=0.01, max_rules=4, feature_range=(-60.0, 60.0)),
    "pac-bayes": lambda: PACBayesSCM(p=1.0, eta=0.01, max_rules=3, feature_range=(-60.0, 60.0)),
    "fixed-margin": lambda: PACBayesSCM(max_rules=3, margin=0.05, feature_range=(-60, 60)),
}


def assert_same(a, b, X):
    assert [str(r) for r in a.rules_] == [str(r) for r in b.rules_]
    assert [r.to_dict() for r in a.rules_] == [r.to_dict() for r in b.rules_]
    assert a.risk_bound_ == b.risk_bound_
    np.testing.assert_array_equal(a.bound_path_, b.bound_path_)
    np.testing.assert_array_equal(a.feature_importances_, b.feature_importances_)
    assert a.n_features_in_ == b.n_features_in_ == X.shape[1]


@pytest.fixture(scope="module")
def reference(wide):
    X, y = wide
    return {name: make().fit(X, y) for name, make in MODELS.items()}


@pytest.fixture
def memmap(tmp_path, wide):
    X, _ = wide
    path = tmp_path / "X.f32"
    mm = np.memmap(path, dtype=np.float32, mode="w+", shape=X.shape)
    mm[:] = X
    mm.flush()
    return np.memmap(path, dtype=np.float32, mode="r", shape=X.shape)


@pytest.mark.parametrize("name", sorted(MODELS))
def test_memmap_in_small_blocks(monkeypatch, wide, reference, memmap, name):
    X, y = wide
    # Force many blocks: a few dozen columns per loaded block.
    monkeypatch.setattr(cov, "LAZY_BLOCK_ENTRIES", 40 * 37)
    for mod in ("widefs.scm._presorted", "widefs.scm._base"):
        monkeypatch.setattr(f"{mod}.block_width", lambda n, **kw: 53)
    model = MODELS[name]().fit(memmap, y)
    assert_same(model, reference[name], X)
    # predict reads only the rules' columns of the out-of-core matrix
    np.testing.assert_array_equal(model.predict(memmap), reference[name].predict(X))


def test_sample_compression_without_rank_table_reads_blocks(monkeypatch, wide, reference, memmap):
    # Too many examples for the rank table: utilities computed directly, block by block.
    monkeypatch.setattr(cov, "MAX_TABLE_ENTRIES", 1)
    monkeypatch.setattr(cov, "LAZY_BLOCK_ENTRIES", 40 * 37)
    X, y = wide
    assert_same(MODELS["sc"]().fit(memmap, y), reference["sc"], X)


@pytest.mark.parametrize("name", ["sc", "pac-bayes"])
def test_dask_array(wide, reference, name):
    da = pytest.importorskip("dask.array")
    X, y = wide
    dX = da.from_array(X, chunks=(40, 256))
    model = MODELS[name]().fit(dX, y)
    assert_same(model, reference[name], X)
    np.testing.assert_array_equal(model.predict(dX), reference[name].predict(X))
    np.testing.assert_array_equal(model.staged_predict(dX).__next__(), np.full(40, 1))


@pytest.mark.parametrize("name", ["sc", "pac-bayes"])
def test_zarr_array(tmp_path, wide, reference, name):
    zarr = pytest.importorskip("zarr")
    X, y = wide
    z = zarr.create_array(
        store=str(tmp_path / "X.zarr"), shape=X.shape, chunks=(40, 200), dtype="f4"
    )
    z[:] = X
    model = MODELS[name]().fit(z, y)
    assert_same(model, reference[name], X)
    np.testing.assert_array_equal(model.predict(z), reference[name].predict(X))
    if name == "pac-bayes":
        np.testing.assert_array_equal(model.predict_proba(z), reference[name].predict_proba(X))


@pytest.mark.parametrize("name", ["sc", "occam", "pac-bayes"])
def test_lazy_input_rejects_nan_and_bad_shapes(tmp_path, wide, name):
    X, y = wide
    bad = X.copy()
    bad[3, 900] = np.nan
    mm = np.memmap(tmp_path / "bad.f32", dtype=np.float32, mode="w+", shape=X.shape)
    mm[:] = bad
    with pytest.raises(ValueError, match=r"NaN or infinity \(columns \[900\]\)"):
        MODELS[name]().fit(mm, y)
    with pytest.raises(ValueError, match="40 rows and y 39 labels"):
        MODELS[name]().fit(mm, y[:-1])


def test_lazy_feature_range_is_checked_and_inferred(memmap, wide):
    X, y = wide
    with pytest.raises(ValueError, match="does not contain the training data"):
        OccamSCM(feature_range=(-1.0, 1.0)).fit(memmap, y)
    with pytest.warns(UserWarning, match="feature_range not given"):
        lazy = PACBayesSCM(max_rules=2).fit(memmap, y)
    with pytest.warns(UserWarning, match="feature_range not given"):
        eager = PACBayesSCM(max_rules=2).fit(X, y)
    np.testing.assert_array_equal(lazy.feature_range_[0], X.min(axis=0))
    assert [str(r) for r in lazy.rules_] == [str(r) for r in eager.rules_]


def test_predict_checks_the_number_of_features(memmap, wide, reference):
    with pytest.raises(ValueError, match="expected 1500 features"):
        reference["sc"].predict(memmap[:, :100])


def test_integer_genotype_memmap(tmp_path):
    # SNP-like 0/1/2 codes stored as int8: read block by block, compared as floats.
    rng = np.random.default_rng(4)
    X = rng.integers(0, 3, size=(30, 400)).astype(np.int8)
    y = ((X[:, 7] > 0) & (X[:, 300] < 2)) ^ (rng.random(30) < 0.1)
    mm = np.memmap(tmp_path / "snp.i8", dtype=np.int8, mode="w+", shape=X.shape)
    mm[:] = X
    for make in (MODELS["sc"], lambda: PACBayesSCM(max_rules=3, feature_range=(0, 2))):
        assert_same(make().fit(mm, y), make().fit(X.astype(float), y), X)
