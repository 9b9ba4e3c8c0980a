"""The shape gate's stored limits are the gate's own simulation, bit for bit."""

import numpy as np
import pytest

import widefs.univariate._kinds as kinds
import widefs.univariate._shape_table as table
from widefs.univariate._kinds import GATE_LEVEL, GATE_LEVEL_SPREAD, shape_limits, simulate_shape
from widefs.univariate._shape_table import stored_shape_limits


def _simulated(n, level):
    skews, kurts = simulate_shape(n)
    return (
        float(np.quantile(skews, 1.0 - level / 2)),
        float(np.quantile(kurts, 1.0 - GATE_LEVEL / 2)),
    )


def _assert_same(stored, simulated):
    """Bit for bit on numpy 2, which wrote the table; numpy 1's reductions may round the last
    bit of a moment differently (found at n = 4 and 400), so there within 4 units in the last
    place (a limit off by more, or another row's limits, still fails)."""
    if np.lib.NumpyVersion(np.__version__) >= "2.0.0":
        assert stored == simulated
    else:
        assert stored is not None
        np.testing.assert_array_max_ulp(np.array(stored), np.array(simulated), maxulp=4)


def test_the_table_covers_every_n_with_the_gates_levels_and_draws():
    rows = table._table()
    assert sorted(rows) == [(n, kinds._GATE_DRAWS) for n in range(table.N_MIN, table.N_MAX + 1)]
    for levels, limits in rows.values():
        assert levels == (GATE_LEVEL, GATE_LEVEL_SPREAD, GATE_LEVEL)
        # A larger level cuts lower: the spread gate's skewness limit is the smaller one.
        assert limits[1] < limits[0] and limits[2] > 1.0


@pytest.mark.parametrize("n", [table.N_MIN, 4, 62, 101, 257])
def test_stored_rows_equal_the_simulation(n):
    for level in (GATE_LEVEL, GATE_LEVEL_SPREAD):
        stored = stored_shape_limits(n, level, GATE_LEVEL, kinds._GATE_DRAWS)
        _assert_same(stored, _simulated(n, level))


def test_the_largest_stored_n_equals_the_simulation():
    n = table.N_MAX
    stored = stored_shape_limits(n, GATE_LEVEL, GATE_LEVEL, kinds._GATE_DRAWS)
    _assert_same(stored, _simulated(n, GATE_LEVEL))


def test_other_levels_draws_and_sizes_are_simulated(monkeypatch):
    assert stored_shape_limits(10, 0.01, GATE_LEVEL, kinds._GATE_DRAWS) is None
    assert stored_shape_limits(10, GATE_LEVEL, 0.01, kinds._GATE_DRAWS) is None
    assert stored_shape_limits(10, GATE_LEVEL, GATE_LEVEL, 1000) is None
    assert stored_shape_limits(table.N_MAX + 1, GATE_LEVEL, GATE_LEVEL, kinds._GATE_DRAWS) is None
    assert stored_shape_limits(table.N_MIN - 1, GATE_LEVEL, GATE_LEVEL, kinds._GATE_DRAWS) is None
    # Beyond the table shape_limits simulates: the same values as the stored row.
    monkeypatch.setattr(table, "N_MAX", 10)
    shape_limits.cache_clear()
    try:
        assert shape_limits(12, GATE_LEVEL_SPREAD) == _simulated(12, GATE_LEVEL_SPREAD)
        monkeypatch.setattr(table, "N_MAX", 400)
        assert shape_limits(11, 0.01) == _simulated(11, 0.01)
    finally:
        shape_limits.cache_clear()
    monkeypatch.setattr(table, "N_MAX", 12)
    assert stored_shape_limits(12, GATE_LEVEL_SPREAD, GATE_LEVEL, kinds._GATE_DRAWS) == (
        _simulated(12, GATE_LEVEL_SPREAD)
    )


def test_write_table_round_trips_bit_for_bit(tmp_path):
    path = tmp_path / "limits.csv"
    draws = np.random.default_rng(0).standard_normal((2, 1000))

    def simulate(n):
        return np.abs(draws[0]) * n, draws[1] + n

    table.write_table(path, [5, 6], (0.01, 0.1), 0.02, 1000, simulate)
    lines = path.read_text().splitlines()
    assert lines[0] == table._HEADER and len(lines) == 3
    values = [float.fromhex(v) for v in lines[2].split(",")[2:]]
    want = [0.01, np.quantile(np.abs(draws[0]) * 6, 0.995), 0.1]
    want += [np.quantile(np.abs(draws[0]) * 6, 0.95), 0.02, np.quantile(draws[1] + 6, 0.99)]
    assert values == want
