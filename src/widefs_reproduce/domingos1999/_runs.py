"""The protocol on one data set (every method, both modes, every split), stored as one task."""

from __future__ import annotations

import time

from widefs_reproduce.domingos1999._data import error_rate, load, splits

__all__ = ["POE2C", "dataset_task", "engine_fingerprint", "methods"]

# CN2-POE2 with eps_prior = the error of the rule's own empty version (1 - p_c in unordered
# mode; the same as the paper's prior in ordered mode): CN2Classifier(poe_prior="class").
POE2C = "CN2-POE2c"


def methods(modes):
    """(name, mode, estimator params) of every method run on each split."""
    out = []
    for mode in modes:
        out += [
            ("CN2", mode, dict(stopping="significance", alpha=None)),
            ("CN2-LRS", mode, dict(stopping="significance", alpha=0.05)),
            ("CN2-POE1", mode, dict(stopping="poe1")),
            ("CN2-POE2", mode, dict(stopping="poe")),
            (POE2C, mode, dict(stopping="poe", poe_prior="class")),
            ("CN2-POE(m'=m)", mode, dict(stopping="poe", poe_effective="identity")),
        ]
    return out


def fit_row(params, X_tr, y_tr, X_te, y_te) -> dict:
    """Fit one CN2 variant: test error in %, theory size, rules and CPU seconds."""
    from widefs.rules import CN2Classifier

    t0 = time.process_time()
    model = CN2Classifier(**{"beam_width": 5, **params}).fit(X_tr, y_tr)
    cpu = time.process_time() - t0
    return dict(
        error=error_rate(model, X_te, y_te),
        size=model.theory_size_,
        rules=len(model.rules_),
        cpu=cpu,
    )


def dataset_task(name, label, n_splits, modes) -> list[dict]:
    """One row per (split, method, mode) on one data set."""
    X, y = load(name)
    rows = []
    for split, (X_tr, X_te, y_tr, y_te) in splits(X, y, n_splits):
        for method, mode, params in methods(modes):
            row = fit_row({"mode": mode, **params}, X_tr, y_tr, X_te, y_te)
            rows.append(dict(dataset=label, split=split, method=method, mode=mode, **row))
    return rows


def engine_fingerprint() -> str:
    """Hash of every method's rules on two splits of a small data set: stored results are
    reused only while CN2 learns the same rules."""
    from widefs.rules import CN2Classifier
    from widefs_reproduce._store import key

    X, y = load("echocardiogram")
    probe = []
    for _, (X_tr, _, y_tr, _) in splits(X, y, 2):
        for _, mode, params in methods(["ordered", "unordered"]):
            model = CN2Classifier(mode=mode, beam_width=5, **params).fit(X_tr, y_tr)
            probe.append([str(r) for r in model.rules_] + [str(model.default_class_)])
    return key(probe=probe)
