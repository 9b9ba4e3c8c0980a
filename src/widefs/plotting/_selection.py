"""Selection-stability figure: how often each feature was selected across outer folds."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from widefs.plotting._chance import LITERAL, OKABE_ITO, title_place

__all__ = ["plot_selection_frequency"]


def plot_selection_frequency(
    frequency, feature_names: Sequence[str], *, top: int = 25, title: str | None = None, ax=None
):
    """Horizontal bars of the ``top`` most frequently selected features (never-selected omitted).

    Parameters
    ----------
    frequency : array of shape (n_features,)
        Fraction of outer folds that selected each feature (``nested_evaluate``'s
        ``selection_frequency``).
    feature_names : sequence of str
        Names drawn literally on the axis (no mathtext).
    top : int, default=25
        Number of bars at most; ties keep the lower feature index first.
    title : str, optional
        Drawn literally.
    ax : matplotlib Axes, optional
        Drawn on a new figure sized to the number of bars when omitted.

    Returns
    -------
    matplotlib Axes

    See Also
    --------
    widefs.model_selection.nested_evaluate : Computes ``selection_frequency``.
    literal_text : The context the names are drawn in.

    Examples
    --------
    >>> ax = plot_selection_frequency([0.2, 1.0, 0.0], ["$a$", "b", "c"])
    >>> [t.get_text() for t in ax.get_yticklabels()]
    ['b', '$a$']
    """
    frequency = np.asarray(frequency, dtype=float)
    order = np.argsort(-frequency, kind="stable")[:top]
    order = order[frequency[order] > 0]
    own = ax is None
    if own:
        from matplotlib.figure import Figure

        fig = Figure(figsize=(7, 0.25 * max(len(order), 4) + 1.2), layout="constrained")
        ax = fig.add_subplot()
    ax.barh(np.arange(len(order))[::-1], 100 * frequency[order], color=OKABE_ITO[0])
    ax.set_yticks(
        np.arange(len(order))[::-1],
        [str(feature_names[j]) for j in order],
        fontsize="small",
        **LITERAL,
    )
    ax.set_xlim(0, 100)
    ax.set_xlabel("Outer folds selecting the feature (%)")
    ax.grid(axis="x", alpha=0.3)
    ax.set_title(title or "Selection stability", **LITERAL, **title_place(own))
    return ax
