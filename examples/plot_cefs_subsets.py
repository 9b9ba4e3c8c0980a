"""
Class-specific ensemble feature selection: one subset per class
===============================================================

Class-specific ensemble feature selection (CEFS, Soares 2010) runs one wrapper search per
class, each scored on how well it recognizes *its* class, and combines the class members
with a classifier on the overall subset, which settles the instances the members disagree
on. The subsets show which features matter for which class -- information a single search
over all classes can hide.

The wine data (178 wines from three cultivars, 13 chemical measurements) keep the example fast
and the feature names readable.
"""

# %%
# The subsets
# -----------
# Features are scaled to [-1, 1] (kNN distances weigh every feature equally); the default
# search is sequential forward selection with leave-one-out kNN.
import matplotlib.pyplot as plt
import numpy as np
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import MaxAbsScaler

from widefs.datasets import load_dataset
from widefs.ensemble import ClassSpecificEnsemble, subset_inclusiveness
from widefs.model_selection import nested_evaluate
from widefs.search import KNNEvaluator, SequentialSelector

X, y = load_dataset("wine", as_frame=True, return_X_y=True)
X_scaled = X / X.abs().max()
cefs = ClassSpecificEnsemble(random_state=0).fit(X_scaled, y)
for label, subset in cefs.class_subsets_.items():
    print(
        f"cultivar {label}: {', '.join(subset)}  "
        f"(leave-one-out recall {cefs.member_scores_[label]:.3f})"
    )
print(
    f"overall:    {', '.join(cefs.overall_subset_)}  "
    f"(leave-one-out accuracy {cefs.overall_score_:.3f})"
)
print(f"training instances decided by the class members alone: {cefs.agreement_rate_:.0%}")

inclusive = subset_inclusiveness(cefs.class_subsets_, cefs.overall_subset_)
print(f"only in class-specific subsets: {inclusive['only_class_specific']}")
print(f"only in the overall subset:     {inclusive['only_overall']}")

# %%
# Which feature serves which class
# --------------------------------
# Okabe & Ito's colour-blind-safe palette.
colors = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#56B4E9", "#CC79A7", "#000000"]
columns = [*(f"cultivar {c}" for c in cefs.class_subsets_), "overall"]
masks = [*cefs.class_supports_.values(), cefs.overall_support_]
used = np.flatnonzero(np.any(masks, axis=0))
fig, ax = plt.subplots(figsize=(5.5, 4), layout="constrained")
for j, mask in enumerate(masks):
    rows = np.flatnonzero(mask[used])
    ax.scatter(
        np.full(rows.size, j),
        rows,
        s=160,
        marker="s",
        color=colors[0] if j < len(masks) - 1 else colors[1],
    )
ax.set_xticks(range(len(columns)), columns)
ax.set_yticks(range(used.size), list(X.columns[used]))
ax.set_xlim(-0.6, len(columns) - 0.4)
ax.set_ylim(used.size - 0.5, -0.5)
ax.grid(True, color="0.9")
ax.set_axisbelow(True)
ax.set_title("Features selected per class")
plt.show()

# %%
# Does it pay off? Nested cross-validation
# ----------------------------------------
# Every search runs inside the training folds (2 x 5 folds), beside one forward search over
# all classes and kNN on all 13 features.
models = {
    "kNN, all features": make_pipeline(MaxAbsScaler(), KNeighborsClassifier(5)),
    "one search (SFS + kNN)": make_pipeline(
        MaxAbsScaler(), SequentialSelector(evaluator=KNNEvaluator(5)), KNeighborsClassifier(5)
    ),
    "CEFS": make_pipeline(MaxAbsScaler(), ClassSpecificEnsemble(random_state=0)),
}
results = {
    name: nested_evaluate(model, X, y, cv=5, n_repeats=2, random_state=0)
    for name, model in models.items()
}
for name, res in results.items():
    low, high = res["ci"]
    print(f"{name:<24} {100 * res['mean']:5.1f}%  95% CI [{100 * low:5.1f}, {100 * high:5.1f}]")

fig, ax = plt.subplots(figsize=(5.5, 3), layout="constrained")
for i, res in enumerate(results.values()):
    low, high = res["ci"]
    ax.errorbar(
        100 * res["mean"],
        i,
        xerr=[[100 * (res["mean"] - low)], [100 * (high - res["mean"])]],
        fmt="o",
        color=colors[i],
        capsize=4,
        ms=7,
    )
ax.set_yticks(range(len(results)), list(results))
ax.set_ylim(len(results) - 0.5, -0.5)
ax.set_xlabel("nested CV accuracy (%), mean and corrected 95% CI")
ax.set_title("Wine, 2 x 5 folds")
plt.show()
