"""The sample-compression greedy engine (widefs.scm._covering) against the literal greedy.

Every internal shortcut (packed presort, rank tables or direct utilities, pruning by upper
bounds, lazy compaction, feature blocks, worker threads) must leave the learned stumps
unchanged, ties included: each test runs the engine with the shortcut pushed to an extreme
and compares with the plain-Python reference of tests/scm/conftest.py.
"""

import numpy as np
import pytest

from widefs.scm import _covering as cov
from widefs.scm import _parallel


def _key(stumps):
    return [(s.feature, s.direction, s.threshold) for s in stumps]


def _full(stumps):
    return [
        (s.feature, s.direction, s.threshold, s.covered_negatives, s.covered_positives)
        for s in stumps
    ]


SETTINGS = {
    "default": {},
    "tiny blocks": {"block_entries": 50},  # one or two columns per block
    "always compact": {"COMPACT_BELOW": 1.01},
    "never compact": {"COMPACT_BELOW": 0.0},
    "probe of one": {"PROBE": 1},  # pruning decides almost every feature
    "threads": {"_parallel": {"MAX_THREADS": 3, "THREADS_MIN_ENTRIES": 0}, "block_entries": 90},
    "no rank table": {"MAX_TABLE_ENTRIES": 0},  # utilities computed directly
    "pure cover first at every step": {"PURE_COVER_ACTIVE": 1.01},
    "pure cover never first": {"PURE_COVER_ACTIVE": 0.0},
}


@pytest.mark.parametrize("setting", sorted(SETTINGS))
@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize(("p", "reuse"), [(0.5, False), (1.0, True), (3.0, False)])
def test_engine_matches_literal_greedy(
    literal_greedy, tie_data, monkeypatch, setting, seed, p, reuse
):
    opts = dict(SETTINGS[setting])
    block_entries = opts.pop("block_entries", None)
    for name, value in opts.pop("_parallel", {}).items():
        monkeypatch.setattr(_parallel, name, value)
    for name, value in opts.items():
        monkeypatch.setattr(cov, name, value)
    X, y = tie_data(seed, m=40, n=9)
    y = y ^ (np.arange(40) % 3 == 0)  # about as many negatives as positives: several steps
    got = cov.sc_greedy(X, y, p=p, max_rules=8, feature_reuse=reuse, block_entries=block_entries)
    ref = literal_greedy(X, y, utility="sc", p=p, max_rules=8, reuse=reuse)
    assert _key(got) == [r[:3] for r in ref]


@pytest.mark.parametrize("seed", [0, 1, 4, 5])
@pytest.mark.parametrize("p", [0.7, 1.0, 2.5])  # 0.7: utilities are inexact floats
def test_rank_table_and_direct_utilities_agree(monkeypatch, seed, p):
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(70, 300)) * 4)  # many ties
    y = (X[:, 3] + rng.normal(size=70) > 0) ^ (rng.random(70) < 0.2)
    table = cov.sc_greedy(X, y, p=p, max_rules=10, feature_reuse=True)
    monkeypatch.setattr(cov, "MAX_TABLE_ENTRIES", 0)
    direct = cov.sc_greedy(X, y, p=p, max_rules=10, feature_reuse=True)
    assert len(table) >= 3
    assert _full(table) == _full(direct)


def test_rank_table_orders_utility_then_tiebreak():
    n_neg, n_pos, p = 6, 5, 1.5
    rank, utility, tie = cov._rank_table(n_neg, n_pos, p)
    pairs = [(q, r) for r in range(n_pos + 1) for q in range(n_neg + 1)]
    for i, (q1, r1) in enumerate(pairs):
        for j, (q2, r2) in enumerate(pairs):
            key1, key2 = (q1 - p * r1, q1 - r1), (q2 - p * r2, q2 - r2)
            assert (rank[i] > rank[j]) == (key1 > key2)
            assert (rank[i] == rank[j]) == (key1 == key2)
        assert (utility[rank[i]], tie[rank[i]]) == (q1 - p * r1, q1 - r1)


