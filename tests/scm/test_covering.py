"""The numpy sample-compression greedy (widefs.scm._covering) against the literal greedy.

Every internal shortcut (packed presort, rank tables, pruning by upper bounds, lazy
compaction, feature blocks, worker threads) must leave the learned stumps unchanged, ties
included: each test runs the engine with the shortcut pushed to an extreme and compares
with the plain-Python reference of tests/scm/test_greedy.py.
"""

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from widefs.scm import _covering as cov
from widefs.scm._greedy import hard_greedy

# The literal greedy and the tie-heavy data of test_greedy.py (test modules are not a package).
_spec = importlib.util.spec_from_file_location(
    "_scm_greedy_ref", Path(__file__).with_name("test_greedy.py")
)
_ref = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_ref)
_data, ref_hard_greedy = _ref._data, _ref.ref_hard_greedy


def _key(stumps):
    return [(s.feature, s.direction, s.threshold) for s in stumps]


def _full(stumps):
    return [
        (s.feature, s.direction, s.threshold, s.a, s.b, s.covered_negatives, s.covered_positives)
        for s in stumps
    ]


SETTINGS = {
    "default": {},
    "tiny blocks": {"block_entries": 50},  # one or two columns per block
    "always compact": {"COMPACT_BELOW": 1.01},
    "never compact": {"COMPACT_BELOW": 0.0},
    "probe of one": {"PROBE": 1},  # pruning decides almost every feature
    "threads": {"MAX_THREADS": 3, "THREADS_MIN_ENTRIES": 0, "block_entries": 90},
}


@pytest.mark.parametrize("setting", sorted(SETTINGS))
@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize(("p", "reuse"), [(0.5, False), (1.0, True), (3.0, False)])
def test_engine_matches_literal_greedy(monkeypatch, setting, seed, p, reuse):
    opts = dict(SETTINGS[setting])
    block_entries = opts.pop("block_entries", None)
    for name, value in opts.items():
        monkeypatch.setattr(cov, name, value)
    X, y = _data(seed, m=40, n=9)
    got = cov.sc_greedy(X, y, p=p, max_rules=8, feature_reuse=reuse, block_entries=block_entries)
    ref = ref_hard_greedy(X, y, utility="sc", p=p, max_rules=8, reuse=reuse)
    assert _key(got) == [r[:3] for r in ref]


@pytest.mark.parametrize("seed", [0, 1, 4, 5])
@pytest.mark.parametrize("p", [0.7, 1.0, 2.5])  # 0.7: utilities are inexact floats
def test_numpy_and_numba_engines_agree(seed, p):
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(70, 300)) * 4)  # many ties
    y = (X[:, 3] + rng.normal(size=70) > 0) ^ (rng.random(70) < 0.2)
    a = hard_greedy(X, y, utility="sc", p=p, max_rules=10, feature_reuse=True, engine="numpy")
    b = hard_greedy(X, y, utility="sc", p=p, max_rules=10, feature_reuse=True, engine="numba")
    assert len(a) >= 3
    assert _full(a) == _full(b)


@pytest.mark.parametrize("end_flags", [False, True])
def test_packed_presort_orders_every_column(end_flags):
    rng = np.random.default_rng(5)
    m = 37
    X = np.column_stack(
        [
            rng.normal(size=m),  # continuous
            rng.integers(-3, 4, size=m).astype(float),  # heavy ties, negatives
            # distinct values differing only in the lowest mantissa bits: the row index
            # overwrites those bits of the keys, so the exact re-sort must kick in
            1.0 + rng.permutation(m) * np.finfo(float).eps,
            -1.0 - rng.permutation(m) * np.finfo(float).eps,
            np.where(rng.random(m) < 0.5, 0.0, -0.0),  # signed zeros are one value
            np.full(m, 7.0),
        ]
    )
    bits = (m - 1).bit_length()
    P = cov._sort_block(X, bits, np.uint8, end_flags=end_flags)
    rows = (P & (2**bits - 1)).astype(int)
    for j in range(X.shape[1]):
        v = X[rows[:, j], j]
        assert sorted(rows[:, j]) == list(range(m))
        assert np.all(v[1:] >= v[:-1]), j
        np.testing.assert_array_equal((P[1:, j] & 2**bits) != 0, v[1:] != v[:-1])
        assert not P[0, j] & 2**bits
        ends = (P[:, j] & 2 ** (bits + 1)) != 0
        np.testing.assert_array_equal(ends[:-1], (v[1:] != v[:-1]) & end_flags)
        assert not ends[-1]


