"""Exact conditional p-values of two-valued features against every relabelling."""

import itertools
from fractions import Fraction

import numpy as np
import pytest

from widefs.stats import binary_exact_pvalues, binary_table_distribution


def _brute_force(x, y, n_classes):
    """Share of all distinct relabellings (class counts kept) whose F of x is >= the real one.

    Exact arithmetic: the between-class sum of squares of 0/1 values, as a Fraction."""
    n = y.size

    def between(labels):
        total = sum(Fraction(int(v)) for v in x)
        out = Fraction(0)
        for c in range(n_classes):
            members = [int(x[i]) for i in range(n) if labels[i] == c]
            out += Fraction(sum(members)) ** 2 / len(members)
        return out - total**2 / n

    real = between(y)
    labellings = set(itertools.permutations(y.tolist()))
    hits = sum(between(np.array(lab)) >= real for lab in labellings)
    return hits / len(labellings), labellings


@pytest.mark.parametrize(
    ("sizes", "seed"),
    [((3, 4), 0), ((2, 3, 3), 1), ((4, 4), 2), ((1, 2, 4), 3), ((3, 3, 2), 4)],
)
def test_exact_pvalues_equal_brute_force_enumeration(sizes, seed):
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(len(sizes)), sizes)
    for _ in range(4):
        x = (rng.random(y.size) < rng.uniform(0.2, 0.7)).astype(int)
        if x.min() == x.max():
            continue
        carriers = np.array([[x[y == c].sum() for c in range(len(sizes))]])
        p, floor = binary_exact_pvalues(carriers, sizes)
        expected, _ = _brute_force(x, y, len(sizes))
        assert p[0] == pytest.approx(expected, rel=1e-12)
        # Either value may be called the carrier: the complement has the same p-value.
        p_comp, _ = binary_exact_pvalues(np.array(sizes)[None, :] - carriers, sizes)
        assert p_comp[0] == pytest.approx(expected, rel=1e-12)
        assert floor[0] <= p[0]


def test_floor_is_the_probability_of_the_most_extreme_tables():
    # Two carriers among classes of 4, 10 and 30: both in the class of 4 is most extreme.
    values, upper = binary_table_distribution(2, [4, 10, 30])
    assert upper[0] == pytest.approx(6 / 946)
    assert upper[-1] == pytest.approx(1.0)
    assert np.all(np.diff(values) < 0) and np.all(np.diff(upper) > 0)


def test_null_pvalues_are_valid_at_every_level():
    # P(p <= u) <= u for every u, computed exactly from the distribution itself.
    sizes = [4, 10, 30]
    for k in (1, 2, 5, 22):
        _values, upper = binary_table_distribution(k, sizes)
        prob = np.diff(np.r_[0.0, upper])  # P(S = values[i])
        for u in (1e-3, 0.01, 0.05, 0.5):
            assert prob[upper <= u].sum() <= u + 1e-12


def test_edges_and_validation():
    p, floor = binary_exact_pvalues([[0, 0], [3, 4]], [3, 4])
    assert p.tolist() == [1.0, 1.0] and floor.tolist() == [1.0, 1.0]
    with pytest.raises(ValueError, match="class sizes"):
        binary_exact_pvalues([[4, 0]], [3, 4])
    with pytest.raises(ValueError, match="one column per class"):
        binary_exact_pvalues([[1, 0, 0]], [3, 4])
    with pytest.raises(ValueError, match="k must lie"):
        binary_table_distribution(8, [3, 4])
