"""How the screen reads an out-of-core matrix: whole storage chunks, each column once.

A zarr or dask array decodes a whole chunk to give any value of it, so a block that ends
inside a chunk makes the next one decode it again; the rank branch used to read its columns
a second time. A matrix that records what is read shows that every block is made of whole
chunks and every column is read once, and the fit equals the in-memory one bit for bit.
"""

import numpy as np
import pytest

from widefs._utils import column_chunk, store_blocks
from widefs.univariate import ClassDifferenceScreen
from widefs.univariate._kinds import KeptRanks
from widefs.univariate._screen_select import CodedValues

from .screen_attrs import FITTED

pytestmark = pytest.mark.filterwarnings("ignore")


class RecordingStore:
    """A chunked matrix (as zarr presents one) that records every column slice read."""

    def __init__(self, X, chunk):
        self.X, self.shape, self.dtype = X, X.shape, X.dtype
        self.chunks = (X.shape[0], chunk)
        self.reads = []
        self.oindex = self  # marks an out-of-core matrix; indexing goes through __getitem__

    def __getitem__(self, key):
        rows, cols = key
        self.reads.append(np.arange(self.shape[1])[cols])
        return self.X[rows, cols]


def _mixed(seed=2):
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1], [15, 17])
    n = y.size
    X = np.column_stack(
        [
            rng.normal(size=(n, 600)),
            rng.lognormal(size=(n, 80)),  # ranked, untied
            rng.poisson(0.6, size=(n, 60)).astype(float),  # ranked, tied
            (rng.random((n, 50)) < 0.3).astype(float),  # two-valued
            np.full((n, 3), 4.0),
        ]
    )
    X[:, :10] += 1.5 * y[:, None]
    return X[:, rng.permutation(X.shape[1])].astype(np.float32), y


