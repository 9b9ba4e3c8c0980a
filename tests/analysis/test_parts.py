"""The analysis's decisions, one at a time, at their boundaries."""

import warnings
from types import SimpleNamespace

import numpy as np
import pytest

from widefs.analysis import _chance, _compare, _models
from widefs.analysis._result import CertificateOutcome
from widefs.univariate import ClassDifferenceScreen, DiscriminativeSelector


@pytest.mark.parametrize("rule", ["max_chance", "mgm"])
def test_another_rule_on_a_fit_equals_a_fit_with_that_rule(rule):
    rng = np.random.default_rng(0)
    X = rng.integers(0, 4, size=(40, 200)).astype(float)  # integer data: ties in the errors
    y = np.repeat([0, 1], 20)
    X[y == 1, :6] += 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fitted = DiscriminativeSelector("all", statistic="errors", random_state=4).fit(X, y)
        direct = DiscriminativeSelector(rule, statistic="errors", random_state=4).fit(X, y)
    np.testing.assert_array_equal(fitted.select_under(rule)[1], direct.get_support())
    assert direct.get_support()[:6].any()


def test_the_chance_analysis_screens_with_the_class_difference_screen():
    """The FDR / Bonferroni selections and the feature table are the screen's own."""
    rng = np.random.default_rng(1)
    y = np.repeat([0, 1], [14, 10])
    X = rng.normal(size=(24, 150))
    X[:, :5] += 2.0 * y[:, None]
    X[:, 140:] = rng.random((24, 10)) < 0.2  # two-valued features: exact tests, Tarone
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = _chance.chance_analysis(
            X, y, seed=2, p_error="auto", null="auto", n_permutations=50, quick=True, n_jobs=None
        )
        screen = ClassDifferenceScreen("fdr", random_state=2).fit(X, y)
        bonf = ClassDifferenceScreen("bonferroni", random_state=2).fit(X, y)
    np.testing.assert_array_equal(fit.selections["fdr"], screen.get_support())
    np.testing.assert_array_equal(fit.selections["bonferroni"], bonf.get_support())
    assert fit.screen.kind_counts == screen.kind_counts_
    assert fit.screen.kind_counts["two_valued"] == 10
    assert fit.screen.n_testable == int(bonf.testable_.sum()) < 150
    assert fit.bonferroni_cut == 0.05 / fit.screen.n_testable
    assert fit.screen.spread_weight == 0.0  # 10 in the smallest class: means only
    assert fit.screen.note == "" and not fit.screen.counts
    table = _chance.feature_table(fit)
    np.testing.assert_array_equal(table["pvalue_class_difference"], screen.pvalues_[table.index])
    assert set(table.sort_index().loc[140:, "kind"]) == {"two_valued"}


def _scm(bound, risk=0.1, rules=1, gibbs=None):
    fields = dict(risk_bound_=bound, rules_=[None] * rules, empirical_risk_=risk)
    if gibbs is not None:
        fields["gibbs_risk_"] = gibbs
    return SimpleNamespace(**fields)


def test_a_bound_at_the_majority_error_is_vacuous():
    majority = 0.375  # 3 of 8, exact in binary
    bounds = _models.scm_bounds(
        {
            "at": _scm(0.375),
            "below": _scm(np.nextafter(0.375, 0)),
            "above": _scm(0.9, gibbs=0.25, rules=2),
        },
        majority,
    )
    assert [(b.name, b.vacuous) for b in bounds] == [
        ("at", True),
        ("below", False),
        ("above", True),
    ]
    # PAC-Bayes bounds the Gibbs classifier: its training Gibbs risk is the one reported.
    assert bounds[2].training_risk == 0.25 and bounds[2].n_rules == 2
    assert bounds[0].training_risk == 0.1


@pytest.mark.parametrize(
    ("n", "n_classes", "enlarged"),
    # ceil(0.33 n) held-out examples against the number of classes: 3 of 9 and 3 of 7 hold
    # 3 classes, 2 of 6 do not; 4 of 12 hold 4 classes (the boundary: equal counts suffice).
    [(9, 3, False), (7, 3, False), (6, 3, True), (12, 4, False)],
)
def test_the_held_out_part_holds_one_example_per_class(n, n_classes, enlarged):
    y = np.tile(np.arange(n_classes), n)[:n]
    X = np.random.default_rng(n).normal(size=(n, 4))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rules = _models.rules_analysis(X, y, [f"g{j}" for j in range(4)], seed=0)
    assert rules.enlarged == enlarged
    assert rules.summary.n_test >= n_classes
    assert rules.summary.n_test == (n_classes if enlarged else int(np.ceil(0.33 * n)))
    assert rules.prescreened is None and rules.summary.prescreen_support is None


