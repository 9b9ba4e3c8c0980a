"""
Chance accuracy of M random classifiers on your data
=====================================================

Score the 2000 genes of the colon-cancer data, each by a one-gene naive Bayes classifier
tested on N = 31 validation examples. How accurate would the *best* gene be if none carried
any information? Theorem 4.1 of Palatucci & Carlson (2008) answers exactly for M independent
classifiers that each err with probability ``p_error``. This example computes it for the data
at hand, checks it by Monte Carlo, and sets it beside a label-permutation null computed by
the same scoring kernel on the real genes, which are correlated and scored on unbalanced
classes (40 tumours, 22 normal tissues).
"""

# %%
# Three nulls for the same scores
# -------------------------------
# :class:`~widefs.univariate.DiscriminativeSelector` scores every gene on one stratified half
# of the data. Its chance quantities come from
#
# * the paper's analytic null, ``p_error="uniform"``: each prediction wrong with probability
#   1/2;
# * the default analytic null, ``p_error="auto"``: the majority-class error of the
#   validation examples, the lowest error any label-blind classifier can expect, which makes
#   the binomial null conservative on unbalanced classes;
# * the permutation null, ``null="permutation"``: the same classifiers refitted to label
#   permutations on the same splits -- the chance behaviour of *this* classifier on *these*
#   class proportions and *these* correlated genes.
import matplotlib.pyplot as plt
import numpy as np

from widefs.datasets import load_dataset
from widefs.stats import highest_chance_accuracy
from widefs.univariate import DiscriminativeSelector

X, y = load_dataset("colon", return_X_y=True)
nulls = {
    "analytic, p_error = 1/2": dict(p_error="uniform"),
    "analytic, majority-class p_error": dict(p_error="auto"),
    "label permutations": dict(null="permutation", n_permutations=500),
}
fits = {
    name: DiscriminativeSelector("mgm", random_state=0, **params).fit(X, y)
    for name, params in nulls.items()
}
reference = fits["label permutations"]
M, N = reference.n_scored_, reference.n_validation_
best_observed = reference.scores_.max()
print(
    f"M = {M} genes scored on N = {N} validation examples; "
    f"best observed gene: {best_observed:.3f} ({reference.n_errors_.min()} errors)"
)
print(f"{'null':<34} {'p_error':>7} {'E[X]':>6} {'E[X(1)]':>8} {'E[A_H]':>7} {'MGM keeps':>9}")
for name, fit in fits.items():
    rate = f"{fit.p_error_:7.3f}" if fit.null_ == "analytic" else "      -"
    print(
        f"{name:<34} {rate} {fit.expected_errors_:6.2f} "
        f"{fit.expected_min_errors_:8.2f} {1 - fit.expected_min_errors_ / N:7.3f} "
        f"{fit.get_support().sum():9d}"
    )

as_good = np.mean(reference.null_min_errors_ <= reference.n_errors_.min())
print(f"label permutations whose best gene is as good as the observed best: {as_good:.1%}")

# %%
# The permutation null's E[X(1)] lands near the paper's p_error = 1/2 value here: a useless
# gene's naive Bayes classifier does not simply predict the majority class, and correlated
# genes are fewer independent chances. The majority-class analytic null is a bound that holds
# for any label-blind classifier, hence much stricter: under it even the best gene (3 errors)
# is not beyond chance, while hardly any label permutation produced a gene that good.
#
# Monte Carlo check of Theorem 4.1
# --------------------------------
# M classifiers guessing each of N labels wrong with probability 1/2: the best one's accuracy,
# averaged over 1000 replicates, with its standard error.
rng = np.random.default_rng(0)
n_classifiers = np.array([1, 3, 10, 30, 100, 300, 1000, 2000])
mc_mean, mc_se = [], []
for m in n_classifiers:
    best = 1 - rng.binomial(N, 0.5, size=(1000, m)).min(axis=1) / N
    mc_mean.append(best.mean())
    mc_se.append(best.std(ddof=1) / np.sqrt(best.size))
    exact = highest_chance_accuracy(m, N)
    print(f"M = {m:5d}: Theorem 4.1 {exact:.4f}, Monte Carlo {mc_mean[-1]:.4f} +- {mc_se[-1]:.4f}")

# %%
# The figure
# ----------
# Left: the expected best chance accuracy against the number of genes scored, for this N,
# under both analytic nulls, with the Monte Carlo check. Right: the best gene's accuracy on
# each label permutation, the analytic values at M = 2000 and the observed best gene.
# Okabe & Ito's colour-blind-safe palette.
colors = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#56B4E9", "#CC79A7", "#000000"]
p_auto = fits["analytic, majority-class p_error"].p_error_
fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(9.5, 3.8), layout="constrained")

grid = np.unique(np.round(np.logspace(0, np.log10(M), 80)).astype(int))
ax1.plot(
    grid,
    100 * highest_chance_accuracy(grid, N),
    color=colors[0],
    label="Theorem 4.1, p_error = 1/2",
)
ax1.plot(
    grid,
    100 * highest_chance_accuracy(grid, N, p_auto),
    color=colors[3],
    ls="-.",
    label=f"Theorem 4.1, p_error = {p_auto:.3f}",
)
ax1.errorbar(
    n_classifiers,
    100 * np.array(mc_mean),
    yerr=100 * 1.96 * np.array(mc_se),
    fmt="o",
    ms=4,
    color=colors[6],
    label="Monte Carlo, 1/2 (95% CI)",
)
ax1.axhline(100 * best_observed, color=colors[2], ls="--", label="best observed gene")
ax1.set_xscale("log")
ax1.set_ylim(45, 100)
ax1.set_xlabel("number of genes scored, M")
ax1.set_ylabel("accuracy of the best gene (%)")
ax1.set_title(f"Best of M useless genes, N = {N}")
ax1.legend(frameon=False, loc="lower right", fontsize=8)

null_best = 100 * (1 - reference.null_min_errors_ / N)
bins = (np.arange(-0.5, N + 1.5) / N) * 100
ax2.hist(null_best, bins=bins, color=colors[4], label="labels permuted")
for name, color, style in (
    ("analytic, p_error = 1/2", colors[0], "-"),
    ("analytic, majority-class p_error", colors[3], "-."),
):
    value = 100 * (1 - fits[name].expected_min_errors_ / N)
    ax2.axvline(value, color=color, ls=style, lw=2, label=f"E[A_H] {name.split(', ')[1]}")
ax2.axvline(
    100 * best_observed,
    color=colors[2],
    ls="--",
    lw=2,
    label="best observed gene",
)
ax2.set_xlim(min(null_best.min(), 70) - 20, 100)
ax2.set_ylim(0, 1.6 * ax2.get_ylim()[1])
ax2.set_xlabel(f"accuracy of the best of {M} genes (%)")
ax2.set_ylabel(f"permutations (of {null_best.size})")
ax2.set_title("Permutation null on colon")
ax2.legend(frameon=False, loc="upper left", fontsize=8)
plt.show()
