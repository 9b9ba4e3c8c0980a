import numpy as np
import pytest
from scipy.stats import false_discovery_control

from widefs.stats import benjamini_hochberg, bonferroni, reject_at


@pytest.mark.parametrize("seed", range(5))
def test_bh_matches_scipy(seed):
    rng = np.random.default_rng(seed)
    p = rng.random(200) ** 4
    p[:20] = p[0]  # ties
    np.testing.assert_allclose(
        benjamini_hochberg(p), false_discovery_control(p, method="bh"), rtol=1e-12
    )


def test_bh_step_up_by_hand():
    # m = 4: sorted 0.01, 0.03, 0.04, 0.5 -> 0.04, 0.06, 0.0533, 0.5 -> step-up minimum.
    np.testing.assert_allclose(
        benjamini_hochberg([0.5, 0.03, 0.01, 0.04]), [0.5, 0.16 / 3, 0.04, 0.16 / 3], rtol=1e-12
    )
    assert reject_at(benjamini_hochberg([0.5, 0.03, 0.01, 0.04]), 0.05).tolist() == [
        False,
        False,
        True,
        False,
    ]


def test_bonferroni_and_edges():
    np.testing.assert_allclose(bonferroni([0.01, 0.5]), [0.02, 1.0])
    assert benjamini_hochberg([]).size == 0
    assert benjamini_hochberg([0.3]).tolist() == [0.3]
    with pytest.raises(ValueError, match="one-dimensional"):
        benjamini_hochberg([[0.1]])
    with pytest.raises(ValueError, match="alpha"):
        reject_at([0.1], 1.5)


def test_bonferroni_caps_at_one():
    # m p > 1 is capped at 1 (a probability), exactly.
    assert bonferroni([0.6, 0.01, 0.5, 0.2]).tolist() == [1.0, 0.04, 1.0, 0.8]


def test_reject_at_includes_alpha_itself():
    # p_adj <= alpha is rejected (the documented rule), p_adj just above is not.
    alpha = 0.05
    assert reject_at([alpha, np.nextafter(alpha, 1), 0.0], alpha).tolist() == [True, False, True]
