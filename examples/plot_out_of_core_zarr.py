"""
Out-of-core selection on a zarr store
=====================================

Genotype or expression matrices with hundreds of thousands of features may not fit in
memory. :class:`~widefs.univariate.DiscriminativeSelector` and the Set Covering Machines read
a zarr array (or a dask array, or a numpy memmap) one block of columns at a time and never
load it whole; the fitted model is exactly the one an in-memory fit gives.

This example writes a synthetic 60 x 100,000 matrix (200 weakly informative features) to a
zarr store on disk, selects features from the store, checks the result against the same fit
in memory, and measures how much memory the out-of-core fit allocated.
"""

# %%
# A zarr store on disk
# --------------------
# Chunks span all rows and a few thousand columns, the layout the readers go through.
import tempfile
import tracemalloc
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import zarr

from widefs.datasets import make_wide_classification
from widefs.scm import SampleCompressionSCM
from widefs.univariate import DiscriminativeSelector

n_informative = 200
X, y = make_wide_classification(
    60, 100_000, n_informative=n_informative, effect_size=1.0, dtype=np.float32, random_state=0
)
workdir = tempfile.TemporaryDirectory()


def to_zarr(matrix, name):
    """Write ``matrix`` to a zarr store and open it read-only, as a reader would."""
    path = str(Path(workdir.name) / name)
    array = zarr.create_array(store=path, shape=matrix.shape, chunks=(60, 8192), dtype="f4")
    array[:] = matrix
    return zarr.open_array(path, mode="r")


z = to_zarr(X, "expression.zarr")
print(
    f"{z.shape[0]} x {z.shape[1]:,} float32 on disk: {X.nbytes / 2**20:.1f} MiB uncompressed, "
    f"chunks {z.chunks}"
)

# %%
# Selection from the store
# ------------------------
# ``tracemalloc`` follows numpy's allocations, so its peak is the memory the fit itself
# allocated. The fit holds a few column blocks at a time, so the peak does not grow with the
# number of features: compare a store with the first 20,000 columns.


def fit_peak(matrix):
    tracemalloc.start()
    fitted = DiscriminativeSelector("mgm", random_state=0).fit(matrix, y)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return fitted, peak / 2**20


small = to_zarr(X[:, :20_000], "first_columns.zarr")
_, peak_small = fit_peak(small)
selector, peak = fit_peak(z)
print(
    f"peak memory of the fit:  20,000 features: {peak_small:.1f} MiB; "
    f"100,000 features: {peak:.1f} MiB (the matrix: {X.nbytes / 2**20:.1f} MiB)"
)

in_memory = DiscriminativeSelector("mgm", random_state=0).fit(X, y)
assert np.array_equal(selector.n_errors_, in_memory.n_errors_)
assert np.array_equal(selector.get_support(), in_memory.get_support())
print("errors of every feature and the selection equal the in-memory fit")

selected = selector.get_support()
print(
    f"MGM keeps {selected.sum()} features (threshold {selector.threshold_:.2f} errors of "
    f"{selector.n_validation_}); {selected[:n_informative].sum()} of them are among the "
    f"{n_informative} informative ones"
)

# %%
# A Set Covering Machine from the same store
# ------------------------------------------
# The sample-compression SCM presorts the store chunk by chunk into one byte per entry.
scm = SampleCompressionSCM().fit(z, y)
print([str(rule) for rule in scm.rules_], f"risk bound {scm.risk_bound_:.3f}")
print(
    "informative features used:",
    [int(j) for j in np.flatnonzero(scm.get_support()) if j < n_informative],
)

# %%
# The figure: validation errors of 100,000 features
# -------------------------------------------------
# Features are counted by their validation errors on a log scale; the chance quantities of
# Palatucci & Carlson (2008) for M = 100,000 features on N validation examples are marked.
# Okabe & Ito's colour-blind-safe palette.
colors = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#56B4E9", "#CC79A7", "#000000"]
N = selector.n_validation_
bins = np.arange(-0.5, N + 1.5)
fig, ax = plt.subplots(figsize=(8, 3.8), layout="constrained")
ax.hist(
    [selector.n_errors_[n_informative:], selector.n_errors_[:n_informative]],
    bins=bins,
    stacked=True,
    color=[colors[0], colors[1]],
    label=["uninformative features", "informative features"],
)
for value, name, style in (
    (selector.expected_errors_, "E[X]", ":"),
    (selector.expected_min_errors_, "E[X(1)]", "--"),
    (selector.threshold_, "MGM threshold", "-"),
):
    ax.axvline(value, color="black", ls=style, lw=1.5, label=f"{name} = {value:.1f}")
ax.set_yscale("log")
ax.set_xlabel(f"validation errors (of N = {N} examples)")
ax.set_ylabel("number of features")
ax.set_title("Discriminative selection from a zarr store")
ax.legend(frameon=False, loc="upper left", bbox_to_anchor=(1.01, 1))
plt.show()

workdir.cleanup()
