"""Every validation failure of the SCM bounds raises one exact message; limits are valid."""

import math
import re

import numpy as np
import pytest

from widefs.scm import (
    dyadic_bits,
    log_zeta,
    occam_bound,
    pac_bayes_bound,
    sample_compression_bound,
)

_BOUNDS = {
    "occam": lambda m, n, d: occam_bound(0, m, n, [1], d),
    "sc": lambda m, n, d: sample_compression_bound(0, m, n, 1, d),
    "pb": lambda m, n, d: pac_bayes_bound(0.1, m, n, [0.5], d),
}

CASES = [
    (lambda: log_zeta(-1), "zeta(a) is defined for non-negative integers a."),
    (lambda: log_zeta([0, 1.5]), "zeta(a) is defined for non-negative integers a."),
    *[
        case
        for f in _BOUNDS.values()
        for case in [
            (
                lambda f=f: f(0, 5, 0.05),
                "m (number of training examples) must be a positive integer, got 0.",
            ),
            (
                lambda f=f: f(10.0, 5, 0.05),
                "m (number of training examples) must be a positive integer, got 10.0.",
            ),
            (lambda f=f: f(10, 0, 0.05), "n_features must be a positive integer, got 0."),
            (lambda f=f: f(10, 5.0, 0.05), "n_features must be a positive integer, got 5.0."),
            (lambda f=f: f(10, 5, 0.0), "delta must lie in (0, 1], got 0.0."),
            (lambda f=f: f(10, 5, 1.5), "delta must lie in (0, 1], got 1.5."),
        ]
    ],
    (lambda: occam_bound(0, 10, 5, [-1]), "bits must be non-negative integers."),
    (lambda: occam_bound(0, 10, 5, [1.5]), "bits must be non-negative integers."),
    (lambda: occam_bound(-1, 10, 5, [1]), "n_errors must lie in [0, m]; got -1 with m=10."),
    (lambda: occam_bound(11, 10, 5, [1]), "n_errors must lie in [0, m]; got 11 with m=10."),
    (
        lambda: occam_bound(0, 10, 1, [1, 1]),
        "A conjunction uses each attribute at most once: 2 stumps > 1 attributes.",
    ),
    (
        lambda: sample_compression_bound(0, 10, 5, 1, message_prior="x"),
        "message_prior must be 'paper' or 'ordered', got 'x'.",
    ),
    (
        lambda: sample_compression_bound(0, 10, 5, -1),
        "n_stumps and n_errors_outside must be non-negative.",
    ),
    (
        lambda: sample_compression_bound(-1, 10, 5, 1),
        "n_stumps and n_errors_outside must be non-negative.",
    ),
    (
        lambda: sample_compression_bound(8, 10, 5, 3),
        "n_stumps + n_errors_outside (3 + 8) exceeds m = 10.",
    ),
    (lambda: pac_bayes_bound(0.1, 10, 5, [0.0]), "interval_ratios must lie in (0, 1]."),
    (lambda: pac_bayes_bound(0.1, 10, 5, [1.5]), "interval_ratios must lie in (0, 1]."),
    (lambda: pac_bayes_bound(0.1, 10, 5, [np.nan]), "interval_ratios must lie in (0, 1]."),
    (lambda: pac_bayes_bound(-0.1, 10, 5, [0.5]), "gibbs_risk must lie in [0, 1], got -0.1."),
    (lambda: pac_bayes_bound(1.5, 10, 5, [0.5]), "gibbs_risk must lie in [0, 1], got 1.5."),
    (
        lambda: dyadic_bits(0.5, 0.5, 0.0, 1.0),
        "Need lo <= a < b <= hi with lo < hi; got a=0.5, b=0.5, [0.0, 1.0].",
    ),
    (
        lambda: dyadic_bits(-0.5, 0.5, 0.0, 1.0),
        "Need lo <= a < b <= hi with lo < hi; got a=-0.5, b=0.5, [0.0, 1.0].",
    ),
    (
        lambda: dyadic_bits(0.5, 1.5, 0.0, 1.0),
        "Need lo <= a < b <= hi with lo < hi; got a=0.5, b=1.5, [0.0, 1.0].",
    ),
]


@pytest.mark.parametrize(("call", "message"), CASES)
def test_exact_message(call, message):
    with pytest.raises(ValueError, match="^" + re.escape(message) + "$"):
        call()


def test_limits_themselves_are_accepted():
    assert log_zeta(0) == pytest.approx(math.log(6 / math.pi**2), rel=1e-15)
    assert type(log_zeta(3)) is float and log_zeta([3]).shape == (1,)
    for f in _BOUNDS.values():
        assert 0 < f(1, 1, 1.0) <= 1
        assert 0 < f(np.int64(3), np.int64(2), 0.5) <= 1
    assert occam_bound(10, 10, 5, [0]) == 1.0
    assert occam_bound(0, 10, 5, []) < 1
    assert sample_compression_bound(0, 10, 5, 0) < 1
    assert sample_compression_bound(7, 10, 5, 3) == 1.0
    assert pac_bayes_bound(1.0, 10, 5, [1.0]) == 1.0
    assert pac_bayes_bound(0.0, 10, 5, [1.0]) < 1
    assert dyadic_bits(0.0, 1.0, 0.0, 1.0) == (0, 0.5)
