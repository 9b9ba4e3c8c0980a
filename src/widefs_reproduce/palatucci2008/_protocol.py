"""The paper's leave-one-out protocol (Section 5.2), its one point of contact with widefs.

Every selector and every threshold curve of this reproduction is built here, by
:func:`selector` and :func:`threshold_curve`, with the protocol's parameters pinned in
:data:`PROTOCOL`: a library default that changes cannot change the paper's protocol.
"""

from __future__ import annotations

import time

import numpy as np

__all__ = [
    "LABELS",
    "PAPER_NULL",
    "PROTOCOL",
    "RULES",
    "engine_fingerprint",
    "gap_errors_allowed",
    "protocol_task",
    "selector",
    "synthetic_task",
    "threshold_curve",
]

# The paper's protocol: one Gaussian naive Bayes per feature, trained on one random half and
# scored by its count of errors on the other half; FDR / Bonferroni at 5%.
PROTOCOL = {"alpha": 0.05, "var_smoothing": 1e-9}
# The paper's null: Theorem 4.1 with the chance rate 1 - 1/C.
PAPER_NULL = {"p_error": "uniform", "null": "analytic"}
RULES = ["all", "max_chance", "fdr", "mgm", "oracle"]
LABELS = {
    "all": "No selection",
    "max_chance": "E[X(1)]",
    "fdr": "Binomial + FDR 5%",
    "mgm": "MGM",
    "oracle": "Oracle",
}


def threshold_curve(X, y, *, seed, thresholds=("all", "max_chance", "fdr", "mgm"), **null):
    """``leave_one_out_threshold_curve`` with the protocol's parameters and ``null``'s."""
    from widefs.univariate import leave_one_out_threshold_curve

    return leave_one_out_threshold_curve(
        X, y, thresholds=thresholds, random_state=seed, **PROTOCOL, **null
    )


def selector(threshold, *, seed, **null):
    """A ``DiscriminativeSelector`` with the protocol's parameters and ``null``'s."""
    from widefs.univariate import DiscriminativeSelector

    # The paper's statistic (validation errors) for every rule, FDR / Bonferroni included.
    return DiscriminativeSelector(
        threshold,
        statistic="errors",
        scorer="gaussian_nb",
        cv="halves",
        random_state=seed,
        **PROTOCOL,
        **null,
    )


def gap_errors_allowed(expected_min_errors: float, expected_errors: float) -> tuple[int, int]:
    """The multiplicity gap [E[X(1)], E[X]] in errors-allowed values, both ends included.

    A rule "fewer than t errors" selects the same features as "at most e errors" for every
    real t in (e, e + 1]. The gap's rules are t in [E[X(1)], E[X]] (the E[X(1)] rule itself
    is its left end), so e is in the gap when (e, e + 1] meets [E[X(1)], E[X]]:
    ``ceil(E[X(1)]) - 1 <= e <= ceil(E[X]) - 1``.

    Examples
    --------
    >>> gap_errors_allowed(6.24, 15.5)  # colon: the E[X(1)] rule keeps <= 6 errors
    (6, 15)
    >>> gap_errors_allowed(6.0, 15.0)
    (5, 14)
    """
    return int(np.ceil(expected_min_errors)) - 1, int(np.ceil(expected_errors)) - 1


def _seed_result(curve) -> dict:
    """One seed's outcome of every rule (what the tables and runs.csv need)."""
    out = {}
    for rule in RULES:
        o = curve.outcomes[rule]
        allowed = np.clip(np.ceil(o.cut) - 1, -1, curve.n_validation)
        out[rule] = {
            "accuracy": float(o.accuracy),
            "median_selected": float(np.median(o.n_selected)),
            "empty_rounds": int(o.empty_rounds),
            "median_errors_allowed": float(np.median(allowed)),
        }
    out["oracle_e"] = int(np.ceil(curve.outcomes["oracle"].cut[0]) - 1)
    return out


def _curve_data(curve) -> dict:
    """The fields of a curve that Figure 3 draws."""
    return {
        "errors_allowed": curve.errors_allowed.tolist(),
        "accuracy": curve.accuracy.tolist(),
        "mean_selected": curve.mean_selected.tolist(),
        "expected_errors": float(curve.expected_errors),
        "expected_min_errors": float(curve.expected_min_errors),
        "mgm": float(curve.mgm),
        "n_validation": int(curve.n_validation),
    }


def _run(X, y, name, seeds) -> dict:
    c0 = time.process_time()
    curves = [threshold_curve(X, y, seed=s, **PAPER_NULL) for s in seeds]
    c = curves[0]
    return {
        "dataset": name,
        "shape": [int(X.shape[0]), int(X.shape[1])],
        "seeds": list(seeds),
        "M": int(c.n_features_scored),
        "N": int(c.n_validation),
        "chance": [float(c.expected_min_errors), float(c.mgm), float(c.expected_errors)],
        "per_seed": [_seed_result(curve) for curve in curves],
        "curve": _curve_data(c),  # seed 0, for Figure 3
        "cpu_seconds": time.process_time() - c0,
    }


def protocol_task(name, seeds, max_features) -> dict:
    """The protocol on one bundled data set, once per seed."""
    from widefs.datasets import load_dataset

    X, y = load_dataset(name, return_X_y=True)
    X = np.asarray(X, dtype=float)[:, :max_features] if max_features else np.asarray(X, float)
    return _run(X, y, name, seeds)


def synthetic_task(subject, n_features, n_informative) -> dict:
    """The protocol (seed 0) on one synthetic fMRI-sized subject (40 examples)."""
    from widefs.datasets import make_wide_classification

    X, y = make_wide_classification(
        40, n_features, n_informative=n_informative, effect_size=1.2, random_state=1000 + subject
    )
    return _run(X, y, f"synthetic subject {subject + 1}", [0])


def engine_fingerprint() -> str:
    """Hash of the protocol's results on a small probe (every null this page uses): stored
    results are reused only while the library computes the same curves and selections."""
    from widefs.datasets import make_wide_classification
    from widefs_reproduce._store import key

    X, y = make_wide_classification(31, 120, n_informative=5, random_state=0)
    probe = []
    for null in (PAPER_NULL, {"p_error": "auto", "null": "analytic"}):
        curve = threshold_curve(X, y, seed=0, **null)
        probe.append([_seed_result(curve), _curve_data(curve)])
    perm = {"p_error": "auto", "null": "permutation", "n_permutations": 20}
    curve = threshold_curve(X, y, seed=0, thresholds=("max_chance", "fdr", "mgm"), **perm)
    probe.append([curve.outcomes[r].n_selected.tolist() for r in ("max_chance", "fdr", "mgm")])
    probe.append(np.flatnonzero(selector("mgm", seed=0, **perm).fit(X, y).get_support()).tolist())
    return key(probe=probe)
