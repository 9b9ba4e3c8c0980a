"""The search-certificate figure keeps every text inside it with its fixed margins."""

import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg

from widefs.model_selection import SearchCertificate
from widefs.plotting import literal_text, plot_search_certificate


def _overflow(ax):
    """How far (inches, per side) the drawn artists (ticks, labels, title, legend) reach
    beyond the figure; all zero when everything is inside."""
    fig = ax.figure
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    tight = fig.get_tightbbox(canvas.get_renderer())  # inches
    width, height = fig.get_size_inches()
    return [
        max(0.0, -tight.x0),
        max(0.0, tight.x1 - width),
        max(0.0, -tight.y0),
        max(0.0, tight.y1 - height),
    ]


@pytest.mark.parametrize("n_permutations", [9, 29, 999, 9999])
@pytest.mark.parametrize("title", [None, "CEFS ensemble (kNN, SFS)"])
def test_every_text_is_inside_the_figure(n_permutations, title):
    rng = np.random.default_rng(n_permutations)
    # Three distinct scores: four-digit counts on the y axis with 9999 permutations.
    null = rng.integers(56, 59, n_permutations) / 62
    cert = SearchCertificate(0.95, null, np.zeros((n_permutations, 2), int), None)
    with literal_text():
        ax = plot_search_certificate(
            cert, score_name="leave-one-out accuracy of the combined ensemble", title=title
        )
    assert _overflow(ax) == [0.0, 0.0, 0.0, 0.0]
    # The plot fills the figure: no more than 0.75 inch lost on any side.
    pos = ax.get_position()
    width, height = ax.figure.get_size_inches()
    assert pos.x0 * width <= 0.75 and (1 - pos.x1) * width <= 0.75
    assert pos.y0 * height <= 0.75 and (1 - pos.y1) * height <= 0.75


def test_a_too_small_margin_is_caught():
    cert = SearchCertificate(0.95, np.linspace(0.5, 0.9, 999), np.zeros((999, 2), int), None)
    with literal_text():
        ax = plot_search_certificate(cert, score_name="accuracy", title="t")
    ax.figure.subplots_adjust(left=0.02, bottom=0.02)
    assert max(_overflow(ax)) > 0
