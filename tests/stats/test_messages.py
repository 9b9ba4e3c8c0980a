"""Every validation failure of widefs.stats raises one exact, tested message.

Boundary inputs sit right next to the limit (0 against 1, 1 against 1 + 1 ulp, ...), so a
flipped comparison or a dropped bound in the checks is caught, not just a missing check.
"""

import re

import numpy as np
import pytest

from widefs.stats import (
    benjamini_hochberg,
    binomial_tail,
    binomial_tail_inversion,
    bonferroni,
    chance_error_rate,
    expected_errors,
    expected_min_errors,
    highest_chance_accuracy,
    kl_divergence,
    kl_inverse_upper,
    log_binomial_coefficient,
    mgm_threshold,
    multiplicity_gap,
    permutation_pvalues,
    reject_at,
)

_CHANCE = [expected_min_errors, highest_chance_accuracy, multiplicity_gap]

CASES = [
    # log_binomial_coefficient
    (lambda: log_binomial_coefficient(-1, 0), ValueError, "n must be >= 0."),
    (lambda: log_binomial_coefficient(3, -1), ValueError, "k must be >= 0."),
    (lambda: log_binomial_coefficient(3, 4), ValueError, "k must not exceed n in C(n, k)."),
    (lambda: log_binomial_coefficient(3.5, 1), ValueError, "n must hold integer values."),
    (lambda: log_binomial_coefficient(3, 1.5), ValueError, "k must hold integer values."),
    (lambda: log_binomial_coefficient("x", 1), TypeError, "n must be numeric, got 'x'."),
    (lambda: log_binomial_coefficient(3, "x"), TypeError, "k must be numeric, got 'x'."),
    # binomial_tail
    (lambda: binomial_tail(-1, 5, 0.5), ValueError, "k must be >= 0."),
    (lambda: binomial_tail(0, 0, 0.5), ValueError, "m must be >= 1."),
    (lambda: binomial_tail(1, 5, 1.5), ValueError, "r must lie in [0, 1]."),
    (lambda: binomial_tail(1, 5, -0.1), ValueError, "r must lie in [0, 1]."),
    (
        lambda: binomial_tail(6, 5, 0.5),
        ValueError,
        "k must not exceed m in the binomial tail Bin(k, m, r).",
    ),
    (lambda: binomial_tail("x", 5, 0.5), TypeError, "k must be numeric, got 'x'."),
    (lambda: binomial_tail(1, "x", 0.5), TypeError, "m must be numeric, got 'x'."),
    (lambda: binomial_tail(1, 5, "x"), TypeError, "r must be numeric, got 'x'."),
    # binomial_tail_inversion
    (lambda: binomial_tail_inversion(-1, 5, 0.5), ValueError, "k must be >= 0."),
    (lambda: binomial_tail_inversion(0, 0, 0.5), ValueError, "m must be >= 1."),
    (lambda: binomial_tail_inversion(1, 5, 0.0), ValueError, "delta must lie in (0, 1]."),
    (
        lambda: binomial_tail_inversion(1, 5, np.nextafter(1, 2)),
        ValueError,
        "delta must lie in (0, 1].",
    ),
    (lambda: binomial_tail_inversion(1, 5, np.nan), ValueError, "delta must lie in (0, 1]."),
    (
        lambda: binomial_tail_inversion(6, 5, 0.5),
        ValueError,
        "k must not exceed m in Binbar(k, m, delta).",
    ),
    (lambda: binomial_tail_inversion("x", 5, 0.5), TypeError, "k must be numeric, got 'x'."),
    (lambda: binomial_tail_inversion(1, "x", 0.5), TypeError, "m must be numeric, got 'x'."),
    (lambda: binomial_tail_inversion(1, 5, "x"), TypeError, "delta must be numeric, got 'x'."),
    # KL
    (lambda: kl_divergence(1.5, 0.5), ValueError, "q must lie in [0, 1]."),
    (lambda: kl_divergence(0.5, -0.5), ValueError, "p must lie in [0, 1]."),
    (lambda: kl_inverse_upper(1.5, 0.1), ValueError, "q must lie in [0, 1]."),
    (
        lambda: kl_inverse_upper(0.5, -1e-300),
        ValueError,
        "bound must be non-negative (and not NaN).",
    ),
    (
        lambda: kl_inverse_upper(0.5, np.nan),
        ValueError,
        "bound must be non-negative (and not NaN).",
    ),
    (lambda: kl_inverse_upper(0.5, "x"), TypeError, "bound must be numeric, got 'x'."),
    # chance order statistics
    (lambda: expected_errors(0, 0.5), ValueError, "n_examples must be >= 1."),
    (lambda: expected_errors(5, 1.5), ValueError, "p_error must lie in [0, 1]."),
    (lambda: expected_errors(5.5, 0.5), ValueError, "n_examples must hold integer values."),
    *[(lambda f=f: f(0, 5, 0.5), ValueError, "n_classifiers must be >= 1.") for f in _CHANCE],
    *[(lambda f=f: f(3, 0, 0.5), ValueError, "n_examples must be >= 1.") for f in _CHANCE],
    *[(lambda f=f: f(3, 5, 1.5), ValueError, "p_error must lie in [0, 1].") for f in _CHANCE],
    *[(lambda f=f: f(3, 5, -0.5), ValueError, "p_error must lie in [0, 1].") for f in _CHANCE],
    (lambda: mgm_threshold(0, 5), ValueError, "n_classifiers must be >= 1."),
    (lambda: mgm_threshold(3, 0), ValueError, "n_examples must be >= 1."),
    (lambda: mgm_threshold(3, 5, 1.5), ValueError, "p_error must lie in [0, 1]."),
    # chance_error_rate
    (
        lambda: chance_error_rate(3),
        ValueError,
        "class_counts must have one entry per class on its last axis.",
    ),
    (
        lambda: chance_error_rate([]),
        ValueError,
        "class_counts must have one entry per class on its last axis.",
    ),
    (lambda: chance_error_rate([0, 0]), ValueError, "class_counts must hold at least one example."),
    (
        lambda: chance_error_rate([[1, 2], [0, 0]]),
        ValueError,
        "class_counts must hold at least one example.",
    ),
    (lambda: chance_error_rate([3, -1]), ValueError, "class_counts must be >= 0."),
    (lambda: chance_error_rate([3, 1.5]), ValueError, "class_counts must hold integer values."),
    # permutation_pvalues
    (
        lambda: permutation_pvalues([[0.1]], [[0.1]]),
        ValueError,
        "observed must be one-dimensional (one value per feature).",
    ),
    (
        lambda: permutation_pvalues([0.1, 0.2], [0.1, 0.2]),
        ValueError,
        "null must have shape (n_permutations >= 1, 2), got (2,).",
    ),
    (
        lambda: permutation_pvalues([0.1, 0.2], [[0.1, 0.2, 0.3]]),
        ValueError,
        "null must have shape (n_permutations >= 1, 2), got (1, 3).",
    ),
    (
        lambda: permutation_pvalues([0.1, 0.2], np.zeros((0, 2))),
        ValueError,
        "null must have shape (n_permutations >= 1, 2), got (0, 2).",
    ),
    (
        lambda: permutation_pvalues([0.1, np.nan], [[0.1, 0.2]]),
        ValueError,
        "observed and null must not contain NaN.",
    ),
    (
        lambda: permutation_pvalues([0.1, 0.2], [[np.nan, 0.2]]),
        ValueError,
        "observed and null must not contain NaN.",
    ),
    (
        lambda: permutation_pvalues(["x"], [[0.1]]),
        TypeError,
        "observed must be numeric, got ['x'].",
    ),
    (lambda: permutation_pvalues([0.1], [["x"]]), TypeError, "null must be numeric, got [['x']]."),
    # multiple testing
    (lambda: benjamini_hochberg([[0.1]]), ValueError, "pvalues must be one-dimensional."),
    (lambda: bonferroni([[0.1]]), ValueError, "pvalues must be one-dimensional."),
    (lambda: benjamini_hochberg([1.5]), ValueError, "pvalues must lie in [0, 1]."),
    (lambda: bonferroni([-0.5]), ValueError, "pvalues must lie in [0, 1]."),
    (lambda: reject_at([0.1], 0.0), ValueError, "alpha must lie in (0, 1)."),
    (lambda: reject_at([0.1], 1.0), ValueError, "alpha must lie in (0, 1)."),
    (lambda: reject_at([[0.1]], 0.5), ValueError, "pvalues must be one-dimensional."),
]


@pytest.mark.parametrize(("call", "error", "message"), CASES)
def test_exact_message(call, error, message):
    with pytest.raises(error, match="^" + re.escape(message) + "$"):
        call()


def test_limits_themselves_are_accepted():
    # The values right at each limit are valid (catches a strict comparison in a check).
    assert log_binomial_coefficient(0, 0) == 0.0
    assert log_binomial_coefficient(3, 3) == 0.0
    assert binomial_tail(5, 5, 1.0) == 1.0
    assert binomial_tail(0, 1, 0.0) == 1.0
    assert binomial_tail_inversion(5, 5, 1.0) == 1.0
    assert kl_inverse_upper(0.3, 0.0) == 0.3
    assert expected_errors(1, 0.0) == 0.0
    assert expected_min_errors(1, 1, 1.0) == 1.0
    assert chance_error_rate([0, 1]) == 0.0
    assert reject_at([0.0, 1.0], 0.5).tolist() == [True, False]
    assert permutation_pvalues([0.5], [[0.5]]).tolist() == [1.0]
