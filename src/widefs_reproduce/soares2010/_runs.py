"""One split of the protocol: CEFS, traditional selection and no selection, and the variants.

A task is one dataset / method pair over all its splits, stored as JSON (subsets as sorted
lists); :func:`from_stored` turns it back into the shape the tables read.
"""

from __future__ import annotations

import time

import numpy as np

from widefs.ensemble import ClassSpecificEnsemble
from widefs.search import (
    CLASS_K_GRID,
    GeneticSelector,
    KNNEvaluator,
    KNNModel,
    NaiveBayesEvaluator,
    NaiveBayesModel,
    SequentialSelector,
    dissertation_k_grid,
)
from widefs.utils import spawn_seeds
from widefs_reproduce.soares2010._data import DATASETS, Spec, load, preprocess, split_indices
from widefs_reproduce.soares2010._variants import cefs_variant, predict_knn, retuned_k

__all__ = ["VARIANTS", "engine_fingerprint", "from_stored", "pair_task", "run_split", "splits"]


def make_selector(method, spec: Spec, nominal, quick):
    """The search of ``method`` ("NB/SBS", "kNN/SFS", "kNN/GA", ...) for the ensemble."""
    evaluator = NaiveBayesEvaluator if method.startswith("NB") else KNNEvaluator
    common = {"evaluator": evaluator(categorical_features=nominal)}
    if method.endswith("SBS"):
        return SequentialSelector("backward", **common)
    if method.endswith("SFS"):
        return SequentialSelector("forward", **common)
    ga = {"population_size": 20, "n_generations": 40, "elitism": 0.8, **spec.ga}
    if quick:
        ga.update(population_size=6, n_generations=3)
    return GeneticSelector(**ga, **common)


def run_split(method, spec, columns, nominal, y, train, test, seed, quick, variants=True):
    """Every number of one split: accuracies, subsets, k, members, and the variants."""
    Xtr, Xte, n_categories = preprocess(columns, nominal, train, test, spec)
    ytr, yte = y[train], y[test]
    classes, ytr_codes = np.unique(ytr, return_inverse=True)
    sel = make_selector(method, spec, nominal, quick)
    ens = ClassSpecificEnsemble(sel, categorical_features=nominal, random_state=int(seed))
    ens.fit(Xtr, ytr)
    all_cols = np.arange(Xtr.shape[1])
    if method.startswith("NB"):
        base = NaiveBayesModel(Xtr, ytr_codes, classes.size, nominal, n_categories, all_cols)
    else:
        k = ens.overall_selector_.n_neighbors_  # tuned on all features (Section 5.2.3)
        base = KNNModel(Xtr, ytr_codes, classes.size, nominal, all_cols, k)
    no_fs = classes[base.predict_codes(Xte)]
    trad = ens.predict_overall(Xte)
    cefs = ens.predict(Xte)
    members = ens.predict_members(Xte)
    decided = ens.decided_by_members(Xte)
    # Beyond the paper: the specialist combiner on the same members, and members scored by
    # the class-balanced criterion (both combiners).
    ens.set_params(combiner="specialist")
    specialist = ens.predict(Xte)
    ens.set_params(combiner="unanimous")
    bal = ClassSpecificEnsemble(
        sel, member_criterion="balanced", categorical_features=nominal, random_state=int(seed)
    ).fit(Xtr, ytr)
    bal_unanimous = bal.predict(Xte)
    bal.set_params(combiner="specialist")
    bal_specialist = bal.predict(Xte)
    recallers = [c for i, c in enumerate(ens.classes_) if np.mean(members[:, i] == c) >= 0.95]
    hyp = {}
    if variants and not method.startswith("NB"):
        hyp = knn_variants(method, Xtr, ytr_codes, Xte, y[test], classes, nominal, ens)
    return {
        "variants_h": hyp,
        "acc": (np.mean(no_fs == yte), np.mean(trad == yte), np.mean(cefs == yte)),
        "variants": (
            np.mean(specialist == yte),
            np.mean(bal_unanimous == yte),
            np.mean(bal_specialist == yte),
        ),
        "bal_recallers": sum(
            np.mean(bal.predict_members(Xte)[:, i] == c) >= 0.95 for i, c in enumerate(bal.classes_)
        ),
        "overall": set(np.flatnonzero(ens.overall_support_).tolist()),
        "classes": {c: set(np.flatnonzero(m).tolist()) for c, m in ens.class_supports_.items()},
        "k": (
            ens.overall_selector_.n_neighbors_,
            [s.n_neighbors_ for s in ens.class_selectors_.values()],
        ),
        "decided": float(decided.mean()),
        "acc_decided": float(np.mean(cefs[decided] == yte[decided])) if decided.any() else np.nan,
        "acc_fallback": float(np.mean(cefs[~decided] == yte[~decided]))
        if (~decided).any()
        else np.nan,
        "trad_on_decided": float(np.mean(trad[decided] == yte[decided]))
        if decided.any()
        else np.nan,
        "recallers": recallers,
        "n_train": train.size,
        "n_test": test.size,
    }


