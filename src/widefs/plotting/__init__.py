"""Plots of widefs results (matplotlib is imported only when a plot is drawn)."""

from widefs.plotting._certificate import plot_search_certificate
from widefs.plotting._chance import (
    OKABE_ITO,
    literal_text,
    plot_chance_curves,
    plot_errors_allowed,
    plot_threshold_accuracies,
)
from widefs.plotting._selection import plot_selection_frequency

__all__ = [
    "OKABE_ITO",
    "literal_text",
    "plot_chance_curves",
    "plot_errors_allowed",
    "plot_search_certificate",
    "plot_selection_frequency",
    "plot_threshold_accuracies",
]