def test_rank_table_orders_utility_then_tiebreak():
    n_neg, n_pos, p = 6, 5, 1.5
    rank, utility = cov._rank_table(n_neg, n_pos, p)
    pairs = [(q, r) for r in range(n_pos + 1) for q in range(n_neg + 1)]
    for i, (q1, r1) in enumerate(pairs):
        for j, (q2, r2) in enumerate(pairs):
            key1, key2 = (q1 - p * r1, q1 - r1), (q2 - p * r2, q2 - r2)
            assert (rank[i] > rank[j]) == (key1 > key2)
            assert (rank[i] == rank[j]) == (key1 == key2)
        assert utility[rank[i]] == q1 - p * r1


@pytest.mark.parametrize("end_flags", [False, True])
def test_compaction_keeps_order_and_merges_run_flags(end_flags):
    rng = np.random.default_rng(2)
    m = 30
    X = rng.integers(0, 6, size=(m, 8)).astype(float)
    y = rng.random(m) < 0.5
    bits = (m - 1).bit_length()
    P = cov._sort_block(X, bits, np.uint8, end_flags=end_flags)
    n_neg = int((~y).sum())
    rank = cov._rank_table(n_neg, int(y.sum()), 1.0)[0]
    state = cov._State(bits, m, n_neg + 1, rank, end_flags)
    active = rng.random(m) < 0.4
    state.update(active, y)
    C = state.compact(P.copy(), int(active.sum()))
    rows = (C & (2**bits - 1)).astype(int)
    for j in range(X.shape[1]):
        full = (P[:, j] & (2**bits - 1)).astype(int)
        assert rows[:, j].tolist() == [r for r in full if active[r]]
        v = X[rows[:, j], j]
        np.testing.assert_array_equal((C[1:, j] & 2**bits) != 0, v[1:] != v[:-1])
        ends = (C[:, j] & 2 ** (bits + 1)) != 0
        np.testing.assert_array_equal(ends[:-1], (v[1:] != v[:-1]) & end_flags)
        assert not ends[-1]


def test_both_packed_formats_scan_alike(monkeypatch):
    monkeypatch.setattr(cov, "COMPACT_BELOW", 0.9)  # compaction in both formats too
    X, y = _data(3, m=40, n=12)
    for p in (0.5, 2.0):
        for reuse in (False, True):
            mem = cov.sc_greedy(X, y, p=p, max_rules=8, feature_reuse=reuse)
            # lazy=True: read as if out of core, one-flag format (the mask pass)
            lazy = cov.sc_greedy(X, y, p=p, max_rules=8, feature_reuse=reuse, lazy=True)
            assert _full(mem) == _full(lazy)


def test_large_tables_fall_back_to_the_numba_scan(monkeypatch):
    monkeypatch.setattr(cov, "MAX_TABLE_ENTRIES", 10)
    X, y = _data(1)
    assert not cov.sc_greedy_supported(y)
    got = hard_greedy(X, y, utility="sc", p=1.0, max_rules=5)
    assert _key(got) == [r[:3] for r in ref_hard_greedy(X, y, utility="sc", p=1.0, max_rules=5)]


def test_engine_argument_is_checked():
    X, y = _data(0)
    with pytest.raises(ValueError, match="engine must be"):
        hard_greedy(X, y, utility="sc", p=1.0, max_rules=2, engine="fast")