# The hypotheses tested on the kNN pairs (Section "Why CEFS loses" of the page). Each
# changes one thing; "all three" combines them. GA pairs run only "k per subset".
VARIANTS = {
    "keep best": dict(stopping="best"),
    "k per subset": dict(k="subset"),
    "tie-aware kNN": dict(knn="tie-aware"),
    "all three": dict(stopping="best", k="subset", knn="tie-aware"),
}


def knn_variants(method, Xtr, ytr, Xte, yte, classes, nominal, ens):
    """Accuracies (no FS, trad., CEFS) of each hypothesis variant on this split.

    "k per subset" keeps the library's searches (``ens``) and re-tunes k on each selected
    subset; the SFS / SBS variants rerun the searches with the variant's options."""
    yte_codes = np.searchsorted(classes, yte)
    n_classes = classes.size
    out = {}
    grid = dissertation_k_grid(ytr.size)
    k_over = retuned_k(Xtr, ytr, n_classes, nominal, ens.overall_support_, None, grid)
    trad = predict_knn("library", Xtr, ytr, n_classes, nominal, ens.overall_support_, k_over, Xte)
    members = np.column_stack(
        [
            predict_knn(
                "library",
                Xtr,
                ytr,
                n_classes,
                nominal,
                ens.class_supports_[c],
                retuned_k(Xtr, ytr, n_classes, nominal, ens.class_supports_[c], i, CLASS_K_GRID),
                Xte,
            )
            for i, c in enumerate(classes)
        ]
    )
    decided = np.all(members == members[:, :1], axis=1)
    cefs = np.where(decided, members[:, 0], trad)
    out["k per subset"] = (np.nan, np.mean(trad == yte_codes), np.mean(cefs == yte_codes))
    if method.endswith("GA"):
        return out
    direction = "backward" if method.endswith("SBS") else "forward"
    for name, options in VARIANTS.items():
        if name == "k per subset":
            continue
        v = cefs_variant(Xtr, ytr, Xte, nominal, direction=direction, **options)
        out[name] = tuple(
            float(np.mean(pred == yte_codes)) for pred in (v.no_fs, v.traditional, v.cefs)
        )
    return out


def splits(name, n_splits):
    """``(seed, train, test)`` of the protocol's splits of one dataset."""
    spec = DATASETS[name]
    _, _, y, _ = load(spec)
    seeds = spawn_seeds(list(DATASETS).index(name), n_splits)
    for s in seeds:
        train, test = split_indices(y, spec, np.random.RandomState(s))
        yield int(s), train, test


def _jsonable(x):
    if isinstance(x, set):
        return sorted(int(v) for v in x)
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, (np.integer, np.bool_)):
        return x.item()
    if isinstance(x, np.floating):
        return float(x)
    return x


def pair_task(name, method, n_splits, quick) -> dict:
    """One dataset / method pair over its splits, JSON-ready."""
    spec = DATASETS[name]
    columns, nominal, y, feature_names = load(spec)
    c0 = time.process_time()
    runs = [
        _jsonable(run_split(method, spec, columns, nominal, y, train, test, seed, quick))
        for seed, train, test in splits(name, n_splits)
    ]
    return {"runs": runs, "cpu_seconds": time.process_time() - c0, "names": list(feature_names)}


def from_stored(task: dict) -> dict:
    """A stored pair in the shape the tables read (subsets as sets, accuracies as tuples)."""
    runs = []
    for r in task["runs"]:
        r = dict(r)
        r["acc"], r["variants"] = tuple(r["acc"]), tuple(r["variants"])
        r["variants_h"] = {k: tuple(v) for k, v in r["variants_h"].items()}
        r["overall"] = set(r["overall"])
        r["classes"] = {c: set(v) for c, v in r["classes"].items()}
        runs.append(r)
    return {"runs": runs, "time": task["cpu_seconds"], "names": task["names"]}


def engine_fingerprint() -> str:
    """Hash of one split of wine under every search (quick GA): stored pairs are reused only
    while the library's searches and ensembles give the same results."""
    from widefs_reproduce._store import key

    spec = DATASETS["wine"]
    columns, nominal, y, _ = load(spec)
    seed, train, test = next(splits("wine", 1))
    probe = [
        _jsonable(run_split(m, spec, columns, nominal, y, train, test, seed, True, variants=False))
        for m in ("kNN/SBS", "kNN/SFS", "kNN/GA")
    ]
    return key(probe=probe)
