"""Probes of the gaps to the dissertation: kNN baselines under four scalings, and breast
cancer with its interval attributes coded as ordered numbers.

Breast cancer's attributes are nominal brackets ("30-39", "0-4", ...) and a 1-3 grade; with
0/1 mismatch on one or two selected brackets most training instances tie in distance. The
dissertation replaces missing discrete values by "the median feature value", which suggests
numeric codes. The coding probe reruns the library's protocol (kNN, SBS / SFS / GA) with the
ordered attributes (age, tumor-size, inv-nodes, deg-malig) as numbers divided by their maximum (the dissertation's normalization of continuous features).
"""

from __future__ import annotations

import dataclasses
import time

import numpy as np

from widefs_reproduce.soares2010._data import DATASETS, PAPER, load, preprocess
from widefs_reproduce.soares2010._runs import run_split, splits
from widefs_reproduce.soares2010._variants import predict_knn, retuned_k

__all__ = ["SCALINGS", "baseline_table", "coding_table", "coding_task", "scaling_task"]

SCALINGS = {
    "maxabs": "divided by the maximum absolute value (the dissertation's text; ours)",
    "none": "no scaling",
    "zscore": "standardized",
    "minmax": "scaled to [0, 1]",
}
ORDERED = ["age", "tumor-size", "inv-nodes", "deg-malig"]


def scaling_task(name, n_splits) -> dict:
    """kNN without selection (k tuned by leave-one-out on all features) under each scaling
    of the continuous features, on the protocol's splits: ``{scaling: [(accuracy, k)]}``."""
    from widefs.search import dissertation_k_grid

    spec = DATASETS[name]
    columns, nominal, y, _ = load(spec)
    out = {how: [] for how in SCALINGS}
    for _, train, test in splits(name, n_splits):
        classes, ytr = np.unique(y[train], return_inverse=True)
        yte = np.searchsorted(classes, y[test])
        for how in SCALINGS:
            Xtr, Xte, _ = preprocess(columns, nominal, train, test, spec, scaling=how)
            mask = np.ones(Xtr.shape[1], dtype=bool)
            grid = dissertation_k_grid(ytr.size)
            k = retuned_k(Xtr, ytr, classes.size, nominal, mask, None, grid)
            pred = predict_knn("library", Xtr, ytr, classes.size, nominal, mask, k, Xte)
            out[how].append((float(np.mean(pred == yte)), int(k)))
    return out


def baseline_table(base: dict) -> list[str]:
    """``base``: ``{dataset: scaling_task result}``."""
    out = [
        "| dataset | dissertation: kNN no FS | "
        + " | ".join(f"{h}: acc. (median k)" for h in SCALINGS)
        + " |",
        "|---|---|" + "---|" * len(SCALINGS),
    ]
    for name, by in base.items():
        cells = [name, f"{PAPER['kNN/GA'][name][0]:.2f}"]
        for how in SCALINGS:
            v = by[how]
            cells.append(
                f"{100 * np.mean([a for a, _ in v]):.2f} ({np.median([k for _, k in v]):.0f})"
            )
        out.append("| " + " | ".join(cells) + " |")
    return out


def _lower_bound(text) -> float:
    return float(str(text).split("-")[0])


def ordered_columns(columns, nominal, names):
    """Breast cancer with its ordered attributes as numbers (bracket lower bound or grade;
    missing values NaN, imputed by the training mean) and the rest nominal."""
    columns, nominal = list(columns), nominal.copy()
    for j, name in enumerate(names):
        if name in ORDERED:
            columns[j] = np.array([np.nan if v == "?" else _lower_bound(v) for v in columns[j]])
            nominal[j] = False
    return columns, nominal


def coding_task(method, n_splits, quick) -> dict:
    """The library's protocol on breast cancer with ordered attributes as numbers (divided
    by their training maximum): per split, accuracies without selection, with
    traditional selection and with CEFS."""
    name = "breast cancer"
    spec = DATASETS[name]
    columns, nominal, y, names = load(spec)
    columns, nominal = ordered_columns(columns, nominal, names)
    spec = dataclasses.replace(spec, nominal_all=False)
    c0 = time.process_time()
    acc = [
        list(
            run_split(method, spec, columns, nominal, y, tr, te, seed, quick, variants=False)["acc"]
        )
        for seed, tr, te in splits(name, n_splits)
    ]
    return {"method": method, "acc": acc, "cpu_seconds": time.process_time() - c0}


def coding_table(protocol: dict, coded: list) -> list[str]:
    """Breast cancer kNN: the protocol beside the ordered coding and the dissertation."""
    out = [
        "| method | dissertation: no FS / trad. / CEFS | ours, nominal brackets (protocol) "
        "| ours, ordered attributes as numbers |",
        "|---|---|---|---|",
    ]
    for c in coded:
        paper = " / ".join(f"{v:.2f}" for v in PAPER[c["method"]]["breast cancer"])
        base = 100 * np.array([x["acc"] for x in protocol[("breast cancer", c["method"])]["runs"]])
        probe = 100 * np.array(c["acc"])
        cells = [" / ".join(f"{v:.2f}" for v in a.mean(axis=0)) for a in (base, probe)]
        out.append(f"| {c['method']} | {paper} | {cells[0]} | {cells[1]} |")
    return out