@pytest.mark.parametrize("chunk", [7, 64, 1000])
def test_each_chunk_is_read_once_and_the_fit_is_the_in_memory_one(chunk, monkeypatch):
    X, y = _mixed()
    ref = ClassDifferenceScreen(random_state=1).fit(X, y)
    # Blocks of 50 columns wanted: rounded to whole chunks (at least one chunk).
    monkeypatch.setattr("widefs.univariate._kinds._BLOCK_BYTES", 32 * 8 * 50)
    store = RecordingStore(X, chunk)
    lazy = ClassDifferenceScreen(random_state=1).fit(store, y)
    assert lazy.kind_counts_["ranked"] > 100 and lazy.spread_weight_ > 0
    for name in FITTED:
        np.testing.assert_array_equal(getattr(lazy, name), getattr(ref, name), err_msg=name)
    assert lazy.prior_ == ref.prior_ and lazy.threshold_ == ref.threshold_
    read = np.concatenate(store.reads)
    np.testing.assert_array_equal(read, np.arange(X.shape[1]))  # every column once, in order
    for cols in store.reads:
        last = cols[-1] + 1 == X.shape[1]
        assert cols[0] % chunk == 0 and ((cols[-1] + 1) % chunk == 0 or last)
        assert cols.size == max(chunk, 50 // chunk * chunk) or last


def test_column_chunk_and_store_blocks():
    da = pytest.importorskip("dask.array")
    x = da.zeros((3, 10), chunks=(3, (4, 1, 2, 3)))
    assert column_chunk(x) == (4, 1, 2, 3)
    # Irregular chunks: as many whole chunks as fit in the width, at least one.
    assert [(b.start, b.stop) for b in store_blocks(x, 5)] == [(0, 5), (5, 10)]
    assert [(b.start, b.stop) for b in store_blocks(x, 3)] == [(0, 4), (4, 7), (7, 10)]
    assert [(b.start, b.stop) for b in store_blocks(x, 100)] == [(0, 10)]
    z = RecordingStore(np.zeros((2, 10)), 4)
    assert column_chunk(z) == 4
    assert [(b.start, b.stop) for b in store_blocks(z, 9)] == [(0, 8), (8, 10)]
    assert [(b.start, b.stop) for b in store_blocks(z, 1)] == [(0, 4), (4, 8), (8, 10)]
    # No chunks (numpy, a chunk width that is not positive): blocks of the width asked.
    assert column_chunk(np.zeros((2, 3))) is None
    assert [(b.start, b.stop) for b in store_blocks(np.zeros((2, 5)), 2)][-1] == (4, 5)
    z.chunks = (2, 0)
    assert column_chunk(z) is None


def test_kept_ranks_are_the_mid_ranks():
    from scipy.stats import rankdata

    rng = np.random.default_rng(0)
    X = np.round(rng.normal(size=(9, 12)), 1)  # ties
    kept = KeptRanks(9)
    for cols in (slice(0, 5), slice(5, 6), slice(6, 12)):
        kept.add(np.arange(12)[cols], X[:, cols])
    kept.close()
    assert kept.shape == (9, 12) and kept.dtype_kept == np.uint8
    np.testing.assert_array_equal(kept.index, np.arange(12))
    ranks = rankdata(X, axis=0)
    np.testing.assert_array_equal(kept.columns(slice(None)), ranks)
    np.testing.assert_array_equal(kept.columns(np.array([11, 0, 5])), ranks[:, [11, 0, 5]])
    assert KeptRanks(200).dtype_kept == np.uint16  # 2 x 200 > 255


def test_coded_values_keep_few_values_in_small_codes():
    v = CodedValues(6, (0.0, 1.0))
    np.testing.assert_array_equal(v.toarray(), np.zeros(6))  # unset: the first value
    v.set([1, 4], [0.25, 1.0])
    v.set(np.array([5]), [0.25])
    np.testing.assert_array_equal(v.toarray(), [0, 0.25, 0, 0, 1.0, 0.25])
    np.testing.assert_array_equal(v[1:3], [0.25, 0.0])
    assert v.codes.dtype == np.uint8 and v.table.size == 3
    # More distinct values than a byte holds: wider codes, the values unchanged.
    many = np.arange(300) / 7.0
    w = CodedValues(300)
    w.set(np.arange(300), many)
    assert w.codes.dtype == np.uint16
    np.testing.assert_array_equal(w.toarray(), many)


def _presence(seed=3, n=37):
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1], [n // 2, n - n // 2])
    freq = rng.uniform(0.05, 0.5, 400)
    X = (rng.random((n, 400)) < freq).astype(np.uint8)
    X[:, :12] = rng.random((n, 12)) < np.where(y == 1, 0.8, 0.1)[:, None]
    X[:, 20] = 0  # constant
    return X, y


@pytest.mark.parametrize("n", [37, 40])  # the last byte part-filled, or full
def test_packed_bits_give_the_uint8_stores_fit(tmp_path, n, monkeypatch):
    zarr = pytest.importorskip("zarr")
    da = pytest.importorskip("dask.array")
    from widefs.utils import PackedBits

    X, y = _presence(n=n)
    ref = ClassDifferenceScreen(random_state=0).fit(X.astype(float), y)
    assert ref.kind_counts_["two_valued"] == 399 and ref.support_[:12].sum() >= 8
    monkeypatch.setattr("widefs.univariate._kinds._BLOCK_BYTES", n * 8 * 50)
    z8 = zarr.create_array(
        store=str(tmp_path / "u8.zarr"), shape=X.shape, chunks=(n, 64), dtype="u1"
    )
    z8[:] = X
    packed = np.packbits(X, axis=0)
    zp = zarr.create_array(
        store=str(tmp_path / "bits.zarr"),
        shape=packed.shape,
        chunks=(packed.shape[0], 64),
        dtype="u1",
    )
    zp[:] = packed
    assert packed.nbytes * 7 < X.nbytes
    fits = [
        ClassDifferenceScreen(random_state=0).fit(Xs, y)
        # dask over the opened array: the oldest dask opens a path with a newer zarr's API.
        for Xs in (z8, PackedBits(zp, n), PackedBits(da.from_zarr(zp), n))
    ]
    for fit in fits:
        for name in FITTED:
            np.testing.assert_array_equal(getattr(fit, name), getattr(ref, name), err_msg=name)
    assert PackedBits(zp, n).chunks == (n, 64)


def test_packed_bits_refuse_what_is_not_packed_bits():
    from widefs.utils import PackedBits

    with pytest.raises(ValueError, match="uint8 array of packed bits; got float64"):
        PackedBits(np.zeros((2, 3)), 16)
    with pytest.raises(ValueError, match="17 samples take 3 rows of packed bits; the array has 2"):
        PackedBits(np.zeros((2, 3), np.uint8), 17)
    with pytest.raises(ValueError, match="0 samples take 1 rows"):
        PackedBits(np.zeros((1, 3), np.uint8), 0)
    assert PackedBits(np.zeros((2, 3), np.uint8), 9).shape == (9, 3)
    assert PackedBits(np.zeros((2, 3), np.uint8), 9).chunks is None


@pytest.mark.parametrize("lazy", [False, True, "uint8"])
def test_blocks_of_zero_one_values_give_the_kernels_fit(lazy, monkeypatch):
    import widefs.univariate._kinds as kinds_module

    X, y = _presence(n=30)
    rng = np.random.default_rng(1)
    # Blocks of 40 columns: some all 0/1, some holding a continuous or a 0/2 column.
    X = X.astype(np.float32)
    X[:, 130] = rng.integers(0, 9, X.shape[0])  # integers on 9 values
    X[:, 250] = 2.0 * (rng.random(X.shape[0]) < 0.5)
    X[:, 21] = 1.0  # constant at 1
    monkeypatch.setattr(kinds_module, "_BLOCK_BYTES", 30 * 8 * 40)
    # A uint8 store is read as uint8: its 0/1 blocks are never converted to floats.
    data = RecordingStore(X.astype(np.uint8) if lazy == "uint8" else X, 40) if lazy else X
    fast = ClassDifferenceScreen(random_state=0).fit(data, y)
    monkeypatch.setattr(kinds_module, "_BINARY_FAST", False)
    ref = ClassDifferenceScreen(random_state=0).fit(data, y)
    assert fast.kind_counts_ == ref.kind_counts_
    assert (
        fast.kinds_[20] == fast.kinds_[21] == 0 and fast.kinds_[250] == 1 and fast.kinds_[130] > 1
    )
    assert fast.kind_counts_["two_valued"] > 390
    for name in FITTED:
        np.testing.assert_array_equal(getattr(fast, name), getattr(ref, name), err_msg=name)
    assert str(fast.prior_) == str(ref.prior_) and fast.support_[:12].sum() >= 8
