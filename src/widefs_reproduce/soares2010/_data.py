"""The data sets of Table 6, the dissertation's printed numbers, the splits and preprocessing."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from widefs_reproduce._common import paper_tables

__all__ = [
    "APPENDIX_B",
    "DATASETS",
    "METHODS",
    "PAPER",
    "PAPER_NAME",
    "PAPER_RUNS",
    "PAPER_SIZES",
    "TABLE",
    "Spec",
    "appendix_b_summary",
    "load",
    "parse_appendix_b",
    "preprocess",
    "split_indices",
]

PAPER_NAME = "soares2010"
MISSING = "?"


@dataclass
class Spec:
    """One dataset of Table 6."""

    bundled: str
    n_train: int
    prep: str  # "continuous", "nominal", "mixed", "standardize"
    impute: bool = False
    nominal_all: bool = False
    train_counts: dict | None = None
    relabel: dict | None = None
    note: str = ""
    ga: dict = field(default_factory=dict)


DATASETS = {
    "breast cancer": Spec("breast_cancer_ljubljana", 136, "nominal", nominal_all=True),
    "wine": Spec("wine", 114, "continuous"),
    "credit approval": Spec("credit_approval", 490, "mixed", impute=True),
    "congressional voting": Spec("congressional_voting", 268, "nominal"),
    "musk v1": Spec("musk1", 248, "continuous"),
    "arrhythmia": Spec(
        "arrhythmia",
        235,
        "continuous",
        impute=True,
        train_counts={"N": 111, "A": 111, "U": 13},
        relabel={"1": "N", "16": "U", **{str(c): "A" for c in range(2, 16)}},
    ),
    "madelon": Spec("madelon", 194, "continuous"),
    "colon cancer": Spec("colon", 36, "continuous", ga={"population_size": 40, "elitism": 0.9}),
    "lymphoma (substitute)": Spec(
        "lymphoma",
        34,
        "standardize",
        relabel={"DLBCL": "DLBCL", "FL": "other", "CLL": "other"},
        note="bundled 62 x 4026 Alizadeh data, DLBCL (42) vs FL+CLL (20); test = the other 28",
        ga={"population_size": 40, "elitism": 0.9},
    ),
}

METHODS = {
    "NB/SBS": ["breast cancer", "credit approval", "congressional voting"],
    "kNN/SBS": ["breast cancer", "wine", "credit approval", "congressional voting"],
    "kNN/SFS": ["breast cancer", "wine", "credit approval", "congressional voting"],
    "kNN/GA": list(DATASETS),
}
TABLE = {"NB/SBS": 7, "kNN/SBS": 8, "kNN/SFS": 9, "kNN/GA": 10}


def _paper() -> tuple[dict, dict, dict, dict]:
    """Tables 7-10 (``{method: {dataset: (no FS, trad., CEFS)}}``), Appendix A runs
    (``{(dataset, method): array (15, 3)}``), Table 6 sizes and Appendix B subsets."""
    t = paper_tables(PAPER_NAME)["tables"]
    tables = {
        t[f"table{n}"]["method"]: {k: tuple(v) for k, v in t[f"table{n}"]["rows"].items()}
        for n in TABLE.values()
    }
    runs = {
        (name, method): np.array(v["runs"], dtype=float)
        for method, by in t["appendix_a"].items()
        for name, v in by.items()
    }
    sizes = {k: (v[3], v[4]) for k, v in t["table6"]["rows"].items()}
    return tables, runs, sizes, t["appendix_b"]


PAPER, PAPER_RUNS, PAPER_SIZES, APPENDIX_B = _paper()


def appendix_b_summary(name: str, method: str):
    """Appendix B of the dissertation (15 runs): mean size of the overall subset, mean size
    per class-specific subset (sorted class labels), mean size of their union, runs whose
    union holds features outside the overall subset (hypothesis part 3) and runs whose
    overall subset holds features outside the union (part 4). None if not listed."""
    runs = APPENDIX_B.get(method, {}).get(name)
    if not runs:
        return None
    classes = sorted(runs[0]["classes"])
    unions = [set().union(*map(set, r["classes"].values())) for r in runs]
    return (
        float(np.mean([len(r["overall"]) for r in runs])),
        tuple(float(np.mean([len(r["classes"][c]) for r in runs])) for c in classes),
        float(np.mean([len(u) for u in unions])),
        sum(bool(u - set(r["overall"])) for u, r in zip(unions, runs)),
        sum(bool(set(r["overall"]) - u) for u, r in zip(unions, runs)),
    )


def parse_appendix_b(text: str) -> dict:
    """Subsets of Appendix B of the dissertation text: {(dataset, method): [runs]}.

    Each run is ``(overall, {class: subset})`` with 1-based feature indices. A list of
    p entries holds 0 or the feature's own index; page numbers (>= 100) inside the text
    are skipped. This is how Appendix B in ``papers/soares2010.json`` was transcribed.
    """
    text = text[text.index("Appendix B: Best found") :]
    toks = text.split()
    widths = {"Cancer": 9, "Wine": 13, "Approval": 15, "Voting": 16, "Jails": 16}
    runs: dict = {}
    ds = meth = cur = None
    i = 0
    while i < len(toks):
        t = toks[i]
        if t == "Dataset":
            ds = toks[i - 1]
        elif re.fullmatch(r"\((NBC|kNN)/(SBS|SFS|GA)\)", t):
            meth = t.strip("()").replace("NBC", "NB")
        elif t.endswith(":") and ds in widths and meth:
            vals: list[int] = []
            while len(vals) < widths[ds]:
                i += 1
                v = toks[i]
                if v in ("0", str(len(vals) + 1)):
                    vals.append(int(v))
                elif not (v.isdigit() and int(v) >= 100):
                    raise ValueError(f"unexpected token {v!r} in {ds} {meth}")
            subset = {k for k in vals if k}
            if t == "Overall:":
                cur = (subset, {})
                runs.setdefault((ds, meth), []).append(cur)
            else:
                cur[1][t[:-1]] = subset
        i += 1
    return runs


def load(spec: Spec):
    """Columns (object arrays for nominal, float otherwise), nominal mask, labels, names."""
    from widefs.datasets import load_dataset

    bunch = load_dataset(spec.bundled, as_frame=True)
    frame = bunch.data
    y = bunch.target.astype(str).to_numpy()
    if spec.relabel:
        y = np.array([spec.relabel[v] for v in y], dtype=object)
    if spec.nominal_all:
        nominal = np.ones(frame.shape[1], dtype=bool)
    else:
        nominal = np.array([not pd.api.types.is_numeric_dtype(dt) for dt in frame.dtypes])
    columns = []
    for j, col in enumerate(frame.columns):
        s = frame[col]
        if nominal[j]:
            columns.append(np.array([MISSING if v != v else str(v) for v in s], dtype=object))
        else:
            columns.append(s.to_numpy(dtype=float))
    return columns, nominal, y, list(frame.columns)


def split_indices(y, spec: Spec, rng):
    """A training set of the Table 6 size, balanced across classes; test = the rest."""
    classes = np.unique(y)
    counts = spec.train_counts or {c: spec.n_train // classes.size for c in classes}
    train = np.concatenate(
        [rng.choice(np.flatnonzero(y == c), counts[c], replace=False) for c in classes]
    )
    train.sort()
    test = np.setdiff1d(np.arange(y.size), train)
    return train, test


def preprocess(columns, nominal, train, test, spec: Spec, scaling: str | None = None):
    """Fit imputation / scaling / category codes on the training rows.

    Nominal columns become category codes (training categories only; an unseen test
    category gets -1, which matches nothing); missing nominal values are a category of
    their own unless ``spec.impute`` (then the most frequent training value). Continuous
    columns: mean imputation, then ``scaling`` ("maxabs": divided by the maximum absolute
    value, the dissertation's; "zscore"; "minmax"; "none"), by default "zscore" for
    ``spec.prep == "standardize"`` and "maxabs" otherwise.
    """
    Xtr = np.empty((train.size, len(columns)))
    Xte = np.empty((test.size, len(columns)))
    n_categories = np.zeros(len(columns), dtype=np.int64)
    for j, col in enumerate(columns):
        tr, te = col[train], col[test]
        if nominal[j]:
            if spec.impute:
                seen = tr[tr != MISSING]
                values, counts = np.unique(seen, return_counts=True)
                mode = values[np.argmax(counts)]
                tr = np.where(tr == MISSING, mode, tr)
                te = np.where(te == MISSING, mode, te)
            cats = {c: i for i, c in enumerate(np.unique(tr))}
            Xtr[:, j] = [cats[v] for v in tr]
            Xte[:, j] = [cats.get(v, -1) for v in te]
            n_categories[j] = len(cats)
            continue
        tr, te = tr.astype(float), te.astype(float)
        mean = np.nanmean(tr) if np.isfinite(tr).any() else 0.0
        tr, te = np.where(np.isnan(tr), mean, tr), np.where(np.isnan(te), mean, te)
        how = scaling or ("zscore" if spec.prep == "standardize" else "maxabs")
        if how == "zscore":
            mu, sd = tr.mean(), tr.std() or 1.0
            tr, te = (tr - mu) / sd, (te - mu) / sd
        elif how == "minmax":
            lo, width = tr.min(), (tr.max() - tr.min()) or 1.0
            tr, te = (tr - lo) / width, (te - lo) / width
        elif how == "maxabs":
            scale = np.abs(tr).max() or 1.0
            tr, te = tr / scale, te / scale
        Xtr[:, j], Xte[:, j] = tr, te
    return Xtr, Xte, n_categories
