"""Presence/absence data packed in bits: the packing, and the same models as the float path."""

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone

from widefs.scm import OccamSCM, PACBayesSCM, SampleCompressionSCM
from widefs.scm import _bitpacked as bp
from widefs.scm._bitpacked import PackedBinary, float_path, pack_binary, row_words


def _kmers(seed=0, m=70, n=60, dup=True):
    """0/1 data: a few causal columns with copies (equivalent features) and noise columns."""
    rng = np.random.default_rng(seed)
    X = rng.random((m, n)) < rng.uniform(0.05, 0.6, size=n)
    if dup:
        X[:, 10:13] = X[:, [3]]  # three copies of column 3
        X[:, 20] = ~X[:, 5]  # column 5's complement
    y = (X[:, 3] & ~X[:, 5]) | (rng.random(m) < 0.1)
    return X, np.where(y, "resistant", "not resistant")


def _oracle(X):
    """np.packbits along the samples, as uint64 words per feature."""
    X = np.asarray(X, dtype=bool)
    packed = np.packbits(X, axis=0, bitorder="little").T  # (features, bytes)
    words = np.zeros((X.shape[1], -(-X.shape[0] // 64) * 8), dtype=np.uint8)
    words[:, : packed.shape[1]] = packed
    return words.view(np.uint64)


@pytest.mark.parametrize("m", [1, 63, 64, 65, 130])
@pytest.mark.parametrize("dtype", [bool, np.uint8, np.int64, np.float64, np.float32])
def test_packing_equals_packbits_along_the_samples(m, dtype):
    X = np.random.default_rng(m).random((m, 37)) < 0.4
    P = pack_binary(X.astype(dtype))
    np.testing.assert_array_equal(P.bits, _oracle(X))
    assert P.shape == (m, 37) and not P.bits.flags.writeable
    np.testing.assert_array_equal(P[:, 5], X[:, 5].astype(float))
    lo, hi = P.min_max()
    np.testing.assert_array_equal(lo, X.min(axis=0)) and np.testing.assert_array_equal(hi, X.max(0))


def test_packing_reads_blocks_and_rejects_other_values(monkeypatch, tmp_path):
    monkeypatch.setattr(bp, "PACK_BLOCK_BYTES", 64 * 5)  # blocks of 64 columns
    X = np.random.default_rng(0).random((5, 300)) < 0.5
    mm = np.memmap(tmp_path / "x.dat", dtype=np.uint8, mode="w+", shape=X.shape)
    mm[:] = X
    np.testing.assert_array_equal(pack_binary(mm).bits, _oracle(X))
    for value in (2.0, 0.5, np.nan, -1.0):
        bad = X.astype(float)
        bad[3, 250] = value  # in a later block than the first
        assert pack_binary(bad) is None
    assert pack_binary(np.array([["a", "b"]] * 3, dtype=object)) is None
    with float_path():
        assert pack_binary(X) is None
    assert pack_binary(X) is not None


def test_packing_zarr_and_dask(tmp_path):
    zarr = pytest.importorskip("zarr")
    da = pytest.importorskip("dask.array")
    X = np.random.default_rng(1).random((9, 200)) < 0.3
    z = zarr.open_array(tmp_path / "x.zarr", mode="w", shape=X.shape, chunks=(9, 32), dtype=bool)
    z[:] = X
    np.testing.assert_array_equal(pack_binary(z).bits, _oracle(X))
    np.testing.assert_array_equal(pack_binary(da.from_array(X, chunks=(9, 50))).bits, _oracle(X))


def test_row_subsets_share_the_bits():
    X = np.random.default_rng(2).random((100, 7)) < 0.5
    P = pack_binary(X)
    sub = P.take_rows(np.array([3, 70, 99])).take_rows([0, 2])
    assert sub.bits is P.bits and sub.rows.tolist() == [3, 99]
    np.testing.assert_array_equal(sub[:, 4], X[[3, 99], 4].astype(float))
    np.testing.assert_array_equal(sub.ones(), X[[3, 99]].sum(axis=0))
    mask = np.zeros(100, bool)
    mask[[0, 64, 99]] = True
    assert [int(w) for w in row_words(mask, 2)] == [1, (1 << 0) | (1 << 35)]


def _estimators():
    return [
        SampleCompressionSCM(max_rules=6),
        SampleCompressionSCM("disjunction", p=0.5, feature_reuse=True),
        OccamSCM(max_rules=6),
        OccamSCM(feature_range=(0.0, 10.0), eta=0.05, positives="remaining"),  # codes of 3 bits
        OccamSCM("disjunction", feature_range=(-1.0, 1.0), threshold_interval="all"),
        PACBayesSCM(max_rules=6),
        PACBayesSCM("disjunction", feature_range=(0.0, 3.0), eta=0.2, p=2.0),
    ]


def _same_model(a, b):
    assert a.rules_ == b.rules_
    assert a.risk_bound_ == b.risk_bound_
    assert np.array_equal(a.feature_importances_, b.feature_importances_)
    for attr in ("bound_path_", "compression_set_", "margin_ratios_"):
        if hasattr(b, attr):
            np.testing.assert_array_equal(getattr(a, attr), getattr(b, attr))


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("est", _estimators(), ids=repr)
def test_packed_models_are_the_float_models(est, seed):
    X, y = _kmers(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        packed = clone(est).fit(X, y)
        with float_path():
            ref = clone(est).fit(X, y)
    _same_model(packed, ref)
    assert (packed.predict(X) == ref.predict(X)).all()
    assert packed.n_rules_learned_ >= 1


def test_packed_path_is_taken(monkeypatch):
    X, y = _kmers(0)
    seen = []
    original = bp.packed_greedy
    monkeypatch.setattr(
        "widefs.scm._base.packed_greedy",
        lambda X, *a, **k: seen.append(type(X)) or original(X, *a, **k),
    )
    SampleCompressionSCM().fit(X, y)
    SampleCompressionSCM().fit(pd.DataFrame(X.astype(int)), y)
    assert seen == [PackedBinary, PackedBinary]


def test_pac_bayes_falls_back_where_sums_would_not_be_exact():
    X, y = _kmers(1)
    est = PACBayesSCM(feature_range=(-1.0, 1.0)).fit(X, y)
    with float_path():
        ref = PACBayesSCM(feature_range=(-1.0, 1.0)).fit(X, y)
    _same_model(est, ref)
    est = PACBayesSCM(feature_range=(0.0, 1.0))
    est.fit(X, y)
    assert est._packed_utility(pack_binary(X)) is not None
    assert est.set_params(margin=0.1)._packed_utility(pack_binary(X)) is None


@pytest.mark.parametrize("est", _estimators()[::2], ids=repr)
def test_packed_decision_lists_are_the_float_ones(est):
    rng = np.random.default_rng(3)
    X = rng.random((120, 40)) < 0.35
    y = np.select([X[:, 2] & X[:, 4], X[:, 7]], ["A", "B"], "C")
    y[rng.random(120) < 0.05] = "B"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        packed = clone(est).fit(X, y)
        with float_path():
            ref = clone(est).fit(X, y)
    assert [cm.label for cm in packed.machines_] == [cm.label for cm in ref.machines_]
    for a, b in zip(packed.machines_, ref.machines_, strict=True):
        _same_model(a.machine, b.machine)
    assert packed.risk_bound_ == ref.risk_bound_
    assert (packed.predict(X) == ref.predict(X)).all()


def test_ties_go_to_the_lowest_feature_and_presence_first():
    # Columns 0-2 identical, column 3 the complement of column 0: all cover the same examples.
    x = np.array([1, 1, 0, 0, 1, 0], dtype=bool)
    X = np.column_stack([x, x, x, ~x])
    y = np.array([1, 1, 0, 0, 1, 0])
    for est in (
        SampleCompressionSCM(),
        OccamSCM(feature_range=(0, 1)),
        PACBayesSCM(feature_range=(0, 1)),
    ):
        fitted = est.fit(X, y)
        (rule,) = fitted.rules_
        assert (rule.feature, rule.direction) == (0, ">")
        assert rule.equivalent == ((1, ">"), (2, ">"), (3, "<="))


def test_pack_once_fit_many():
    X, y = _kmers(2)
    P = pack_binary(X)
    assert pack_binary(P) is P
    for est in (*_estimators()[::3], PACBayesSCM(feature_range=(0, 1), margin=0.2)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            on_packed = clone(est).fit(P, y)
            with float_path():  # the packed matrix read as an out-of-core float matrix
                as_float = clone(est).fit(P, y)
            ref = clone(est).fit(X.astype(float), y)
        _same_model(on_packed, ref)
        _same_model(as_float, ref)
    np.testing.assert_array_equal(P[:, 3:9], X[:, 3:9].astype(float))
    np.testing.assert_array_equal(P[[0, 5], [2, 7]], X[[0, 5]][:, [2, 7]].astype(float))
