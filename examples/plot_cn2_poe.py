"""
CN2 against CN2-POE: rule lists that stop growing when the search stops paying
==============================================================================

CN2 (Clark & Niblett 1989) grows each rule by beam search, and the best of many specialized
rules looks better on the training data than it is. Process-oriented estimation (POE,
Domingos 1999) charges each rule for the number of rule versions the search generated
(Eq. 13): the more versions, the more its error estimate leans to the prior error, so
specializing stops when more search would only fit noise.

First the two rule lists on the congressional voting records (435 votes, 16 yes/no/missing
attributes), then Domingos's comparison -- theory size and test error over random 67/33
splits -- on five bundled UCI datasets.
"""

# %%
# Two rule lists on the voting records
# ------------------------------------
# Classic CN2 (no significance test, as in Domingos's comparison) and CN2-POE, as ordered
# decision lists. Each rule shows the class counts it covers in the training data; CN2-POE
# also shows each rule's POE error estimate and ``m``, the rule versions its search generated.
import matplotlib.pyplot as plt
import numpy as np
from sklearn.model_selection import train_test_split

from widefs.datasets import load_dataset
from widefs.rules import CN2Classifier

X, y = load_dataset("congressional_voting", as_frame=True, return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.33, random_state=0)
cn2 = CN2Classifier(stopping="significance", alpha=None).fit(X_train, y_train)
poe = CN2Classifier(stopping="poe").fit(X_train, y_train)
print(cn2)
print(f"test error {1 - cn2.score(X_test, y_test):.3f}\n")
print(poe)
print(f"test error {1 - poe.score(X_test, y_test):.3f}")

# %%
# Theory size and error over random splits
# ----------------------------------------
# Domingos's protocol (Table 1 of the paper): random 67/33 splits, unordered CN2, theory size
# = total number of conditions. Eight splits per dataset keep this example fast; the full
# reproduction (20 splits, 11 datasets) is on the Domingos (1999) results page.
datasets = {
    "voting": "congressional_voting",
    "breast": "breast_cancer_ljubljana",
    "heart": "heart_c",
    "hepatitis": "hepatitis",
    "lymph": "lymphography",
}
methods = {
    "CN2": dict(stopping="significance", alpha=None),
    "CN2-POE": dict(stopping="poe"),
}
n_splits = 8
size = {m: {d: [] for d in datasets} for m in methods}
error = {m: {d: [] for d in datasets} for m in methods}
for label, name in datasets.items():
    X, y = load_dataset(name, as_frame=True, return_X_y=True)
    for split in range(n_splits):
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.33, random_state=split)
        for method, params in methods.items():
            model = CN2Classifier(mode="unordered", **params).fit(X_tr, y_tr)
            size[method][label].append(model.theory_size_)
            error[method][label].append(1 - model.score(X_te, y_te))

print(f"{'dataset':<10} {'CN2 size':>9} {'POE size':>9} {'CN2 err %':>10} {'POE err %':>10}")
for label in datasets:
    print(
        f"{label:<10} {np.mean(size['CN2'][label]):9.1f} {np.mean(size['CN2-POE'][label]):9.1f} "
        f"{100 * np.mean(error['CN2'][label]):10.1f} "
        f"{100 * np.mean(error['CN2-POE'][label]):10.1f}"
    )

# %%
# The figure
# ----------
# One point per dataset (mean over the splits, bars: one standard error). Points below the
# diagonal are smaller theories (left) or lower errors (right) for CN2-POE.
# Okabe & Ito's colour-blind-safe palette.
colors = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#56B4E9", "#CC79A7", "#000000"]
markers = "osD^v"
fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(9, 4), layout="constrained")
for ax, values, scale, what in (
    (ax1, size, 1, "theory size (conditions)"),
    (ax2, error, 100, "test error (%)"),
):
    for i, label in enumerate(datasets):
        a = scale * np.asarray(values["CN2"][label])
        b = scale * np.asarray(values["CN2-POE"][label])
        se = np.sqrt(n_splits)
        ax.errorbar(
            a.mean(),
            b.mean(),
            xerr=a.std(ddof=1) / se,
            yerr=b.std(ddof=1) / se,
            fmt=markers[i],
            color=colors[i],
            ms=7,
            capsize=3,
            label=label,
        )
    high = max(ax.get_xlim()[1], ax.get_ylim()[1])
    ax.plot([0, high], [0, high], color="grey", lw=1, ls="--")
    ax.set_xlim(0, high)
    ax.set_ylim(0, high)
    ax.set_aspect("equal")
    ax.set_xlabel(f"CN2: {what}")
    ax.set_ylabel(f"CN2-POE: {what}")
ax1.set_title("Theory size")
ax2.set_title("Test error")
ax1.legend(frameon=False, loc="upper left")
plt.show()
