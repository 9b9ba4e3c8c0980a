"""The data sets, the paper's printed tables and the parameter grids of the reproduction."""

from __future__ import annotations

import warnings

import numpy as np

from widefs_reproduce._common import paper_tables

__all__ = ["DATASETS", "PAPER", "PAPER_DATASETS", "PAPER_NAME", "PAPER_NAMES", "grids", "load"]

PAPER_NAME = "shah2010"
DATASETS = ["colon", "medulloblastoma_b", "medulloblastoma_c", "leukemia", "breast_er"]


def _paper_tables() -> tuple[dict, dict]:
    """Tables I-V as printed (``{table: {dataset: tuple of cells}}``) and dataset facts."""
    data = paper_tables(PAPER_NAME)
    tables = {
        name: {k: tuple(row.values()) for k, row in t.items()} for name, t in data["tables"].items()
    }
    return tables, data["datasets"]


PAPER, PAPER_DATASETS = _paper_tables()
PAPER["shape"] = {k: d["shape"] for k, d in PAPER_DATASETS.items()}
PAPER_NAMES = {k: d["name"] for k, d in PAPER_DATASETS.items()}

_QUICK_GRIDS = {
    "svm_C": [1.0],
    "gs_i": [0, 2, 4],
    "gs_C": [1.0],
    "rfe_i": [0, 2, 4],
    "ada_rounds": [1, 5],
    "sc": {"p": [1.0, 2.0], "model_type": ["conjunction"], "v": 3},
    "occam": {"p": [1.0], "eta": [0.0, 0.02], "model_type": ["conjunction"], "v": 3},
    "pb": {"p": [1.0, 2.0], "eta": [0.01], "model_type": ["conjunction"], "v": 3},
    "fixed": {"p": [1.0], "gamma": [0.05], "v": 3},
}
_BOTH = ["conjunction", "disjunction"]
_GRIDS = {
    "svm_C": [0.01, 1.0, 100.0],
    "gs_i": list(range(13)),
    "gs_C": [0.01, 1.0],
    "rfe_i": list(range(13)),
    "ada_rounds": [1, 5, 10, 20, 50, 100],
    "sc": {"p": [0.5, 1.0, 2.0, 5.0, 10.0], "model_type": _BOTH, "v": 5},
    "occam": {
        "p": [0.5, 1.0, 2.0, 5.0],
        "eta": [0.0, 0.005, 0.02, 0.1],
        "model_type": _BOTH,
        "v": 5,
    },
    "pb": {
        "p": [0.5, 1.0, 2.0, 5.0],
        "eta": [0.001, 0.005, 0.02, 0.1],
        "model_type": _BOTH,
        "v": 5,
    },
    "fixed": {"p": [0.5, 1.0, 2.0, 5.0], "gamma": [0.005, 0.01, 0.02, 0.05, 0.1], "v": 5},
}


def grids(quick: bool) -> dict:
    """Parameter grids searched by the nested CV (and by bound-based selection); a copy."""
    import copy

    return copy.deepcopy(_QUICK_GRIDS if quick else _GRIDS)


def load(name, max_features=None):
    """``(X, y)`` of a bundled data set as float arrays, optionally its first genes only."""
    from widefs.datasets import load_dataset

    X, y = load_dataset(name, return_X_y=True)
    X = np.asarray(X, dtype=float)
    if max_features:
        X = X[:, :max_features]
    return X, np.asarray(y)


def quiet_single_threaded():
    """One numba thread per worker (the workers already use the cores), no bound warnings."""
    import numba

    from widefs.exceptions import HeuristicBoundWarning

    numba.set_num_threads(1)
    warnings.simplefilter("ignore", HeuristicBoundWarning)
    warnings.filterwarnings("ignore", category=UserWarning)
