"""
The whole analysis in a notebook: ``analyse``
=============================================

``widefs run colon`` writes a report; :func:`widefs.analysis.analyse` returns the same
numbers as Python objects, for a notebook: the chance analysis, the search certificates and
the nested cross-validated comparison as a :class:`pandas.DataFrame`. With the same seed the
numbers are those of the command line's report.

The colon data (62 tissues, 40 tumours and 22 normal, 2,000 genes) have imbalanced classes,
so accuracy alone would hide a method that recognises only the tumours: the comparison puts
balanced accuracy and each class's recall beside it.
"""

# %%
# One call
# --------
# ``quick=True`` is the command line's ``--quick``: 1 x 3-fold comparison, 9 certificate
# permutations. Only the chance analysis and the comparison run here.
import matplotlib.pyplot as plt
import numpy as np

from widefs.analysis import analyse
from widefs.datasets import load_dataset

data = load_dataset("colon")
result = analyse(data.data, data.target, methods=["chance", "compare"], quick=True, random_state=0)

# %%
# The chance level
# ----------------
# The best of 2,000 useless features would reach this validation accuracy by luck (both
# nulls); a feature means something only beyond it.
chance = result.chance
print(f"thresholds use the {chance.null_used} null")
for null, accuracy in chance.chance_accuracy.items():
    print(f"E[A_H], {null} null: {accuracy:.3f}")
print({rule: int(mask.sum()) for rule, mask in chance.selections.items()})

# %%
# The comparison, as a data frame
# -------------------------------
frame = result.comparison
print(frame[["accuracy", "balanced_accuracy", "recall normal", "recall tumor", "features"]])
print(frame[["search_pvalue", "certificate"]])

# %%
# Accuracy against balanced accuracy
# ----------------------------------
# The majority class scores 64.5% accuracy but only 50% balanced accuracy.
y_pos = np.arange(len(frame))
fig, ax = plt.subplots(figsize=(6.4, 3.6), layout="constrained")
for offset, (column, low, high, label) in enumerate(
    [
        ("accuracy", "accuracy_ci_low", "accuracy_ci_high", "accuracy"),
        ("balanced_accuracy", "balanced_ci_low", "balanced_ci_high", "balanced accuracy"),
    ]
):
    errors = [frame[column] - frame[low], frame[high] - frame[column]]
    ax.errorbar(frame[column], y_pos + 0.2 * offset, xerr=errors, fmt="o", label=label)
ax.axvline(result.majority.accuracy, color="black", ls=":", label="majority class")
ax.set_yticks(y_pos + 0.1, frame.index)
ax.set_xlabel("nested cross-validated score (95% interval)")
ax.set_xlim(0, 1)
ax.legend(loc="lower left", fontsize="small")
plt.show()

# %%
# The feature table
# -----------------
# Every feature, best first, with its validation errors and both kinds of p-value.
table = result.features.head(5).copy()
table.index = [data.feature_names[j] for j in table.index]
print(table[["errors", "accuracy", "pvalue_class_difference", "mgm", "fdr"]])
