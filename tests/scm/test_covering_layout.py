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


def _counts_by_hand(X, y, stumps):
    """(negatives, positives) each stump covers among the examples still active."""
    active = np.ones(len(y), bool)
    out = []
    for s in stumps:
        x = X[:, s.feature]
        covered = active & ((x <= s.threshold) if s.direction == 1 else (x > s.threshold))
        out.append((int(np.sum(covered & ~y)), int(np.sum(covered & y))))
        active &= ~covered
    return out


@pytest.mark.parametrize("seed", range(3))
def test_covered_counts_and_max_rules_exactly(literal_greedy, tie_data, seed):
    X, y = tie_data(seed, m=40, n=9)
    y = y ^ (np.arange(40) % 3 == 0)
    full = cov.sc_greedy(X, y, p=0.5, max_rules=8, feature_reuse=True)
    assert len(full) >= 2
    counts = [(s.covered_negatives, s.covered_positives) for s in full]
    assert counts == _counts_by_hand(X, y, full)
    assert any(pos > 0 for _, pos in counts)
    for k in range(1, len(full)):  # exactly max_rules stumps when more would be added
        got = cov.sc_greedy(X, y, p=0.5, max_rules=k, feature_reuse=True)
        assert [(s.feature, s.threshold) for s in got] == [
            (s.feature, s.threshold) for s in full[:k]
        ]


def test_runs_out_of_features_and_returns_its_stumps():
    # One feature, no reuse: after x <= 1 covers two negatives, negatives 4 and 5 remain
    # and no feature is left.
    X = np.arange(6.0)[:, None]
    y = np.array([False, False, True, True, False, False])
    got = cov.sc_greedy(X, y, p=1.0, max_rules=5)
    assert [(s.feature, s.direction, s.threshold) for s in got] == [(0, 1, 1.0)]


@pytest.mark.parametrize(
    ("m", "F", "block_entries", "cpus", "lazy", "widths"),
    [
        (10, 30004, None, 1, False, [30004]),  # 2^20 // 10 = 104857 columns
        (10, 30004, None, 1, True, [26215, 3789]),  # out of core: 2^18 // 10, made odd
        (10, 30004, None, 3, False, [10003, 10003, 9998]),  # ceil(F / 3) = 10002, made odd
        (10, 30004, None, 2, False, [15003, 15001]),
        (10, 23, None, 3, False, [23]),  # not below 2^16 entries per block
        (1, 100000, None, 3, False, [65537, 34463]),
        (10, 30004, 10**6, 3, False, [30004]),  # given block_entries: no split per thread
        (10, 23, 5, 1, False, [1] * 23),  # fewer entries than rows: one column
        (10, 23, 40, 1, False, [5] * 4 + [3]),  # 4 columns, made odd
        (1, 23, 20, 1, False, [21, 2]),
    ],
)
def test_block_layout_widths(m, F, block_entries, cpus, lazy, widths):
    class Shape:
        shape = (m, F)

    reads, spans = cov._block_layout(Shape(), lazy=lazy, block_entries=block_entries, cpus=cpus)
    assert [b.stop - b.start for b in spans] == widths
    assert [(r.start, r.stop) for r in reads] == [(b.start, b.stop) for b in spans]


def test_cumsum_rows_into_a_given_array():
    a = np.arange(12).reshape(4, 3)
    out = np.full((4, 3), -7, dtype=np.intp)
    assert cov._cumsum_rows(a, out=out) is out
    np.testing.assert_array_equal(out, np.cumsum(a, axis=0))
    np.testing.assert_array_equal(a, np.arange(12).reshape(4, 3))


@pytest.mark.parametrize("table", [False, True])
def test_a_column_without_cut_has_no_key(table, monkeypatch):
    if not table:
        monkeypatch.setattr(cov, "MAX_TABLE_ENTRIES", 0)
    X = np.array([[1.0, 0.0], [1.0, 1.0], [1.0, 2.0], [1.0, 3.0]])  # column 0 constant
    y = np.array([False, True, False, True])
    P = cov.packed_presort(X, bits=2, end_flags=True)
    state = cov._State(2, 4, y, 1.0, True)
    state.update(np.ones(4, bool), y)
    best_u, best_t = state.best_keys(P)
    assert (best_u[0], best_t[0]) == (-np.inf, -np.inf)
    assert (best_u[1], best_t[1]) == (1.0, 1.0)  # x <= 0: one negative, no positive


@pytest.mark.parametrize("end_flags", [False, True])
def test_rank_table_cut_with_every_active_example_on_one_side_is_no_cut(end_flags):
    # Column 1: the two active examples share the value 0, so its only cut (0 | 5) leaves
    # the right side without active examples: no key. Column 0 has a real cut.
    X = np.array([[0.0, 0.0], [1.0, 0.0], [2.0, 5.0], [3.0, 6.0]])
    y = np.array([False, True, False, True])
    P = cov.packed_presort(X, bits=2, end_flags=end_flags)
    state = cov._State(2, 4, y, 1.0, end_flags)
    assert state.table
    state.update(np.array([True, True, False, False]), y)
    best_u, best_t = state.best_keys(P)
    assert (best_u[1], best_t[1]) == (-np.inf, -np.inf)
    assert (best_u[0], best_t[0]) == (1.0, 1.0)


@pytest.mark.parametrize("seed", [107, 571])
def test_pruning_allowance_is_p_per_positive_removed_plus_slack(
    literal_greedy, tie_data, monkeypatch, seed
):
    # Problems found by a random search where pruning with a smaller allowance (p / k
    # instead of p k, or a negative slack when p > 1 + 1/m) skips the step's winner.
    monkeypatch.setattr(cov, "PROBE", 1)  # pruning decides almost every feature
    rng = np.random.default_rng(seed)
    m, n = int(rng.integers(8, 30)), int(rng.integers(3, 12))
    X, y = tie_data(seed, m=m, n=n, levels=int(rng.integers(2, 6)))
    y = y ^ (rng.random(m) < 0.3)
    p, reuse = float(rng.choice([0.5, 1.0, 1.5, 2.0, 3.0])), bool(rng.integers(2))
    got = cov.sc_greedy(X, y, p=p, max_rules=8, feature_reuse=reuse)
    ref = literal_greedy(X, y, utility="sc", p=p, max_rules=8, reuse=reuse)
    assert [(s.feature, s.direction, s.threshold) for s in got] == [r[:3] for r in ref]
