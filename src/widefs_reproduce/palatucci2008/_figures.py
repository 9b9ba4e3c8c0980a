"""Figures 1-3, drawn from the stored results (nothing is recomputed here)."""

from __future__ import annotations

import numpy as np

from widefs_reproduce.palatucci2008._protocol import LABELS, RULES

__all__ = ["write_figures"]


def _curve(data):
    """A :class:`widefs.univariate.LeaveOneOutCurve` holding what Figure 3 draws."""
    from widefs.univariate import LeaveOneOutCurve

    return LeaveOneOutCurve(
        errors_allowed=np.asarray(data["errors_allowed"]),
        accuracy=np.asarray(data["accuracy"]),
        mean_selected=np.asarray(data["mean_selected"]),
        n_validation=data["n_validation"],
        expected_errors=data["expected_errors"],
        expected_min_errors=data["expected_min_errors"],
        mgm=data["mgm"],
    )


def _save(ax, path):
    import matplotlib.pyplot as plt

    ax.figure.savefig(path, dpi=110, metadata={"Software": None})
    plt.close(ax.figure)


def write_figures(colon, synthetic, fig_dir) -> list[str]:
    """Write figure1.png, figure2_colon.png, figure3_colon.png and figure3_synthetic{k}.png
    (the first three subjects) into ``fig_dir``; return the file names."""
    from widefs.plotting import plot_chance_curves, plot_errors_allowed, plot_threshold_accuracies

    names = ["figure1.png"]
    _save(plot_chance_curves(), fig_dir / names[0])
    acc = np.array([[s[r]["accuracy"] for r in RULES] for s in colon["per_seed"]])
    sd = acc.std(axis=0, ddof=1) if len(acc) > 1 else np.zeros(len(RULES))
    ax = plot_threshold_accuracies(
        {LABELS[r]: a for r, a in zip(RULES, acc.mean(axis=0), strict=True)},
        errors={LABELS[r]: s for r, s in zip(RULES, sd, strict=True)},
        title="colon: accuracy by threshold",
    )
    _save(ax, fig_dir / "figure2_colon.png")
    shape = " x ".join(map(str, colon["shape"]))
    ax = plot_errors_allowed(_curve(colon["curve"]), title=f"colon ({shape}), seed 0")
    _save(ax, fig_dir / "figure3_colon.png")
    names += ["figure2_colon.png", "figure3_colon.png"]
    for k, subject in enumerate(synthetic[:3]):
        shape = " x ".join(map(str, subject["shape"]))
        ax = plot_errors_allowed(
            _curve(subject["curve"]), title=f"synthetic subject {k + 1} ({shape})"
        )
        names.append(f"figure3_synthetic{k + 1}.png")
        _save(ax, fig_dir / names[-1])
    return names
