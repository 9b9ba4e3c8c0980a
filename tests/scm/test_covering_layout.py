"""How the sample-compression greedy reads an out-of-core matrix, and its rank table's ranks.

The reads follow the storage chunks (each read whole once, in the matrix's own float
dtype), the sorted blocks sit inside the reads, and equal (utility, tie-break) pairs share
one dense rank: each test pins one of these with exact values.
"""

import numpy as np
import pytest

from widefs.scm import _covering as cov


class Chunked:
    """Only a ``chunks`` attribute, as zarr (widths) or dask (sizes of every chunk) give."""

    def __init__(self, chunks):
        self.chunks = chunks


@pytest.mark.parametrize(
    ("chunks", "width"),
    [
        ((10, 3), 3),  # zarr: one width per axis
        ((10, 1), 1),
        (((10,), (4, 3)), 4),  # dask: the first chunk's width
        ((10, 0), None),  # no usable width
        ((10,), None),  # no column axis
        (None, None),
    ],
)
def test_column_chunk_width(chunks, width):
    assert cov._column_chunk(Chunked(chunks)) == width


def test_column_chunk_of_real_arrays():
    da = pytest.importorskip("dask.array")
    assert cov._column_chunk(da.zeros((6, 11), chunks=(6, (4, 4, 3)))) == 4
    assert cov._column_chunk(np.zeros((6, 11))) is None


@pytest.mark.parametrize(
    ("dtype", "read"), [(np.float32, np.float32), (np.float64, np.float64), (np.int16, np.float64)]
)
def test_lazy_reads_follow_the_chunks_in_the_native_float_dtype(
    literal_greedy, tie_data, monkeypatch, dtype, read
):
    # 23 columns in chunks of 8, blocks of 3 columns: reads [0, 8), [8, 16), [16, 23) hold
    # blocks at offsets 0, 3, 6 within each read, each sorted from its own columns.
    da = pytest.importorskip("dask.array")
    X, y = tie_data(4, m=30, n=23)
    X = np.round(X * 4).astype(dtype)
    y = y ^ (np.arange(30) % 3 == 0)
    reads = []
    load_columns = cov.load_columns

    def recording(Z, columns, dtype=np.float64):
        if isinstance(columns, slice):
            reads.append((columns.start, columns.stop, dtype))
        return load_columns(Z, columns, dtype=dtype)

    monkeypatch.setattr(cov, "load_columns", recording)
    lazy = da.from_array(X, chunks=(30, 8))
    got = cov.sc_greedy(lazy, y, p=1.0, max_rules=6, lazy=True, block_entries=3 * 30)
    assert reads == [(0, 8, read), (8, 16, read), (16, 23, read)]
    ref = literal_greedy(X.astype(float), y, utility="sc", p=1.0, max_rules=6, reuse=False)
    assert [(s.feature, s.direction, s.threshold) for s in got] == [r[:3] for r in ref]


def test_block_layout_inside_the_reads():
    class Lazy(Chunked):
        shape = (10, 23)

    reads, spans = cov._block_layout(Lazy((10, 8)), lazy=True, block_entries=30, cpus=1)
    assert [(r.start, r.stop) for r in reads] == [(0, 8), (8, 16), (16, 23)]
    assert [(b.start, b.stop) for b in spans] == [
        (0, 3), (3, 6), (6, 8), (8, 11), (11, 14), (14, 16), (16, 19), (19, 22), (22, 23)
    ]  # fmt: skip


@pytest.mark.parametrize("p", [1.0, 1.5, 0.5])
def test_rank_table_is_a_dense_rank(p):
    # With p = 1 the utility equals the tie-break, and many (q, r) share a key: they share
    # a rank, and the ranks are 0, 1, ... without gaps.
    n_neg, n_pos = 5, 4
    rank, utility, tie = cov._rank_table(n_neg, n_pos, p)
    keys = [(q - p * r, q - r) for r in range(n_pos + 1) for q in range(n_neg + 1)]
    distinct = sorted(set(keys))
    assert rank.tolist() == [distinct.index(k) for k in keys]
    assert list(zip(utility.tolist(), tie.tolist(), strict=True)) == distinct
    assert utility.dtype == tie.dtype == np.float64
