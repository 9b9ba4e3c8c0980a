"""``DiscriminativeSelector.select_under`` and the warning for a parameter with no effect."""

import warnings

import numpy as np
import pytest

from widefs.exceptions import NothingSelectedWarning, UnusedParameterWarning
from widefs.univariate import DiscriminativeSelector


def data(classes=(24, 12), n_features=300, informative=6, seed=0):
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1], classes)
    X = rng.normal(size=(y.size, n_features))
    X[:, :informative] += 1.5 * y[:, None]
    X[:, -1] = 2.0  # a constant feature: never selected under any rule
    return X, y


def fit(threshold, **params):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NothingSelectedWarning)
        return DiscriminativeSelector(threshold, statistic="errors", **params).fit(*data())


RULES = ["mgm", "max_chance", "fdr", "bonferroni", "all", 1, 5, 400, 0.2, 0.05]


@pytest.mark.parametrize(
    "null", [{"null": "analytic"}, {"null": "permutation", "n_permutations": 60}]
)
@pytest.mark.parametrize("rule", RULES)
def test_select_under_equals_a_fit_with_that_rule(rule, null):
    """Oracle: a selector fitted with the rule itself (same seed, same null)."""
    base = fit("mgm", random_state=3, **null)
    direct = fit(rule, random_state=3, **null)
    cut, support = base.select_under(rule)
    assert cut == direct.threshold_
    np.testing.assert_array_equal(support, direct.get_support())
    assert not support[-1]
    # The fit itself is unchanged.
    np.testing.assert_array_equal(base.get_support(), fit("mgm", random_state=3, **null).support_)


def test_select_under_boundaries():
    base = fit("mgm", null="analytic", random_state=0)
    # k larger than the non-constant features keeps all of them; k = 1 keeps one.
    assert base.select_under(10_000)[1].sum() == base.n_scored_ == 299
    assert base.select_under(1)[1].sum() == 1
    # A rate cut: strictly below rate * N errors.
    cut, support = base.select_under(0.25)
    assert cut == 0.25 * base.n_validation_
    np.testing.assert_array_equal(support, (base.n_errors_ < cut) & ~base.constant_features_)


@pytest.mark.parametrize("bad", ["median", 0, -2, 1.0, 0.0, True, None, 1.5])
def test_select_under_rejects_what_the_constructor_rejects(bad):
    base = fit("mgm", null="analytic", random_state=0)
    with pytest.raises(ValueError, match="threshold must be one of"):
        base.select_under(bad)


def test_select_under_needs_a_fit():
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        DiscriminativeSelector().select_under("mgm")


@pytest.mark.filterwarnings("ignore:DiscriminativeSelector.*deprecated:FutureWarning")
def test_select_under_errors_rules_need_the_errors_statistic():
    X, y = data()
    sel = DiscriminativeSelector("fdr", statistic="location", random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="cut on validation errors"):
        sel.select_under("mgm")
    # A p-value rule on the same fit is the fit's own selection.
    np.testing.assert_array_equal(sel.select_under("fdr")[1], sel.get_support())


@pytest.mark.parametrize(
    ("params", "warns"),
    [
        ({"p_error": 0.3}, True),  # imbalanced halves: "auto" resolves to the permutation null
        ({"p_error": "uniform", "null": "permutation"}, True),
        ({"p_error": 0.3, "null": "analytic"}, False),
        ({"null": "permutation"}, False),  # p_error left at its default
        ({}, False),
    ],
)
def test_p_error_under_a_permutation_null_warns_once_naming_it(params, warns):
    X, y = data()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sel = DiscriminativeSelector(n_permutations=30, random_state=0, **params).fit(X, y)
    unused = [w for w in caught if issubclass(w.category, UnusedParameterWarning)]
    assert len(unused) == int(warns)
    if warns:
        assert sel.null_ == "permutation"
        assert "p_error" in str(unused[0].message)
        assert unused[0].filename == __file__  # points at the caller's line
    # The selection indeed does not depend on p_error under the permutation null.
    if sel.null_ == "permutation":
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            other = DiscriminativeSelector(
                n_permutations=30, random_state=0, **{**params, "p_error": 0.45}
            ).fit(X, y)
        np.testing.assert_array_equal(other.get_support(), sel.get_support())