@pytest.mark.parametrize("end_flags", [False, True])
@pytest.mark.parametrize("table", [False, True])
def test_cut_keys_are_the_counts_of_every_cut(end_flags, table, monkeypatch):
    # Utility and tie-break of both parts of every cut, against direct counts; -inf where
    # tied values leave no cut or a part holds no active example.
    if not table:
        monkeypatch.setattr(cov, "MAX_TABLE_ENTRIES", 0)
    rng = np.random.default_rng(7)
    m, p = 25, 1.5
    X = rng.integers(0, 5, size=(m, 6)).astype(float)
    y = rng.random(m) < 0.5
    active = rng.random(m) < 0.7
    bits = (m - 1).bit_length()
    P = cov.packed_presort(X, bits=bits, end_flags=end_flags)
    state = cov._State(bits, m, y, p, end_flags)
    state.update(active, y)
    keys = np.stack(state.cut_keys(P), axis=-1)  # (m - 1, F, 4)
    best_u, best_t = state.best_keys(P)
    for j in range(X.shape[1]):
        rows = (P[:, j] & (2**bits - 1)).astype(int)
        candidates = []
        for pos in range(m - 1):
            left = np.isin(np.arange(m), rows[: pos + 1])
            q, r = np.sum(left & active & ~y), np.sum(left & active & y)
            q1, r1 = np.sum(~left & active & ~y), np.sum(~left & active & y)
            if X[rows[pos], j] != X[rows[pos + 1], j] and q + r > 0 and q1 + r1 > 0:
                expected = (q - p * r, q - r, q1 - p * r1, q1 - r1)
                candidates += [expected[:2], expected[2:]]
            else:
                expected = (-np.inf,) * 4
            assert tuple(keys[pos, j]) == expected
        assert (best_u[j], best_t[j]) == max(candidates, default=(-np.inf, -np.inf))


@pytest.mark.parametrize("end_flags", [False, True])
def test_compaction_keeps_order_and_merges_run_flags(end_flags):
    rng = np.random.default_rng(2)
    m = 30
    X = rng.integers(0, 6, size=(m, 8)).astype(float)
    y = rng.random(m) < 0.5
    bits = (m - 1).bit_length()
    P = cov.packed_presort(X, bits=bits, dtype=np.uint8, end_flags=end_flags)
    state = cov._State(bits, m, y, 1.0, end_flags)
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


def test_both_packed_formats_scan_alike(tie_data, monkeypatch):
    monkeypatch.setattr(cov, "COMPACT_BELOW", 0.9)  # compaction in both formats too
    X, y = tie_data(3, m=40, n=12)
    y = y ^ (np.arange(40) % 3 == 0)
    for p in (0.5, 2.0):
        for reuse in (False, True):
            mem = cov.sc_greedy(X, y, p=p, max_rules=8, feature_reuse=reuse)
            # lazy=True: read as if out of core, one-flag format (the mask pass)
            lazy = cov.sc_greedy(X, y, p=p, max_rules=8, feature_reuse=reuse, lazy=True)
            assert _full(mem) == _full(lazy)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize(("p", "reuse"), [(0.5, False), (1.0, True), (1.0, False), (2.5, True)])
def test_pure_cover_is_the_step_the_scan_would_take(literal_greedy, monkeypatch, seed, p, reuse):
    # Negatives in two groups: A (the larger) lies above every positive on features 1 and 3,
    # B below them on features 1, 5 and 8. Step 1 covers A (feature 1 before 3); at step 2
    # several features cover all of B and no positive: feature 1 again (reuse) or 5.
    monkeypatch.setattr(cov, "PURE_COVER_ACTIVE", 1.01)
    found = []
    pure_cover = cov._pure_cover

    def recording(*args):
        found.append(pure_cover(*args))
        return found[-1]

    monkeypatch.setattr(cov, "_pure_cover", recording)
    rng = np.random.default_rng(seed)
    m = 36
    X = rng.integers(0, 4, size=(m, 10)).astype(float)
    y = np.arange(m) % 4 != 0  # positives: the class a conjunction's stumps never remove
    neg = np.flatnonzero(~y)
    a, b = neg[:5], neg[5:]
    X[a, 1] = X[a, 3] = 9.0
    X[b, 1] = X[b, 5] = X[b, 8] = -5.0
    got = cov.sc_greedy(X, y, p=p, max_rules=6, feature_reuse=reuse)
    ref = literal_greedy(X, y, utility="sc", p=p, max_rules=6, reuse=reuse)
    assert _key(got) == [r[:3] for r in ref]
    assert any(f >= 0 for f in found)  # the shortcut was taken


