"""Figures draw caller and data text literally, and stay readable with mathtext switched off."""

import io

import numpy as np
from matplotlib.figure import Figure

from widefs.plotting import (
    literal_text,
    plot_chance_curves,
    plot_selection_frequency,
    plot_threshold_accuracies,
)


def draw(ax):
    ax.figure.savefig(io.BytesIO(), format="png")
    return ax


def test_log_axis_ticks_are_plain_numbers_under_literal_text():
    with literal_text():
        ax = draw(plot_chance_curves((10, 20), 5000))
    labels = [t.get_text() for t in ax.get_xticklabels() if t.get_visible() and t.get_text()]
    assert "1,000" in labels and not any("$" in label for label in labels)


def test_titles_and_names_are_literal_without_the_context():
    names = ["$\\frac{$", "$a$ [b]", "c"]
    ax = draw(plot_selection_frequency([0.5, 1.0, 0.25], names, title="$\\frac{$ title"))
    assert ax.get_title() == "$\\frac{$ title"
    assert [t.get_text() for t in ax.get_yticklabels()] == ["$a$ [b]", "$\\frac{$", "c"]
    ax = draw(plot_threshold_accuracies({"$\\frac{$": 0.5, "ok": 0.75}, title="$\\bad{$"))
    assert [t.get_text() for t in ax.get_xticklabels()] == ["$\\frac{$", "ok"]


def test_literal_text_restores_the_settings():
    import matplotlib as mpl

    before = (mpl.rcParams["text.parse_math"], mpl.rcParams["text.usetex"])
    with literal_text():
        assert not mpl.rcParams["text.parse_math"] and not mpl.rcParams["text.usetex"]
        text = Figure().add_subplot().set_title("$x$")
    assert (mpl.rcParams["text.parse_math"], mpl.rcParams["text.usetex"]) == before
    assert not text.get_parse_math()


def test_selection_frequency_order_and_omissions():
    freq = np.array([0.2, 0.0, 0.9, 0.2, 1.0])
    ax = plot_selection_frequency(freq, ["a", "b", "c", "d", "e"], top=3)
    y_of = {t.get_text(): y for t, y in zip(ax.get_yticklabels(), ax.get_yticks(), strict=True)}
    # The top 3 by frequency, the most frequent highest; the tie a/d keeps the lower index.
    assert sorted(y_of, key=y_of.get, reverse=True) == ["e", "c", "a"]
    widths = sorted(bar.get_width() for bar in ax.patches)
    assert widths == [20.0, 90.0, 100.0]  # percent of folds, like every other share in the report
    assert ax.get_xlim() == (0, 100) and "(%)" in ax.get_xlabel()
    ax = plot_selection_frequency(freq, list("abcde"))
    assert "b" not in {t.get_text() for t in ax.get_yticklabels()}  # never selected: omitted
