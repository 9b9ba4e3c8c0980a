"""Figures of the chance analysis (Palatucci & Carlson 2008, Figures 1-3).

matplotlib is imported inside the functions so that importing widefs stays light. Text that
comes from the caller or from data (titles, tick labels) is drawn literally: a ``$`` in a
dataset name is a dollar sign, never mathtext.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextlib import contextmanager

import numpy as np

from widefs.stats import highest_chance_accuracy

__all__ = [
    "OKABE_ITO",
    "literal_text",
    "plot_chance_curves",
    "plot_errors_allowed",
    "plot_threshold_accuracies",
]

# Keyword arguments of every matplotlib text whose string comes from outside this module.
LITERAL = {"parse_math": False}
# The title of a figure these functions create sits at the top of its axes (y = 1), where
# matplotlib's automatic placement puts it on them (ticks below the axes, no offset text on
# a y axis that starts at 0); placed, it spares that placement's measuring of every y tick
# label at each draw. On a caller's axes the placement stays automatic.
TOP_TITLE = {"y": 1.0}


def title_place(own: bool) -> dict:
    """``set_title`` keyword arguments: :data:`TOP_TITLE` on a figure the function created."""
    return TOP_TITLE if own else {}


# Okabe & Ito (2008) colours, distinguishable with every common colour-vision deficiency
# (black first is left out: it marks the data set at hand and reference lines).
OKABE_ITO = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442")
_LINESTYLES = ("-", "--", "-.", ":")


@contextmanager
def literal_text():
    """Context in which matplotlib draws every text literally: no mathtext, no LaTeX.

    Texts created (and figures saved) inside it ignore ``$...$`` and the user's
    ``text.usetex``, so a column named ``$x^{2`` is drawn as written instead of failing
    to parse. Log axes drawn inside it need a plain tick formatter (see
    :func:`plot_chance_curves`), since matplotlib's default one writes mathtext.

    See Also
    --------
    plot_chance_curves : Draws its names and labels inside this context.
    plot_selection_frequency : Draws feature names inside this context.

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> with literal_text():
    ...     text = Figure().add_subplot().set_title("cost in $ per $x$")
    >>> text.get_parse_math()
    False
    """
    import matplotlib as mpl
    from cycler import cycler

    style = {
        "text.parse_math": False,
        "text.usetex": False,
        # Readable when the report is zoomed out to 80%, and safe for colour-blind readers.
        "font.size": 11,
        "axes.titlesize": 12,
        "legend.fontsize": 10,
        "axes.prop_cycle": cycler(color=OKABE_ITO),
    }
    with mpl.rc_context(style):
        yield


def _plain_log_ticks(axis) -> None:
    """Tick labels 1, 10, 100, 1,000 on a log axis, without mathtext."""
    from matplotlib.ticker import NullFormatter, StrMethodFormatter

    axis.set_major_formatter(StrMethodFormatter("{x:,.0f}"))
    axis.set_minor_formatter(NullFormatter())


_FIGSIZE = (6.4, 4.6)  # inches
# Fixed margins in inches, measured on constrained layout's solutions (which measures every
# text once more at each draw, a third of a figure's drawing time): the left one holds the
# y label and three-digit ticks, the top one the title; the bottom one the x label, its
# ticks and a legend below the axes: _BOTTOM with one row, _LEGEND_ROW more for each other.
_LEFT, _TOP = 0.67, 0.28
_BOTTOM, _LEGEND_ROW = 0.94, 0.18


def _axes(ax, *, bottom=None, right=0.1):
    """``ax``, or the axes of a new figure: fixed margins (inches) when ``bottom`` is given."""
    if ax is not None:
        return ax
    # A bare Figure (no pyplot) leaves the user's backend and figure registry alone.
    from matplotlib.figure import Figure

    if bottom is None:
        return Figure(figsize=_FIGSIZE, layout="constrained").add_subplot()
    width, height = _FIGSIZE
    fig = Figure(figsize=_FIGSIZE)
    fig.subplots_adjust(
        left=_LEFT / width,
        right=1 - right / width,
        bottom=bottom / height,
        top=1 - _TOP / height,
    )
    return fig.add_subplot()


def plot_chance_curves(
    n_examples: Sequence[int] = (10, 20, 30, 40),
    max_classifiers: int = 500,
    *,
    p_error: float = 0.5,
    highlight: tuple[int, int] | None = None,
    ax=None,
):
    """Figure 1: highest expected chance accuracy E[A_H] against the number of classifiers.

    Parameters
    ----------
    n_examples : sequence of int
        One curve per number of examples N.
    max_classifiers : int
        Largest M on the x-axis (log-spaced when above 1000).
    p_error : float
        Chance error rate of one prediction.
    highlight : (M, N), optional
        A point to mark, e.g. the dataset at hand.
    ax : matplotlib Axes, optional
        Drawn on a new figure (no pyplot) when omitted.

    Returns
    -------
    matplotlib Axes
        The axes drawn on.

    See Also
    --------
    widefs.stats.highest_chance_accuracy : The plotted E[A_H].
    plot_errors_allowed : Figure 3 of the same paper.

    Examples
    --------
    >>> ax = plot_chance_curves((10, 40), max_classifiers=100, highlight=(100, 40))
    >>> [line.get_label() for line in ax.get_lines()][:2]
    ['N = 10', 'N = 40']
    >>> float(ax.get_lines()[0].get_ydata()[0])  # one classifier: 50% at p_error = 0.5
    50.0
    """
    entries = len(n_examples) + (highlight is not None)
    # On a log axis the last tick label (up to "1,000,000") may sit at the right end.
    bottom = _BOTTOM + _LEGEND_ROW * (-(-entries // 3) - 1)
    own = ax is None
    ax = _axes(ax, bottom=bottom, right=0.3 if max_classifiers > 1000 else 0.1)
    if max_classifiers > 1000:
        ms = np.unique(np.geomspace(1, max_classifiers, 400).round())
        ax.set_xscale("log")
        _plain_log_ticks(ax.xaxis)
    else:
        ms = np.arange(1, max_classifiers + 1)
    for i, n in enumerate(n_examples):
        ax.plot(
            ms,
            100 * highest_chance_accuracy(ms, n, p_error),
            color=OKABE_ITO[i % len(OKABE_ITO)],
            ls=_LINESTYLES[i % len(_LINESTYLES)],
            lw=2,
            label=f"N = {n}",
        )
    if highlight is not None:
        # The value goes in the legend, never over a curve.
        m, n = highlight
        acc = 100 * float(highest_chance_accuracy(m, n, p_error))
        label = f"this data: M={m}, N={n}: {acc:.1f}%"
        ax.plot([m], [acc], "o", color="black", ms=8, zorder=5, label=label)
    ax.set_xlabel("Number of classifiers (features) M")
    ax.set_ylabel("Highest expected chance accuracy (%)")
    ax.set_title("Chance accuracy of the best of M random classifiers", **title_place(own))
    ax.grid(alpha=0.3)
    # Below the axes: the legend never hides a curve.
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=3, frameon=False)
    return ax


def plot_errors_allowed(curve, *, title: str | None = None, ax=None):
    """Figure 3: leave-one-out accuracy against the number of validation errors allowed.

    E[X_(1)], the MGM threshold and E[X] of the curve's null are marked.

    Parameters
    ----------
    curve : widefs.univariate.LeaveOneOutCurve
        The result of :func:`widefs.univariate.leave_one_out_threshold_curve`.
    title : str, optional
        Drawn literally (no mathtext).
    ax : matplotlib Axes, optional
        Drawn on a new figure (no pyplot) when omitted.

    Returns
    -------
    matplotlib Axes
        The axes drawn on.

    See Also
    --------
    widefs.univariate.leave_one_out_threshold_curve : Computes the curve.
    plot_threshold_accuracies : Figure 2, one bar per threshold rule.

    Examples
    --------
    >>> from widefs.univariate import LeaveOneOutCurve
    >>> curve = LeaveOneOutCurve(
    ...     errors_allowed=np.arange(4), accuracy=np.array([0.5, 0.9, 0.8, 0.6]),
    ...     mean_selected=np.array([0.0, 2.0, 9.0, 40.0]),
    ...     expected_errors=1.5, expected_min_errors=0.4, mgm=1.1)
    >>> ax = plot_errors_allowed(curve, title="$colon$")
    >>> ax.get_title(), ax.get_lines()[0].get_ydata().tolist()
    ('$colon$', [50.0, 90.0, 80.0, 60.0])
    """
    from matplotlib.ticker import MaxNLocator

    # Two legend rows, anchored a little lower than the chance curves' legend.
    own = ax is None
    ax = _axes(ax, bottom=_BOTTOM + _LEGEND_ROW + 0.06)
    ax.plot(
        curve.errors_allowed,
        100 * np.asarray(curve.accuracy),
        marker="o",
        ms=3,
        color=OKABE_ITO[0],
        lw=2,
        label="leave-one-out accuracy",
    )
    marks = [
        (curve.expected_min_errors, "E[X(1)]", OKABE_ITO[3], "--"),
        (curve.mgm, "MGM", OKABE_ITO[2], "-."),
        (curve.expected_errors, "E[X]", OKABE_ITO[4], ":"),
    ]
    for x, label, color, ls in marks:
        ax.axvline(x, ls=ls, lw=1.8, color=color, label=f"{label} = {x:.2f} errors")
    ax.axvspan(curve.expected_min_errors, curve.expected_errors, color="0.92", zorder=0)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("Number of validation errors allowed")
    ax.set_ylabel("Leave-one-out accuracy (%)")
    ax.set_ylim(0, 102)
    ax.set_title(title or "Accuracy versus errors allowed", **LITERAL, **title_place(own))
    ax.grid(alpha=0.3)
    # Below the axes: the legend never hides the curve.
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.18), ncol=2, frameon=False)
    return ax


def plot_threshold_accuracies(accuracies: Mapping[str, float], *, errors=None, title=None, ax=None):
    """Figure 2: bar chart of accuracy per threshold rule (optional error bars).

    Parameters
    ----------
    accuracies : mapping of str to float
        Accuracy in ``[0, 1]`` per rule name, drawn in the mapping's order (percent on the
        axis).
    errors : mapping of str to float, optional
        Error-bar half-widths in the same units, one per name of ``accuracies``.
    title : str, optional
        Drawn literally (no mathtext), as are the rule names.
    ax : matplotlib Axes, optional
        Drawn on a new figure (no pyplot) when omitted.

    Returns
    -------
    matplotlib Axes
        The axes drawn on.

    See Also
    --------
    widefs.univariate.ThresholdOutcome : The per-rule accuracies of the paper's protocol.
    plot_errors_allowed : Figure 3, accuracy against every number of errors allowed.

    Examples
    --------
    >>> accuracies = {"all": 0.62, "mgm": 0.85}
    >>> ax = plot_threshold_accuracies(accuracies, errors={"all": 0.05, "mgm": 0.04})
    >>> [t.get_text() for t in ax.get_xticklabels()], [float(p.get_height()) for p in ax.patches]
    (['all', 'mgm'], [62.0, 85.0])
    """
    own = ax is None
    ax = _axes(ax)
    names = list(accuracies)
    values = [100 * accuracies[k] for k in names]
    yerr = None if errors is None else [100 * errors[k] for k in names]
    bars = ax.bar(range(len(names)), values, yerr=yerr, capsize=4, color=OKABE_ITO[0])
    for bar, v in zip(bars, values, strict=True):
        ax.annotate(
            f"{v:.1f}",
            (bar.get_x() + bar.get_width() / 2, v),
            ha="center",
            va="bottom",
            fontsize="small",
        )
    ax.set_ylabel("Leave-one-out accuracy (%)")
    ax.set_ylim(0, 105)
    ax.set_title(title or "Accuracy by feature-selection threshold", **LITERAL, **title_place(own))
    ax.set_xticks(range(len(names)), [str(n) for n in names], **LITERAL)
    ax.tick_params(axis="x", labelrotation=20)
    return ax
