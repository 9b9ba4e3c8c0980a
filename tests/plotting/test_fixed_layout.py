"""The report's figures with fixed margins keep every text inside the figure.

Constrained layout would move the axes to fit the texts; fixed margins must be wide enough
for every text the report draws: check the extremes (log axes up to 10^7 classifiers, the
most legend rows, every SCM) by drawing and measuring.
"""

from types import SimpleNamespace

import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg

from widefs.cli.render._models import _bound_path_figure
from widefs.plotting import literal_text, plot_chance_curves, plot_errors_allowed
from widefs.univariate import LeaveOneOutCurve


def _overflow(fig):
    """How far (inches, per side) the drawn artists reach beyond the figure."""
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    tight = fig.get_tightbbox(canvas.get_renderer())
    width, height = fig.get_size_inches()
    return [max(0.0, -tight.x0), max(0.0, tight.x1 - width), max(0.0, -tight.y0),
            max(0.0, tight.y1 - height)]  # fmt: skip


def _filled(ax, most=1.35):
    """The axes fill the figure: at most ``most`` inches lost on any side."""
    pos = ax.get_position()
    width, height = ax.figure.get_size_inches()
    sides = [pos.x0 * width, (1 - pos.x1) * width, pos.y0 * height, (1 - pos.y1) * height]
    return max(sides) <= most


@pytest.mark.parametrize(
    "n_examples, max_classifiers, highlight",
    [
        ((10, 20, 31, 40), 2000, True),  # colon in the report
        ((10, 20, 40), 500, True),
        ((10, 20, 40, 62), 10**6, True),
        ((5, 10, 20, 30, 40, 50), 10**7, True),  # three legend rows
        ((10,), 10**5, False),
        ((10, 20, 30, 40), 999, False),
    ],
)
def test_chance_curves_keep_every_text_inside(n_examples, max_classifiers, highlight):
    with literal_text():
        ax = plot_chance_curves(
            n_examples,
            max_classifiers,
            p_error=0.355,
            highlight=(max_classifiers, n_examples[-1]) if highlight else None,
        )
    assert _overflow(ax.figure) == [0.0, 0.0, 0.0, 0.0]
    assert _filled(ax)


@pytest.mark.parametrize("n_errors", [5, 40, 400])
@pytest.mark.parametrize("title", [None, "colon (62 x 2,000), seed 0"])
def test_errors_allowed_keeps_every_text_inside(n_errors, title):
    e = np.arange(n_errors)
    curve = LeaveOneOutCurve(
        errors_allowed=e,
        accuracy=np.linspace(0.5, 1.0, n_errors),
        mean_selected=e * 10.0,
        expected_errors=0.6 * n_errors,
        expected_min_errors=0.1 * n_errors,
        mgm=0.4 * n_errors,
    )
    with literal_text():
        ax = plot_errors_allowed(curve, title=title)
    assert _overflow(ax.figure) == [0.0, 0.0, 0.0, 0.0]
    assert _filled(ax)


@pytest.mark.parametrize("k", [1, 2, 3])
def test_scm_bound_figure_keeps_every_text_inside(k):
    names = ["PAC-Bayes SCM", "sample-compression SCM", "Occam SCM"][:k]
    models = {
        name: SimpleNamespace(bound_path_=np.linspace(1.0, 0.2, 30), rules_=[0] * 5)
        for name in names
    }
    with literal_text():
        fig = _bound_path_figure(models, 0.355).figure
    assert _overflow(fig) == [0.0, 0.0, 0.0, 0.0]
    assert _filled(fig.axes[0])


def test_a_too_small_margin_is_caught():
    with literal_text():
        ax = plot_chance_curves((10, 20), 5000, highlight=(5000, 20))
    ax.figure.subplots_adjust(left=0.02, bottom=0.05)
    assert max(_overflow(ax.figure)) > 0
