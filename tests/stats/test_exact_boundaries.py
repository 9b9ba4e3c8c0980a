"""Exact conditional p-values and Tarone's testable set at their boundaries.

Every value is checked against an enumeration written out here: the tables of a 2 x C
contingency table with fixed margins in exact rational arithmetic, and Tarone's rule as a
loop over every candidate multiplicity K.
"""

import itertools
from fractions import Fraction
from math import comb

import numpy as np
import pytest

import widefs.stats._exact as exact
from widefs.stats import binary_exact_pvalues, binary_table_distribution, tarone_testable


def _tables(k, sizes):
    """``{S: P(S)}`` over every carrier table with k carriers, as Fractions."""
    n = sum(sizes)
    dist = {}
    for a in itertools.product(*(range(s + 1) for s in sizes)):
        if sum(a) != k:
            continue
        s = sum(Fraction(x * x, size) for x, size in zip(a, sizes, strict=True))
        w = Fraction(np.prod([comb(size, x) for x, size in zip(a, sizes, strict=True)]), comb(n, k))
        dist[s] = dist.get(s, 0) + w
    return dist


def _upper_tail(dist):
    """Distinct values descending and ``P(S >= value)``."""
    values = sorted(dist, reverse=True)
    upper = list(itertools.accumulate(dist[v] for v in values))
    return values, upper


@pytest.mark.parametrize(
    "sizes", [(1, 1), (2, 2), (3, 4), (1, 2, 4), (2, 2, 2), (5,) * 2, (1, 3, 3, 2)]
)
def test_distribution_equals_enumeration_for_every_number_of_carriers(sizes):
    n = sum(sizes)
    for k in range(n + 1):  # both ends included: 0 and n carriers
        values, upper = binary_table_distribution(k, sizes)
        ref_values, ref_upper = _upper_tail(_tables(k, sizes))
        np.testing.assert_allclose(values, [float(v) for v in ref_values], rtol=1e-12)
        np.testing.assert_allclose(upper, [float(u) for u in ref_upper], rtol=1e-12)
        assert np.all(upper <= 1.0)  # capped: rounding never lifts a tail above 1


def test_no_and_all_carriers_have_a_single_table():
    for k, s in ((0, 0.0), (7, 7.0)):
        values, upper = binary_table_distribution(k, [3, 4])
        assert values.tolist() == [s] and upper.tolist() == [1.0]
    with pytest.raises(ValueError, match=r"k must lie in \[0, 7\]; got -1"):
        binary_table_distribution(-1, [3, 4])
    with pytest.raises(ValueError, match=r"k must lie in \[0, 7\]; got 8"):
        binary_table_distribution(8, [3, 4])


def test_pvalues_of_every_table_equal_the_enumerated_tail():
    # Every observable table of k carriers, including those tied in S with another table.
    sizes = (2, 3, 3)
    n = sum(sizes)
    rows, expected, floors = [], [], []
    for k in range(n + 1):
        dist = _tables(k, sizes)
        top = max(dist)
        for a in itertools.product(*(range(s + 1) for s in sizes)):
            if sum(a) != k:
                continue
            s = sum(Fraction(x * x, size) for x, size in zip(a, sizes, strict=True))
            rows.append(a)
            expected.append(float(sum(p for v, p in dist.items() if v >= s)))
            floors.append(float(dist[top]))
    p, floor = binary_exact_pvalues(rows, sizes)
    np.testing.assert_allclose(p, expected, rtol=1e-12)
    np.testing.assert_allclose(floor, floors, rtol=1e-12)
    assert np.all(floor <= p + 1e-15)


def test_carriers_at_the_class_size_are_valid_and_beyond_are_not():
    p, _ = binary_exact_pvalues([[3, 0], [0, 4]], [3, 4])  # a_c = n_c and a_c = 0
    assert p.tolist() == pytest.approx([1 / 35, 1 / 35])
    bounds = r"^carriers must lie between 0 and the class sizes\.$"
    with pytest.raises(ValueError, match=bounds):
        binary_exact_pvalues([[-1, 1]], [3, 4])
    with pytest.raises(ValueError, match=bounds):
        binary_exact_pvalues([[0, 5]], [3, 4])
    shape = r"^carriers must have one row per feature and one column per class\.$"
    with pytest.raises(ValueError, match=shape):
        binary_exact_pvalues([1, 0], [3, 4])
    with pytest.raises(ValueError, match=shape):
        binary_exact_pvalues([[1, 0, 0]], [3, 4])


def test_state_limit_is_a_strict_bound(monkeypatch):
    # The largest number of merged states the enumeration holds at once, counted here.
    sizes, k = [3, 4, 5], 4
    most = 0
    states = {(0, Fraction(0))}
    left = sum(sizes)
    for size in sizes:
        left -= size
        states = {
            (t + a, s + Fraction(a * a, size))
            for t, s in states
            for a in range(size + 1)
            if t + a <= k and t + a + left >= k
        }
        most = max(most, len(states))
    monkeypatch.setattr(exact, "MAX_STATES", most)
    ref = binary_table_distribution(k, sizes)  # exactly at the limit: allowed
    monkeypatch.setattr(exact, "MAX_STATES", most - 1)
    with pytest.raises(ValueError, match=f"more than {most - 1} states"):
        binary_table_distribution(k, sizes)
    monkeypatch.setattr(exact, "MAX_STATES", most)
    np.testing.assert_allclose(binary_table_distribution(k, sizes)[1], ref[1])


def _tarone_loop(floors, alpha):
    """Smallest K in 1..m with #{j : floor_j <= alpha / K} <= K, by a loop."""
    m = len(floors)
    for K in range(1, m + 1):
        testable = [f <= alpha / K for f in floors]
        if sum(testable) <= K:
            return testable, K
    raise AssertionError("K = m always qualifies")


@pytest.mark.parametrize(
    "floors",
    [
        [0.25, 0.25, 0.25],  # alpha / 2 exactly (alpha = 0.5): at the level counts
        [0.5, 0.5, 0.125],  # alpha / 1 and alpha / 4 exactly
        [0.125, 0.125, 0.125, 0.125, 0.9],  # four at alpha / 4: m(4) = 4 = K
        [0.0, 0.0, 0.0],
        [1.0, 1.0],  # nothing reaches the level
        [0.25],
        [0.5],
        [0.0625, 0.125, 0.25, 0.5, 0.5, 1.0],
    ],
)
def test_tarone_equals_the_loop_over_k_at_exact_levels(floors):
    testable, K = tarone_testable(floors, 0.5)
    ref_testable, ref_K = _tarone_loop(floors, 0.5)
    assert ref_K == K
    assert testable.tolist() == ref_testable


def test_tarone_random_floors_equal_the_loop():
    rng = np.random.default_rng(0)
    for _ in range(200):
        m = int(rng.integers(1, 12))
        # Floors on a dyadic grid so that many sit exactly at alpha / K for K a power of two.
        floors = (2.0 ** -rng.integers(0, 6, size=m)).tolist()
        testable, K = tarone_testable(floors, 1.0)
        ref_testable, ref_K = _tarone_loop(floors, 1.0)
        assert (K, testable.tolist()) == (ref_K, ref_testable)


def test_tarone_with_no_features():
    testable, K = tarone_testable([], 0.05)
    assert testable.shape == (0,) and testable.dtype == bool and K == 0
