"""
Chance accuracy of M random classifiers on your data
=====================================================

Score 2000 genes of the colon-cancer data, each by a one-gene naive Bayes classifier tested on
N = 31 validation examples. How accurate would the *best* of them be if no gene carried any
information? Theorem 4.1 of Palatucci & Carlson (2008) answers exactly for M independent
random classifiers; this example computes it for the data at hand, checks it by Monte Carlo,
and sets it beside a label-permutation null computed by the same scoring kernel on the real
genes (which are neither independent nor scored on balanced classes).
"""

# %%
# The numbers for this dataset
# ----------------------------
# :class:`~widefs.univariate.DiscriminativeSelector` scores every gene on one stratified half
# of the data and records the chance quantities it used.
import matplotlib.pyplot as plt
import numpy as np

from widefs.datasets import load_dataset
from widefs.stats import highest_chance_accuracy
from widefs.univariate import DiscriminativeSelector

X, y = load_dataset("colon", return_X_y=True)
selector = DiscriminativeSelector("mgm", random_state=0).fit(X, y)
M, N = selector.n_scored_, selector.n_validation_
chance = highest_chance_accuracy(M, N)
best_observed = selector.scores_.max()
print(f"M = {M} genes scored on N = {N} validation examples")
print(f"best of M useless genes, expected accuracy E[A_H] = {chance:.3f}")
print(f"best observed gene: {best_observed:.3f} ({selector.n_errors_.min()} errors)")
print(
    f"genes kept by the MGM threshold (< {selector.threshold_:.2f} errors): "
    f"{selector.get_support().sum()}"
)

# %%
# Monte Carlo check of Theorem 4.1
# --------------------------------
# M classifiers guessing each of N labels wrong with probability 1/2: the best one's
# accuracy, averaged over 1000 replicates, with its standard error.
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
# A permutation null on the real genes
# ------------------------------------
# Shuffle the labels, score all 2000 genes again exactly as above, and keep the best gene's
# accuracy. The real genes are correlated (fewer effective classifiers: a lower best score)
# and the classes are 40 / 22 (a classifier that leans to the majority class errs less than
# half the time: a higher best score); the permutation null includes both effects.
n_permutations = 100
null_best = np.empty(n_permutations)
for i in range(n_permutations):
    y_perm = rng.permutation(y)
    fit = DiscriminativeSelector("mgm", random_state=i).fit(X, y_perm)
    null_best[i] = fit.scores_.max()
print(
    f"permutation null of the best gene: mean {null_best.mean():.3f}, "
    f"95th percentile {np.quantile(null_best, 0.95):.3f}"
)
print(f"observed best gene beats {np.mean(null_best < best_observed):.0%} of permutations")

# %%
# The figure
# ----------
# Left: the expected best chance accuracy against the number of genes scored, for this N,
# with the Monte Carlo check. Right: the permutation distribution of the best gene's accuracy
# at M = 2000, the analytic value and the observed best gene.
plt.style.use("tableau-colorblind10")
colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(9, 3.6), layout="constrained")

grid = np.unique(np.round(np.logspace(0, np.log10(M), 80)).astype(int))
ax1.plot(
    grid, 100 * highest_chance_accuracy(grid, N), color=colors[0], label=f"Theorem 4.1, N = {N}"
)
ax1.errorbar(
    n_classifiers,
    100 * np.array(mc_mean),
    yerr=100 * 1.96 * np.array(mc_se),
    fmt="o",
    ms=4,
    color=colors[1],
    label="Monte Carlo (95% CI)",
)
ax1.axhline(100 * best_observed, color=colors[2], ls="--", label="best observed gene")
ax1.set_xscale("log")
ax1.set_xlabel("number of genes scored, M")
ax1.set_ylabel("accuracy of the best gene (%)")
ax1.set_title("Best of M useless genes")
ax1.legend(frameon=False, loc="lower right")

bins = np.arange(0.5, N + 1.5) / N * 100
ax2.hist(100 * null_best, bins=bins, color=colors[0], alpha=0.8, label="labels permuted")
ax2.axvline(100 * chance, color=colors[1], lw=2, label=f"E[A_H] = {100 * chance:.1f}%")
ax2.axvline(
    100 * best_observed,
    color=colors[2],
    ls="--",
    lw=2,
    label=f"observed = {100 * best_observed:.1f}%",
)
ax2.set_xlim(100 * min(null_best.min(), chance) - 5, 100)
ax2.set_xlabel("accuracy of the best of 2000 genes (%)")
ax2.set_ylabel(f"permutations (of {n_permutations})")
ax2.set_title("Permutation null on colon")
ax2.set_ylim(0, 1.5 * ax2.get_ylim()[1])
ax2.legend(frameon=False, loc="upper left")
plt.show()
