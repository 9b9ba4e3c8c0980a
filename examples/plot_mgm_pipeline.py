"""
MGM selection inside a pipeline, evaluated by nested cross-validation
=====================================================================

Feature selection must happen inside each training fold: selecting on all the data and then
cross-validating the classifier reports an accuracy that does not exist. Here the
multiplicity-gap midpoint (MGM) selector of Palatucci & Carlson (2008) is put in a
scikit-learn pipeline with Gaussian naive Bayes, under the paper's null, the default
(conservative) analytic null and a label-permutation null, beside the stricter E[X(1)]
threshold, and each *whole pipeline* is evaluated by
:func:`~widefs.model_selection.nested_evaluate` on the same 2 x 5 folds of the colon-cancer
data (62 samples x 2000 genes).
"""

# %%
# One pipeline per threshold and null
# -----------------------------------
# ``p_error="uniform"`` is the paper's chance rate (1/2 for two classes); the default
# ``p_error="auto"`` is the majority-class error of the validation examples, a bound that
# holds for any label-blind classifier and is conservative on colon's 40 / 22 classes;
# ``null="permutation"`` measures chance for this classifier on these genes by refitting to
# label permutations (200 per fold here, to stay fast). Every selection runs inside the
# outer training folds only.
#
# :class:`~widefs.model_selection.PriorFallbackClassifier` predicts the class prior in a fold
# where a strict threshold keeps no gene (the selector then warns with a
# :class:`~widefs.exceptions.NothingSelectedWarning`) instead of failing.
import matplotlib.pyplot as plt
import numpy as np
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline

from widefs.datasets import load_dataset
from widefs.model_selection import PriorFallbackClassifier, nested_evaluate
from widefs.univariate import DiscriminativeSelector

X, y = load_dataset("colon", return_X_y=True)
permutations = dict(null="permutation", n_permutations=200)
selectors = {
    "all genes": dict(threshold="all"),
    "MGM, p_error 1/2": dict(threshold="mgm", p_error="uniform"),
    "MGM (default)": dict(threshold="mgm"),
    "MGM, permutation": dict(threshold="mgm", **permutations),
    "E[X(1)], permutation": dict(threshold="max_chance", **permutations),
}
results = {}
for label, params in selectors.items():
    model = make_pipeline(
        DiscriminativeSelector(random_state=0, **params), PriorFallbackClassifier(GaussianNB())
    )
    results[label] = nested_evaluate(model, X, y, cv=5, n_repeats=2, random_state=0)

majority = np.bincount(np.unique(y, return_inverse=True)[1]).max() / y.size
print(f"majority class: {100 * majority:.1f}%")
print(f"{'selector':<21} {'accuracy %':>11} {'95% CI':>14} {'genes':>6} {'stability':>9}")
for label, res in results.items():
    low, high = res["ci"]
    stability = "--" if np.isnan(res["stability"]) else f"{res['stability']:.2f}"
    print(
        f"{label:<21} {100 * res['mean']:11.1f} [{100 * low:5.1f}, {100 * high:5.1f}] "
        f"{np.median(res['n_selected']):6.0f} {stability:>9}"
    )

# %%
# Accuracy and the number of genes kept
# -------------------------------------
# Each dot is one outer test fold; the bar is the Nadeau-Bengio corrected 95% interval of the
# mean, which accounts for the overlap between training folds (the naive interval is too
# narrow).
# Okabe & Ito's colour-blind-safe palette.
colors = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#56B4E9", "#CC79A7", "#000000"]
ticks = [label.replace(", ", "\n").replace(" (", "\n(") for label in results]
fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4), layout="constrained")
rng = np.random.default_rng(0)
for i, res in enumerate(results.values()):
    jitter = rng.uniform(-0.12, 0.12, res["test_score"].size)
    ax1.plot(i + jitter, 100 * res["test_score"], "o", ms=4, alpha=0.6, color=colors[i])
    low, high = res["ci"]
    ax1.errorbar(
        i + 0.3,
        100 * res["mean"],
        yerr=[[100 * (res["mean"] - low)], [100 * (high - res["mean"])]],
        fmt="s",
        color="black",
        capsize=4,
    )
    ax2.plot(i + jitter, res["n_selected"], "o", ms=4, alpha=0.6, color=colors[i])
ax1.axhline(100 * majority, color="grey", ls=":", label="majority class")
ax1.set_xticks(range(len(results)), ticks, fontsize=8)
ax1.set_ylabel("outer-fold accuracy (%)")
ax1.set_title("Nested CV, 2 x 5 folds (mean and 95% CI)")
ax1.legend(frameon=False, loc="lower right")
ax2.set_yscale("symlog", linthresh=1)
ax2.set_ylim(-0.2, 5000)
ax2.set_xticks(range(len(results)), ticks, fontsize=8)
ax2.set_ylabel("genes selected in the fold")
ax2.set_title("Genes kept in each fold")
plt.show()

# %%
# Do the folds agree on the genes?
# --------------------------------
# For each gene, count the outer training folds (of 10) whose selection kept it. A stable
# selector keeps the same genes in every fold (all mass at 10); Nogueira's stability index
# summarizes the counts (1: the same genes every time, 0: no more agreement than random
# subsets of the same size).
names = load_dataset("colon").feature_names
n_folds = results["all genes"]["test_score"].size
fig, ax = plt.subplots(figsize=(6.5, 3.4), layout="constrained")
width = 0.4
for i, label in enumerate(("MGM, p_error 1/2", "MGM, permutation")):
    counts = np.rint(results[label]["selection_frequency"] * n_folds).astype(int)
    per_k = np.bincount(counts, minlength=n_folds + 1)[1:]
    ax.bar(
        np.arange(1, n_folds + 1) + (i - 0.5) * width,
        per_k,
        width,
        color=colors[list(results).index(label)],  # the colour of the first figure
        label=f"{label} (stability {results[label]['stability']:.2f})",
    )
    always = np.flatnonzero(counts == n_folds)
    print(
        f"{label}: {always.size} genes kept in all {n_folds} folds"
        f"{', e.g. ' if always.size else ''}"
        f"{', '.join(str(names[j]) for j in always[:5])}"
    )
ax.set_yscale("log")
ax.set_xticks(range(1, n_folds + 1))
ax.set_xlabel(f"outer training folds (of {n_folds}) that selected the gene")
ax.set_ylabel("number of genes")
ax.set_title("Selection frequency across folds")
ax.legend(frameon=False)
plt.show()
