"""Boundaries of the screen's fit written for its mutants: no eligible feature under
Bonferroni, no spread prior without a spread weight, no modelled feature under "auto"."""

import warnings

import numpy as np
import pytest

from widefs.exceptions import NothingSelectedWarning
from widefs.univariate import ClassDifferenceScreen


@pytest.mark.filterwarnings("ignore::widefs.exceptions.NothingSelectedWarning")
def test_bonferroni_with_no_eligible_feature_selects_nothing():
    y = np.repeat([0, 1], 6)
    X = np.ones((12, 5))  # every feature constant: K = 0
    fit = ClassDifferenceScreen("bonferroni", random_state=0).fit(X, y)
    assert not fit.get_support().any() and fit.threshold_ == 0.0
    cut, support = ClassDifferenceScreen(random_state=0).fit(X, y).select_under("bonferroni")
    assert cut == 0.0 and not support.any()


@pytest.mark.filterwarnings("ignore::widefs.exceptions.NothingSelectedWarning")
def test_no_spread_prior_without_a_spread_weight():
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1], 20)
    X = rng.normal(size=(40, 30))
    assert (
        ClassDifferenceScreen(spread_weight=0.0, random_state=0).fit(X, y).prior_["spread"] is None
    )
    assert (
        ClassDifferenceScreen(spread_weight=0.5, random_state=0).fit(X, y).prior_["spread"]
        is not None
    )


def test_auto_weight_with_no_modelled_feature_warns_of_nothing_numeric():
    # Only two-valued and ranked features: no pooled variance to take a median of.
    rng = np.random.default_rng(1)
    y = np.repeat([0, 1], 20)
    X = np.column_stack(
        [(rng.random((40, 10)) < 0.3).astype(float), rng.poisson(0.5, (40, 10)).astype(float)]
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.simplefilter("ignore", NothingSelectedWarning)
        fit = ClassDifferenceScreen(random_state=0).fit(X, y)
    assert set(np.unique(fit.kinds_)) <= {1, 3}
