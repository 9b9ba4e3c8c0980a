"""Search-certificate figure: the observed search score beside its permutation null."""

from __future__ import annotations

import numpy as np

__all__ = ["plot_search_certificate"]

# Okabe-Ito colours: blue for the null, vermillion for the observed score.
NULL_COLOUR = "#0072B2"
OBSERVED_COLOUR = "#D55E00"
_FIGSIZE = (5.5, 2.4)  # inches


def plot_search_certificate(certificate, *, score_name="search score", title=None, ax=None):
    """A small histogram of the null search scores with the observed score marked.

    Parameters
    ----------
    certificate : SearchCertificate
        From :func:`widefs.model_selection.search_certificate`.
    score_name : str, default="search score"
        Label of the x axis, drawn literally.
    title : str, optional
        Drawn literally.
    ax : matplotlib Axes, optional
        Drawn on a new small figure when omitted.

    Returns
    -------
    matplotlib Axes

    See Also
    --------
    widefs.model_selection.search_certificate : Computes the certificate.
    literal_text : The context texts are drawn in.

    Examples
    --------
    >>> from widefs.model_selection import SearchCertificate
    >>> cert = SearchCertificate(0.9, np.array([0.6, 0.7, 0.7, 0.8]), np.zeros((4, 5), int), None)
    >>> ax = plot_search_certificate(cert, score_name="$x$ accuracy")
    >>> ax.get_xlabel(), len(ax.lines)
    ('$x$ accuracy', 1)
    """
    from widefs.plotting._chance import LITERAL, title_place

    own = ax is None
    if own:
        from matplotlib.figure import Figure

        # Fixed margins in inches (room for four-digit counts, both axis labels and the
        # title) rather than constrained layout, which measures every text once more and
        # was a third of this figure's drawing time.
        width, height = _FIGSIZE
        fig = Figure(figsize=_FIGSIZE)
        fig.subplots_adjust(
            left=0.72 / width,
            right=1 - 0.22 / width,
            bottom=0.52 / height,
            top=1 - (0.27 if title is not None else 0.08) / height,
        )
        ax = fig.add_subplot()
    null = np.asarray(certificate.null_scores, dtype=float)
    observed = float(certificate.observed)
    values = np.unique(np.append(null, observed))
    # Scores are mostly counts out of n: one bin per step of the grid they live on when
    # that grid is coarse enough, otherwise 20 bins.
    step = float(np.min(np.diff(values))) if values.size > 1 else 0.01
    span = float(values[-1] - values[0])
    edges = np.arange(values[0] - step / 2, values[-1] + step, step) if span / step <= 60 else 20
    ax.hist(null, bins=edges, color=NULL_COLOUR, alpha=0.85, label="permuted labels")
    ax.axvline(observed, color=OBSERVED_COLOUR, linewidth=2.5, label="real labels")
    ax.set_xlabel(str(score_name), **LITERAL)
    ax.set_ylabel("permutations", **LITERAL)
    ax.yaxis.get_major_locator().set_params(integer=True)
    ax.legend(loc="best", fontsize="small", frameon=False)
    for text in ax.get_legend().get_texts():
        text.set(**LITERAL)
    if title is not None:
        ax.set_title(str(title), fontsize="medium", **LITERAL, **title_place(own))
    return ax
