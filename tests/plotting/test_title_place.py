"""The figures a plotting function creates place their title at the top of the axes: the same
pixels as matplotlib's automatic placement on them, and a caller's axes keep the automatic one.

The reference drawings pass every ``set_title`` through with its ``y`` removed, which is the
automatic placement (the functions' only other change would be that keyword).
"""

from types import SimpleNamespace

import matplotlib.axes
import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from widefs.cli.render._models import _bound_path_figure
from widefs.model_selection import SearchCertificate
from widefs.plotting import (
    literal_text,
    plot_chance_curves,
    plot_errors_allowed,
    plot_search_certificate,
    plot_selection_frequency,
    plot_threshold_accuracies,
)
from widefs.univariate import LeaveOneOutCurve


def _curve():
    return LeaveOneOutCurve(
        errors_allowed=np.arange(6),
        accuracy=np.array([0.5, 0.9, 0.8, 0.6, 0.55, 0.5]),
        mean_selected=np.array([0.0, 2.0, 9.0, 40.0, 80.0, 120.0]),
        expected_errors=2.5,
        expected_min_errors=0.4,
        mgm=1.1,
    )


def _certificate(n=999, seed=0):
    rng = np.random.default_rng(seed)
    null = rng.integers(50, 60, n) / 62
    return SearchCertificate(0.95, null, np.zeros((n, 2), int), None)


def _scm_bounds():
    models = {
        name: SimpleNamespace(bound_path_=np.linspace(1.0, 0.2, 30), rules_=[0] * 5)
        for name in ("PAC-Bayes SCM", "sample-compression SCM", "Occam SCM")
    }
    return _bound_path_figure(models, 0.355).figure.axes[0]


FIGURES = {
    "chance curves": lambda: plot_chance_curves((10, 20, 40), 2000, highlight=(2000, 62)),
    "chance curves, linear": lambda: plot_chance_curves((10, 40), 500),
    "errors allowed": lambda: plot_errors_allowed(_curve(), title="$colon$"),
    "thresholds": lambda: plot_threshold_accuracies({"all": 0.62, "mgm": 0.85}),
    "certificate": lambda: plot_search_certificate(_certificate(), title="CN2 rules"),
    "certificate, 9999": lambda: plot_search_certificate(_certificate(9999, 1), title="t"),
    "SCM bounds (report)": _scm_bounds,
    "selection": lambda: plot_selection_frequency(
        np.linspace(0, 1, 30), [f"Hsa.{i}" for i in range(30)], title="stability"
    ),
}


def _pixels(ax) -> bytes:
    canvas = FigureCanvasAgg(ax.figure)
    canvas.draw()
    return bytes(canvas.buffer_rgba())


@pytest.fixture
def automatic_titles(monkeypatch):
    """Every ``set_title`` called without ``y``: matplotlib places the title itself."""
    set_title = matplotlib.axes.Axes.set_title

    def automatic(self, *args, **kwargs):
        kwargs.pop("y", None)
        return set_title(self, *args, **kwargs)

    def install():
        monkeypatch.setattr(matplotlib.axes.Axes, "set_title", automatic)

    return install


@pytest.mark.parametrize("name", sorted(FIGURES))
def test_placed_title_draws_the_automatic_pixels(name, automatic_titles):
    with literal_text():
        placed = FIGURES[name]()
        placed_pixels = _pixels(placed)
        automatic_titles()
        automatic = FIGURES[name]()
        automatic_pixels = _pixels(automatic)
    assert automatic.get_title() == placed.get_title()
    assert placed_pixels == automatic_pixels
    # Placed, not placed automatically: tick labels moved on top leave it where it is.
    with literal_text():
        placed.xaxis.tick_top()
        _pixels(placed)
    assert placed.title.get_position()[1] == 1.0


def test_the_automatic_placement_would_move_a_title_over_top_ticks(automatic_titles):
    # The comparison above can fail: with tick labels on top, automatic placement lifts the
    # title above them, so pixels differ from a title placed at the top of the axes.
    def draw():
        ax = plot_errors_allowed(_curve(), title="t")
        ax.xaxis.tick_top()
        return _pixels(ax)

    with literal_text():
        placed = draw()
        automatic_titles()
        automatic = draw()
    assert placed != automatic


def test_a_callers_axes_keep_the_automatic_placement():
    with literal_text():
        ax = Figure(figsize=(6.4, 4.6)).add_subplot()
        ax.xaxis.tick_top()
        plot_errors_allowed(_curve(), title="t", ax=ax)
        canvas = FigureCanvasAgg(ax.figure)
        canvas.draw()
        renderer = canvas.get_renderer()
        ticks_top = max(t.get_window_extent(renderer).y1 for t in ax.get_xticklabels())
        # Lifted above the tick labels drawn on top of the axes.
        assert ax.title.get_window_extent(renderer).y0 >= ticks_top - 0.5
        assert ax.title.get_position()[1] > 1.0
