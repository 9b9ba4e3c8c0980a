"""The out-of-core screen's kept mid-ranks and one-byte arrays in its temporary files.

The first pass keeps the ranked features' mid-ranks (twice them, integers) from one sort per
feature, with their tie factors; a large out-of-core fit keeps them in a temporary file, and
moves ``kinds_`` and the one-byte codes of ``min_pvalues_`` and ``spread_weights_`` to its
fitted arrays' file before the rank branch runs. Checked against scipy's ``rankdata``, the
in-memory tie factor and the in-memory arrays, bit for bit.
"""

import numpy as np
import pytest
from scipy.stats import rankdata

import widefs._utils._spill as spill_module
import widefs.univariate._screen as screen_module
from widefs._utils._spill import SpilledArray, SpillFile
from widefs.univariate import ClassDifferenceScreen
from widefs.univariate._kinds import KeptRanks, doubled_mid_ranks, doubled_tie_factor, tie_factor
from widefs.univariate._screen_select import CodedValues

pytestmark = pytest.mark.filterwarnings("ignore")


def _tied_rows(rng, k, n):
    """k rows of n values with ties of every size, signed zeros and constant rows."""
    rows = np.round(rng.normal(size=(k, n)), 1)
    rows[0] = 3.0  # one value: every mid-rank (n + 1) / 2
    rows[1, : n // 2] = 0.0
    rows[1, n // 2 :] = -0.0  # equal values of either sign
    rows[2] = np.arange(n)[::-1]  # no ties, descending
    return rows


@pytest.mark.parametrize("n", [2, 3, 10, 101])
def test_doubled_mid_ranks_are_twice_scipys_mid_ranks(n):
    rows = _tied_rows(np.random.default_rng(n), 40, n)
    got = doubled_mid_ranks(rows)
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, 2.0 * rankdata(rows, axis=1))
    # float32 values rank as their float64 conversions do
    np.testing.assert_array_equal(doubled_mid_ranks(rows.astype(np.float32)), got)


@pytest.mark.parametrize("n", [2, 5, 30, 127])
def test_the_tie_factor_from_doubled_ranks_is_the_same_float(n):
    rows = _tied_rows(np.random.default_rng(n + 1), 60, n)
    expected = tie_factor(rows.T)
    got = doubled_tie_factor(doubled_mid_ranks(rows), n)
    np.testing.assert_array_equal(got, expected)
    assert got[2] == 0.0 and got[0] == 1.0  # untied: exactly 0; one value: all the variance
    # by hand: a pair tied among n values removes (2^3 - 2) / (n^3 - n)
    pair = np.arange(float(n))
    pair[1] = pair[0]
    want = 6.0 / (n**3 - n) if n > 2 else 1.0
    np.testing.assert_allclose(doubled_tie_factor(doubled_mid_ranks(pair[None]), n), [want])


def test_spilled_kept_ranks_read_back_the_in_memory_ones():
    rng = np.random.default_rng(5)
    X = np.round(rng.normal(size=(9, 12)), 1)
    kept, spilled = KeptRanks(9), KeptRanks(9, spilled=True)
    for cols in (slice(0, 5), slice(5, 6), slice(6, 12)):
        index = np.arange(12)[cols]
        ties = kept.add(index, X[:, cols])
        np.testing.assert_array_equal(ties, tie_factor(X[:, cols]))
        np.testing.assert_array_equal(spilled.add(index, X[:, cols]), ties)
    kept.close()
    spilled.close()
    assert all(isinstance(p, SpilledArray) for p in spilled.pieces)
    assert not any(isinstance(p, SpilledArray) for p in kept.pieces)
    for cols in (slice(None), np.array([11, 0, 5]), np.array([6, 7, 8])):
        np.testing.assert_array_equal(spilled.columns(cols), kept.columns(cols))
    np.testing.assert_array_equal(kept.columns(slice(None)), rankdata(X, axis=0))
    file = spilled.spill
    spilled.release()
    assert file.closed and spilled.pieces == []
    assert KeptRanks(9, spilled=True).spill is None  # no piece: no file


def test_coded_values_in_a_spill_file_widen_there():
    rng = np.random.default_rng(6)
    values = rng.permutation(np.arange(300) / 1000.0)  # 300 distinct values: two-byte codes
    rows = np.sort(rng.choice(1000, 300, replace=False))
    memory, filed = CodedValues(1000, (0.0, 1.0)), CodedValues(1000, (0.0, 1.0))
    with SpillFile() as spill:
        filed.codes = spill.store(filed.codes)
        for part in (slice(0, 100), slice(100, 300)):
            memory.set(rows[part], values[part])
            filed.set(rows[part], values[part])
        assert isinstance(filed.codes, SpilledArray) and filed.codes.dtype == np.uint16
        assert memory.codes.dtype == np.uint16
        np.testing.assert_array_equal(filed.codes[0:1000], memory.codes)
        np.testing.assert_array_equal(filed[0:1000], memory.toarray())
        assert memory.toarray()[rows[7]] == values[7]


def test_spilled_array_astype_copies_every_block(monkeypatch):
    monkeypatch.setattr(spill_module, "_COPY_BYTES", 24)  # three rows of 8 bytes a copy
    values = np.arange(-5, 12, dtype=np.int16).reshape(17, 1) * np.array([[1, -2, 3, 7]])
    with SpillFile() as spill:
        a = spill.store(values)
        b = a.astype(np.float64)
        assert b.dtype == np.float64 and b.shape == a.shape and b.offset >= a.offset + a.nbytes
        np.testing.assert_array_equal(b[0:17], values.astype(np.float64))
        np.testing.assert_array_equal(a[0:17], values)  # the source is left as it was


def test_the_rank_branch_runs_with_the_one_byte_arrays_in_the_file(monkeypatch, tmp_path):
    monkeypatch.setattr(spill_module, "SPILL_MIN_BYTES", 0)
    rng = np.random.default_rng(8)
    y = np.repeat([0, 1], 15)
    X = np.column_stack([rng.normal(size=(30, 400)), rng.lognormal(size=(30, 60))])
    X[:, :10] += 2.0 * y[:, None]
    X[:, 400:410] *= np.where(y == 1, 4.0, 1.0)[:, None]
    path = tmp_path / "x.npy"
    np.save(path, X.astype(np.float32))
    seen = []
    decision = ClassDifferenceScreen._untied_decision

    def looking(screen, *args):
        seen.append(
            [
                isinstance(a, SpilledArray)
                for a in (screen.kinds_, screen._min_pvalues.codes, screen._spread_weights.codes)
            ]
        )
        return decision(screen, *args)

    monkeypatch.setattr(screen_module.ClassDifferenceScreen, "_untied_decision", looking)
    got = ClassDifferenceScreen(random_state=0).fit(np.load(path, mmap_mode="r"), y)
    monkeypatch.undo()
    ref = ClassDifferenceScreen(random_state=0).fit(X.astype(np.float32), y)
    assert seen == [[True, True, True]]
    assert got.kind_counts_["ranked"] >= 50
    for name in ("pvalues_", "min_pvalues_", "spread_weights_", "kinds_", "support_"):
        np.testing.assert_array_equal(getattr(got, name), getattr(ref, name), err_msg=name)