def test_no_pure_cover_without_active_positives(literal_greedy, monkeypatch):
    # p = 0.1: the first stump removes both positives with seven negatives, and the
    # pure-cover check then meets an active negative without any active positive.
    seen = []
    pure_cover = cov._pure_cover

    def recording(X, active, y_pos, *rest):
        seen.append(int(np.sum(active & y_pos)))
        return pure_cover(X, active, y_pos, *rest)

    monkeypatch.setattr(cov, "_pure_cover", recording)
    monkeypatch.setattr(cov, "PURE_COVER_ACTIVE", 1.01)
    X = np.array(
        [[4, 0], [0, 1], [0, 4], [4, 2], [0, 0], [1, 2], [3, 2], [1, 0], [3, 3], [0, 0]], float
    )
    y = np.isin(np.arange(10), [6, 9])  # (found by a search over random 10 x 2 problems)
    got = cov.sc_greedy(X, y, p=0.1, max_rules=5, feature_reuse=True)
    ref = literal_greedy(X, y, utility="sc", p=0.1, max_rules=5, reuse=True)
    assert _key(got) == [r[:3] for r in ref]
    assert 0 in seen


def test_stops_when_the_best_utility_is_not_positive():
    # Issue example: with p = 10 every stump removes one negative for one positive
    # (utility -9) or only positives: no stump is added, the empty conjunction predicts 1.
    X, y = np.array([[1.0], [2.0], [3.0]]), np.array([True, False, True])
    assert cov.sc_greedy(X, y, p=10.0, max_rules=1, feature_reuse=True) == []
    # With p = 1 the best utility is 0 (one negative for one positive): still nothing.
    assert cov.sc_greedy(X, y, p=1.0, max_rules=3, feature_reuse=True) == []
    # With p < 1 that stump has a positive utility and is added.
    got = cov.sc_greedy(X, y, p=0.5, max_rules=3, feature_reuse=True)
    assert _key(got) == [(0, -1, 1.0)]  # x <= 1 fires: removes 2 (negative) and 3


@pytest.mark.parametrize("end_flags", [False, True])
def test_direct_scan_keeps_the_lexicographic_best_of_both_sides_and_all_chunks(
    end_flags, monkeypatch
):
    # Without the rank table, each column's best (utility, tie-break) is merged over the
    # cuts' two sides and over chunks of rows; with p = 0.5 equal utilities with different
    # tie-breaks are common ((q, r) = (2, 2) and (1, 0) both score 1).
    monkeypatch.setattr(cov, "MAX_TABLE_ENTRIES", 0)
    chunks = cov._row_chunks
    monkeypatch.setattr(cov, "_row_chunks", lambda n, w, entries=0: chunks(n, w, entries=3 * w))
    rng = np.random.default_rng(11)
    m, p = 24, 0.5
    X = rng.integers(0, 4, size=(m, 400)).astype(float)
    y = rng.random(m) < 0.5
    bits = (m - 1).bit_length()
    P = cov.packed_presort(X, bits=bits, end_flags=end_flags)
    state = cov._State(bits, m, y, p, end_flags)
    state.update(rng.random(m) < 0.8, y)
    u0, t0, u1, t1 = state.cut_keys(P)
    best_u, best_t = state.best_keys(P)
    for j in range(X.shape[1]):
        pairs = list(zip(u0[:, j], t0[:, j], strict=True)) + list(
            zip(u1[:, j], t1[:, j], strict=True)
        )
        assert (best_u[j], best_t[j]) == max(pairs)


