"""The class-difference screen's wording in the report: every number is the analysis's."""

from types import SimpleNamespace

import pytest

from widefs.analysis import ScreenSummary
from widefs.cli.render._chance import _count_text, _kinds_text


def screen(**overrides):
    fields = dict(
        kind_counts={"constant": 1, "two_valued": 30, "gaussian": 60, "ranked": 9, "counts": 0},
        spread_weight=0.35,
        counts=False,
        note="",
        n_scored=99,
        n_testable=75,
        ranked_floor=0.0004,
        alpha=0.05,
    )
    return ScreenSummary(**{**fields, **overrides})


def test_each_present_kind_is_counted_and_absent_kinds_are_not_named():
    text = _kinds_text(screen())
    assert text.startswith("60 continuous features, limma's moderated F")
    assert "spreads 35% of the level" in text
    assert "9 skewed, heavy-tailed or tied features" in text
    assert "30 two-valued features, an exact test" in text
    assert "1 constant feature, never selected" in text  # one: singular
    assert "count feature" not in text  # none of that kind


def test_no_spread_share_says_means_only():
    text = _kinds_text(screen(spread_weight=0.0))
    assert "class spreads" not in text and "too small for the spread test" in text


@pytest.mark.parametrize(
    ("testable", "words"),
    [
        (75, "count only the 75 of 99 features"),  # two-valued features left out (Tarone)
        (99, "Every one of the 99 features could reach the level"),  # boundary: all counted
    ],
)
def test_tarone_count_and_bonferroni_cut(testable, words):
    fit = SimpleNamespace(screen=screen(n_testable=testable), bonferroni_cut=0.05 / testable)
    text = _count_text(fit)
    assert words in text
    assert f"alpha / {testable} = {0.05 / testable:.2g}" in text
    assert "smallest it can be is 0.0004" in text


def test_no_ranked_feature_no_monte_carlo_sentence():
    fit = SimpleNamespace(screen=screen(ranked_floor=None), bonferroni_cut=0.05 / 75)
    assert "Monte Carlo" not in _count_text(fit)


def test_counts_note_reaches_the_report_as_a_note():
    """Raw counts: the screen's own note (voom) is shown in the selection section."""
    import warnings

    import numpy as np

    from widefs.analysis import _chance
    from widefs.cli.render._chance import _selection_section
    from widefs.cli.render._report import Note

    rng = np.random.default_rng(0)
    y = np.repeat([0, 1], 8)
    X = rng.poisson(rng.gamma(2.0, 100.0, size=40), size=(16, 40)).astype(float)
    X[y == 1, :4] *= 3
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = _chance.chance_analysis(
            X, y, seed=0, p_error="auto", null="auto", n_permutations=30, quick=True, n_jobs=None,
            counts=True,
        )  # fmt: skip
    assert fit.screen.counts and fit.screen.kind_counts["counts"] > 0
    assert fit.screen.note == fit.screens["fdr"].note_ != ""
    data = SimpleNamespace(y=y, feature_names=[f"g{j}" for j in range(40)])
    section = _selection_section(fit, _chance.feature_table(fit), data)
    notes = [b for b in section.blocks if isinstance(b, Note)]
    assert any("voom" in n.markdown() for n in notes)