def _outcome(pvalue=None, uninformative=None, error=None):
    cert = None
    if error is None:
        cert = SimpleNamespace(pvalue=pvalue, uninformative=uninformative)
    return CertificateOutcome("g", "n", "s", ("n",), certificate=cert, error=error)


@pytest.mark.parametrize(
    ("outcome", "empty", "folds", "want"),
    [
        (None, 0, 3, "not certified"),
        (None, 3, 3, "not certified"),  # nothing to certify: no search
        (_outcome(0.05), 2, 3, "ok"),
        (_outcome(0.05), 3, 3, "uninformative: no feature kept"),
        (_outcome(error="E: x"), 3, 3, "uninformative: no feature kept"),
        (_outcome(error="E: x"), 0, 3, "failed"),
        (_outcome(0.5, "null at maximum"), 0, 3, "uninformative: null at maximum"),
    ],
)
def test_a_row_that_kept_no_feature_in_any_fold_has_no_pvalue(outcome, empty, folds, want):
    pvalue, status = _compare._certificate_cells(outcome, empty, folds)
    assert status == want
    assert (pvalue == 0.05) if want == "ok" else np.isnan(pvalue)


def test_wide_intervals_and_fallbacks_are_flagged():
    def res(lo, hi, n_selected, mean=0.7):
        return {
            "ci": (lo, hi),
            "n_selected": None if n_selected is None else np.array(n_selected),
            "selection_frequency": np.array([1.0, 0.5, 0.0]),
            "mean": mean,
        }

    y = np.repeat([0, 1], 10)
    info = _compare._info(
        y, {"a": res(0.5, 0.9, None), "b": res(0.6, 0.7, [0, 2]), "c": None}, 5, 5, 2
    )
    assert info.max_ci_width == pytest.approx(0.4) and not info.wide  # 0.4 is not above 0.4
    assert info.fallbacks == ("b",) and info.most_accurate_selector == "b"
    assert info.top_features == {"b": [(0, 1.0), (1, 0.5)]}  # a frequency of 0 is not listed
    assert _compare._info(y, {"a": res(0.5, 0.9001, None)}, 5, 5, 2).wide
    assert _compare._info(y, {"a": res(0.5, 0.6, None)}, 3, 3, 1).wide  # 3 test folds < 10


def test_leave_one_out_rows_well_below_the_majority_are_flagged():
    from widefs.analysis import LooOutcome

    majority = 0.75  # exact in binary, as are the accuracies below
    rows = [
        LooOutcome("all", 0.5, 100.0, 0, 8),
        LooOutcome("mgm", 0.625, 3.0, 0, 8),  # 0.125 below: flagged
        LooOutcome("fdr", 0.7, 0.0, 8, 8),  # at most 0.05 below (float: just above): not
        LooOutcome("max_chance", 0.75, 1.0, 0, 8),
        LooOutcome("oracle", 0.25, 2.0, 0, 8),  # an upper reference: never flagged
    ]
    assert _chance.below_majority(rows, majority) == ("all", "mgm")
    at_edge = [LooOutcome("mgm", majority - _chance.BELOW_MAJORITY, 1.0, 0, 8)]
    assert _chance.below_majority(at_edge, majority) == ()  # strictly below only


def test_ten_test_folds_with_narrow_intervals_are_not_wide():
    res = {
        "ci": (0.5, 0.6),
        "n_selected": None,
        "selection_frequency": np.ones(3),
        "mean": 0.5,
    }
    y = np.repeat([0, 1], 10)
    assert not _compare._info(y, {"a": res}, 5, 5, 2).wide  # 5 x 2 = 10 test folds
    assert _compare._info(y, {"a": res}, 3, 3, 3).wide  # 9 test folds
    assert _compare._info(y, {"a": None}, 5, 5, 2).wide is False  # nothing evaluated


@pytest.mark.parametrize(("p_error", "null"), [(0.3, "permutation"), ("auto", "auto")])
def test_the_analysis_never_raises_the_unused_p_error_warning(p_error, null):
    """An explicit p_error still sets the analytic null the report shows: not unused there."""
    from widefs.exceptions import UnusedParameterWarning

    rng = np.random.default_rng(3)
    X, y = rng.normal(size=(30, 40)), np.repeat([0, 1], [20, 10])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        warnings.simplefilter("error", UnusedParameterWarning)
        fit = _chance.chance_analysis(
            X, y, seed=0, p_error=p_error, null=null, n_permutations=30, quick=True, n_jobs=None
        )
    assert fit.null_used == "permutation"
    if p_error != "auto":
        assert fit.selector.p_error_ == p_error  # the analytic null the report shows uses it