def test_presorts_shared_between_fits_stay_intact(tie_data, literal_greedy, monkeypatch):
    # Inside a sharing block each block's presort is computed once per data set and reused
    # for every relabelling (a search certificate); compaction at every step must not write
    # into the shared copy, and two data sets or two blocks must not share one.
    from widefs._utils import sharing_label_free_work

    monkeypatch.setattr(cov, "COMPACT_BELOW", 1.01)
    X1, y1 = tie_data(0, m=40, n=9)
    X2, y2 = tie_data(1, m=40, n=9)
    runs = [(X, y) for X in (X1, X2, X1) for y in (y1, ~y2, np.roll(y1, 7))]
    with sharing_label_free_work():
        got = [cov.sc_greedy(X, y, p=1.0, max_rules=6, block_entries=100) for X, y in runs]
    for (X, y), stumps in zip(runs, got, strict=True):
        ref = literal_greedy(X, y, utility="sc", p=1.0, max_rules=6, reuse=False)
        assert _key(stumps) == [r[:3] for r in ref]


def test_pure_cover_looks_on_both_sides():
    # Feature 0: the active negatives lie above every active positive; feature 1: below.
    # The lowest feature with a pure cover on either side wins.
    X = np.array([[5.0, 0.0], [6.0, 1.0], [1.0, 7.0], [2.0, 8.0], [0.0, 9.0]])
    y = np.array([False, False, True, True, True])
    active = np.ones(5, dtype=bool)
    assert cov._pure_cover(X, active, y, [0, 1]) == 0
    assert cov._pure_cover(X, active, y, [1]) == 1
    assert cov._pure_cover(X[:, ::-1], active, y, [0, 1]) == 0
    X[0, 0] = 1.5  # feature 0 no longer separates
    assert cov._pure_cover(X, active, y, [0, 1]) == 1
    assert cov._pure_cover(X, active & ~y, y, [0, 1]) == -1  # no active positive


@pytest.mark.parametrize("end_flags", [False, True])
def test_a_cut_leaving_no_active_example_on_one_side_is_no_cut(end_flags, monkeypatch):
    # The largest values are inactive: the cut before them has every active example on its
    # left and none on its right, and is not a cut (the direct utilities say -inf).
    monkeypatch.setattr(cov, "MAX_TABLE_ENTRIES", 0)
    X = np.array([[0.0], [1.0], [2.0], [3.0], [4.0], [5.0]])
    y = np.array([False, True, False, True, False, True])
    active = np.array([True, True, True, True, False, False])
    bits = 3
    P = cov.packed_presort(X, bits=bits, end_flags=end_flags)
    state = cov._State(bits, 6, y, 1.0, end_flags)
    state.update(active, y)
    u0, t0, u1, t1 = (v[:, 0] for v in state.cut_keys(P))
    assert np.isinf(t0[3:]).all() and np.isinf(t1[3:]).all()
    assert np.isfinite(u0[:3]).all() and np.isinf(u0[3:]).all() and np.isinf(u1[3:]).all()


def test_defaults_one_stump_per_feature_and_accepts_0_1_labels(literal_greedy, tie_data):
    # Feature 1 covers both groups of negatives: with reuse it would serve twice.
    X, y = tie_data(2, m=36, n=10)
    y = np.arange(36) % 4 != 0
    neg = np.flatnonzero(~y)
    X[neg[:5], 1] = X[neg[:5], 3] = 9.0
    X[neg[5:], 1] = X[neg[5:], 5] = -5.0
    got = cov.sc_greedy(X, y, p=1.0, max_rules=6)
    ref = literal_greedy(X, y, utility="sc", p=1.0, max_rules=6, reuse=False)
    assert _key(got) == [r[:3] for r in ref]
    assert _key(cov.sc_greedy(X, y, p=1.0, max_rules=6, feature_reuse=True))[:2] != _key(got)[:2]
    assert _full(cov.sc_greedy(X, y.astype(int), p=1.0, max_rules=6)) == _full(got)
