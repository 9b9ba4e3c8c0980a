"""Plots of widefs results (matplotlib is imported only when a plot is drawn)."""

from widefs.plotting._chance import (
    plot_chance_curves,
    plot_errors_allowed,
    plot_threshold_accuracies,
)

__all__ = ["plot_chance_curves", "plot_errors_allowed", "plot_threshold_accuracies"]
