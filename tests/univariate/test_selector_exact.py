"""DiscriminativeSelector's messages, degenerate fits and pass-throughs pinned exactly.

Each test states the whole text of a warning or error, or the exact value of an attribute,
so that a changed word, count, comparison or default in the selector changes an assertion.
"""

import warnings

import numpy as np
import pytest

from widefs.exceptions import NothingSelectedWarning
from widefs.univariate import DiscriminativeSelector, _lazy, _selector

# The deprecated continuous statistics of DiscriminativeSelector are still tested here.
pytestmark = pytest.mark.filterwarnings("ignore:DiscriminativeSelector.*deprecated:FutureWarning")


def _fit_recording(sel, X, y):
    """Fit ``sel``; the text of every warning but the deprecation, by category name."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sel.fit(X, y)
    return [
        (w.category.__name__, str(w.message)) for w in caught if w.category is not FutureWarning
    ]


def test_one_example_per_class_warns_exactly_and_reports_no_null():
    sel = DiscriminativeSelector("fdr")
    caught = _fit_recording(sel, [[0.0, 1.0], [1.0, 3.0]], [0, 1])
    assert caught[0] == (
        "UserWarning",
        "With 2 examples for 2 classes no feature can be tested (the F statistic needs more "
        "examples than classes): every p-value is 1.",
    )
    assert sel.n_null_draws_ == (0, 0) and sel.min_pvalue_ == 1.0
    assert np.isnan(sel.null_heterogeneity_)
    assert sel.pvalues_.tolist() == [1.0, 1.0] and sel.scores_.tolist() == [0.0, 0.0]
    assert sel.location_statistics_.tolist() == sel.spread_statistics_.tolist() == [0.0, 0.0]
    assert sel.constant_features_.tolist() == [False, False] and sel.n_scored_ == 2
    assert sel.threshold_ == 0.0 and sel.search_score_ == 0.0
    # The floor (1) decided: Benjamini-Hochberg would need ceil(2 x 1 / 0.05) = 40 features
    # at the floor; the distribution statistic has no null_ and names more permutations.
    assert caught[1] == (
        "NothingSelectedWarning",
        "No feature passed the 'fdr' threshold (distribution statistic); transform will "
        "return an empty matrix. The smallest p-value this null can give is 1, above alpha / "
        "M = 0.025: Benjamini-Hochberg can reject only when at least 40 features sit at that "
        "floor (2 do), so the floor, not the data, decided; use more permutations.",
    )


def test_nothing_selected_messages_name_statistic_null_and_cut():
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(30, 5)), np.repeat([0, 1], 15)
    tail = "; transform will return an empty matrix."
    cases = [
        ({"threshold": "bonferroni"}, "'bonferroni' threshold (distribution statistic)"),
        (
            {"threshold": "max_chance", "statistic": "errors", "null": "analytic"},
            "'max_chance' threshold (errors statistic, analytic null, cut 4.78 errors)",
        ),
        (
            {"threshold": "fdr", "statistic": "errors", "null": "analytic"},
            "'fdr' threshold (errors statistic, analytic null, cut 0 errors)",
        ),
    ]
    for kwargs, middle in cases:
        caught = _fit_recording(DiscriminativeSelector(random_state=0, **kwargs), X, y)
        assert caught == [("NothingSelectedWarning", f"No feature passed the {middle}{tail}")]


@pytest.mark.parametrize(
    ("rule", "need"),
    [
        ("bonferroni", "Bonferroni cannot reject any feature"),
        # ceil(100 x 2^-10 / 0.05) = 2; the perfect feature 0 sits at the floor.
        ("fdr", "Benjamini-Hochberg can reject only when at least 2 features sit at that "
         "floor (1 do)"),
    ],
)  # fmt: skip
def test_analytic_floor_note_counts_the_features_at_the_floor(rule, need):
    # Halves of 20: 10 validation examples, floor P(Binomial(10, 1/2) = 0) = 2^-10, above
    # alpha / M = 0.05 / 100.
    rng = np.random.default_rng(1)
    X, y = rng.normal(size=(20, 100)), np.repeat([0, 1], 10)
    X[:, 0] = 5.0 * y
    sel = DiscriminativeSelector(rule, statistic="errors", null="analytic", random_state=0)
    caught = _fit_recording(sel, X, y)
    assert sel.min_pvalue_ == 2.0**-10 and sel.n_errors_[0] == 0
    assert caught == [
        (
            "NothingSelectedWarning",
            f"No feature passed the {rule!r} threshold (errors statistic, analytic null, cut 0 "
            "errors); transform will return an empty matrix. The smallest p-value this null "
            f"can give is 0.00098, above alpha / M = 0.0005: {need}, so the floor, not the "
            "data, decided; use more examples per validation part or statistic='distribution'.",
        )
    ]


def test_lazy_transform_loads_only_the_selected_columns(tmp_path, monkeypatch):
    rng = np.random.default_rng(2)
    X, y = rng.normal(size=(20, 6)), np.repeat([0, 1], 10)
    X[:, [1, 4]] += 3.0 * y[:, None]
    sel = DiscriminativeSelector(2, random_state=0).fit(X, y)
    assert np.flatnonzero(sel.get_support()).tolist() == [1, 4]
    mm = np.memmap(tmp_path / "X.f64", dtype=np.float64, mode="w+", shape=X.shape)
    mm[:] = X
    loaded = []
    load_columns = _lazy.load_columns

    def recording(Z, columns, **kwargs):
        loaded.append(list(columns))
        return load_columns(Z, columns, **kwargs)

    monkeypatch.setattr(_lazy, "load_columns", recording)
    np.testing.assert_array_equal(sel.transform(mm), X[:, [1, 4]])
    assert loaded == [[1, 4]]
    narrow = np.memmap(tmp_path / "X3.f64", dtype=np.float64, mode="w+", shape=(20, 3))
    with pytest.raises(ValueError) as wrong:
        sel.transform(narrow)
    assert str(wrong.value) == "X has 3 features, expected 6."


def test_permutation_search_scores_passes_n_jobs_on(monkeypatch):
    from widefs.univariate import _search_scores

    calls = []

    def recording(selector, X, y, permutations, n_jobs):
        calls.append((selector, permutations.tolist(), n_jobs))
        return np.zeros(len(permutations))

    monkeypatch.setattr(_search_scores, "permutation_best_scores", recording)
    sel = DiscriminativeSelector()
    out = sel.permutation_search_scores(np.zeros((4, 2)), [0, 1, 0, 1], [[1, 0, 3, 2]], n_jobs=3)
    assert out.tolist() == [0.0] and calls == [(sel, [[1, 0, 3, 2]], 3)]


def test_nothing_selected_is_not_warned_when_something_is():
    rng = np.random.default_rng(3)
    X, y = rng.normal(size=(20, 4)), np.repeat([0, 1], 10)
    X[:, 2] += 4.0 * y
    with warnings.catch_warnings():
        warnings.simplefilter("error", NothingSelectedWarning)
        sel = DiscriminativeSelector(1, random_state=0).fit(X, y)
    assert np.flatnonzero(sel.get_support()).tolist() == [2]


def test_floor_note_with_one_feature_and_at_alpha_over_m():
    rng = np.random.default_rng(4)
    y = np.repeat([0, 1], 10)
    one = DiscriminativeSelector(
        "bonferroni", statistic="errors", null="permutation", n_permutations=9, random_state=0
    )
    caught = _fit_recording(one, rng.normal(size=(20, 1)), y)
    assert one.n_scored_ == 1 and one.min_pvalue_ == 0.1
    assert caught == [
        (
            "NothingSelectedWarning",
            "No feature passed the 'bonferroni' threshold (errors statistic, permutation null, "
            "cut 0 errors); transform will return an empty matrix. The smallest p-value this "
            "null can give is 0.1, above alpha / M = 0.05: Bonferroni cannot reject any "
            "feature, so the floor, not the data, decided; use more permutations.",
        )
    ]
    # Floor 1 / 100 equal to alpha / M = 0.05 / 5: it could reject, so the data decided.
    at = DiscriminativeSelector(
        "bonferroni", statistic="errors", null="permutation", n_permutations=99, random_state=0
    )
    caught = _fit_recording(at, rng.normal(size=(20, 5)), y)
    assert at.min_pvalue_ == at.alpha / at.n_scored_ == 0.01
    assert caught == [
        (
            "NothingSelectedWarning",
            "No feature passed the 'bonferroni' threshold (errors statistic, permutation null, "
            "cut 0 errors); transform will return an empty matrix.",
        )
    ]


def test_fewer_features_than_classes_are_still_tested():
    # The untestable case is about examples per class, not features: 2 features, 3 classes.
    rng = np.random.default_rng(5)
    y = np.repeat([0, 1, 2], 8)
    X = rng.normal(size=(24, 2))
    X[:, 1] += 4.0 * (y == 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.filterwarnings("ignore", "DiscriminativeSelector.*deprecated", FutureWarning)
        sel = DiscriminativeSelector("fdr", random_state=0).fit(X, y)
    assert sel.get_support().tolist() == [False, True]
    assert sel.n_null_draws_[0] > 0 and sel.min_pvalue_ < 0.05 / 2


def _mixed_kinds(seed=5):
    """Continuous features beside nearly constant binary ones: pooled nulls that differ."""
    rng = np.random.default_rng(seed)
    sparse = np.zeros((40, 100))
    sparse[rng.integers(0, 40, 100), np.arange(100)] = 1.0
    return np.hstack([rng.normal(size=(40, 100)), sparse]), np.repeat([0, 1], 20)


def test_heterogeneity_warning_text_and_its_strict_threshold(monkeypatch):
    X, y = _mixed_kinds()
    sel = DiscriminativeSelector("all", statistic="distribution", random_state=0)
    caught = _fit_recording(sel, X, y)
    assert round(100 * sel.null_heterogeneity_) == 99
    assert caught == [
        (
            "UserWarning",
            "The features' permutation nulls differ: their tail probabilities vary by 99% "
            "around the pooled null's (0 when alike), so the pooled p-values are approximate: "
            "liberal for features whose null is wider than most, conservative for the others. "
            "Features of very different kinds (continuous and nearly constant, counts and "
            "ratios) are better screened separately.",
        )
    ]
    # A heterogeneity equal to the limit is not above it: no warning.
    monkeypatch.setattr(_selector, "HETEROGENEITY_WARNING", sel.null_heterogeneity_)
    assert _fit_recording(sel, X, y) == []


@pytest.mark.parametrize(
    ("kwargs", "expected"),
    [
        (
            {"threshold": "bonferroni", "alpha": 0.2, "n_jobs": 2},
            {"n_permutations": None, "alpha": 0.2, "rule": "bonferroni", "n_jobs": 2},
        ),
        (
            {"threshold": 3, "statistic": "location", "n_permutations": 7},
            {"n_permutations": 7, "alpha": 0.05, "rule": 3, "n_jobs": None},
        ),
    ],
)
def test_the_pooled_null_gets_every_setting(monkeypatch, kwargs, expected):
    from widefs.univariate._distribution import LOCATION_WEIGHT

    seen = []
    pooled_null = _selector.pooled_null

    def recording(X, y_codes, n_classes, rng, **options):
        seen.append(options)
        return pooled_null(X, y_codes, n_classes, rng, **options)

    monkeypatch.setattr(_selector, "pooled_null", recording)
    X, y = _mixed_kinds()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        DiscriminativeSelector(random_state=0, **kwargs).fit(X, y)
    weight = 1.0 if kwargs.get("statistic") == "location" else LOCATION_WEIGHT
    assert seen == [{**expected, "location_weight": weight}]


def _planted_pair(seed=6):
    """40 examples, 30 noise features; features 3 and 7 shifted in class 1."""
    rng = np.random.default_rng(seed)
    X, y = rng.normal(size=(40, 30)), np.repeat([0, 1], 20)
    X[:, 3] += 2.5 * y
    X[:, 7] += 1.2 * y
    return X, y


def test_error_rate_threshold_is_a_cut_on_the_validation_errors():
    X, y = _planted_pair()
    sel = DiscriminativeSelector(0.3, random_state=0).fit(X, y)
    assert sel.n_validation_ == 20 and sel.threshold_ == 0.3 * 20
    np.testing.assert_array_equal(sel.get_support(), sel.n_errors_ < 6)
    assert sel.get_support()[3]


def test_fdr_on_errors_uses_the_given_alpha():
    from widefs.stats import benjamini_hochberg

    X, y = _planted_pair()
    # The two smallest p-values are 0.0013: Benjamini-Hochberg rejects both at 0.05
    # (0.0013 <= 2 x 0.05 / 30) and neither at 0.01.
    for alpha, n_selected in ((0.01, 0), (0.05, 2)):
        sel = DiscriminativeSelector(
            "fdr", statistic="errors", null="analytic", alpha=alpha, random_state=0
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", NothingSelectedWarning)
            sel.fit(X, y)
        np.testing.assert_array_equal(sel.get_support(), benjamini_hochberg(sel.pvalues_) <= alpha)
        assert sel.get_support().sum() == n_selected


def test_k_best_and_all_on_the_distribution_statistic():
    X, y = _planted_pair()
    best = DiscriminativeSelector(2, statistic="distribution", random_state=0).fit(X, y)
    top = np.argsort(-best.scores_, kind="stable")[:2]
    assert sorted(top.tolist()) == [3, 7]
    assert np.flatnonzero(best.get_support()).tolist() == [3, 7]
    assert best.threshold_ == best.pvalues_[[3, 7]].max()
    X[:, 0] = 1.0
    every = DiscriminativeSelector("all", statistic="location", random_state=0).fit(X, y)
    assert every.get_support().tolist() == [False] + [True] * 29
    assert every.threshold_ == every.pvalues_[1:].max()


@pytest.mark.parametrize(
    ("statistic", "given", "scored"),
    [
        ("errors", np.float32, np.float32),  # kept: widened a block of columns at a time
        ("errors", np.int64, np.float64),
        ("distribution", np.float32, np.float32),  # kept: the permutations cost less
        ("distribution", np.int64, np.float64),
        ("location", np.float64, np.float64),
    ],
)
def test_in_memory_data_reach_the_statistic_in_the_documented_dtype(
    monkeypatch, statistic, given, scored
):
    seen = []
    for name in ("pooled_null", "fit_error_counts"):
        original = getattr(_selector, name)

        def recording(selector_or_X, *args, _original=original, **kwargs):
            X = args[0] if not isinstance(selector_or_X, np.ndarray) else selector_or_X
            seen.append(X.dtype)
            return _original(selector_or_X, *args, **kwargs)

        monkeypatch.setattr(_selector, name, recording)
    X, y = _planted_pair()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NothingSelectedWarning)
        DiscriminativeSelector(2, statistic=statistic, random_state=0).fit(
            (10 * X).astype(given), y
        )
    assert seen == [np.dtype(scored)]


@pytest.mark.parametrize("statistic", ["distribution", "location"])
def test_error_cuts_refuse_the_continuous_statistics_exactly(statistic):
    X, y = _planted_pair()
    with pytest.raises(ValueError) as refused:
        DiscriminativeSelector("mgm", statistic=statistic).fit(X, y)
    assert str(refused.value) == (
        "threshold='mgm' is a cut on validation errors and needs statistic='errors' (or "
        f"'auto'), not statistic={statistic!r}."
    )


def test_one_example_is_refused_before_its_classes_are_counted():
    with pytest.raises(ValueError, match="a minimum of 2 is required"):
        DiscriminativeSelector().fit([[0.0, 1.0]], [0])
    with pytest.raises(ValueError) as one_class:
        DiscriminativeSelector().fit([[0.0], [1.0]], ["a", "a"])
    assert str(one_class.value) == (
        "DiscriminativeSelector needs at least 2 classes; got 1 class ('a')."
    )


def test_warnings_point_at_the_callers_line():
    """Every fit warning names the line that called ``fit``, not widefs's or sklearn's code."""
    import warnings

    from widefs.univariate import DiscriminativeSelector

    rng = np.random.default_rng(0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        DiscriminativeSelector("fdr").fit(rng.normal(size=(2, 5)), [0, 1])  # untestable
        DiscriminativeSelector("fdr", random_state=0).fit(rng.normal(size=(20, 5)), [0, 1] * 10)
    assert len(caught) >= 3  # untestable, nothing selected (twice)
    assert {w.filename for w in caught} == {__file__}


@pytest.mark.filterwarnings("error::FutureWarning")
def test_continuous_statistics_warn_naming_the_screen_and_errors_do_not():
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(20, 30)), np.repeat([0, 1], 10)
    for kwargs in ({"threshold": "fdr"}, {"threshold": 3, "statistic": "location"}):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            DiscriminativeSelector(random_state=0, **kwargs).fit(X, y)
        future = [str(w.message) for w in caught if w.category is FutureWarning]
        assert len(future) == 1 and "ClassDifferenceScreen" in future[0]
        assert "statistic='errors'" in future[0]
        # On noise the FDR rule keeps nothing and says so; k = 3 keeps three.
        nothing = [w for w in caught if w.category is NothingSelectedWarning]
        assert len(nothing) == (kwargs["threshold"] == "fdr") and len(caught) == 1 + len(nothing)
    with warnings.catch_warnings():
        warnings.simplefilter("error", FutureWarning)
        # Seeded: the errors come from a random split (5 seeds in 200 keep one feature here).
        with pytest.warns(NothingSelectedWarning, match="cut 0 errors"):
            DiscriminativeSelector("fdr", statistic="errors", null="analytic", random_state=0).fit(
                X, y
            )
        DiscriminativeSelector("mgm", random_state=0).fit(X, y)
