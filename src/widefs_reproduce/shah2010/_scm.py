"""Tables II-V: the Occam, sample-compression and PAC-Bayes Set Covering Machines.

Each learner is selected two ways on an outer fold's training part: by nested 5-fold CV
over its grid and the number of stumps v (as in the paper), and by the training-set risk
bound (``select="bound"``: the prefix of smallest bound, the configuration of smallest
bound; no nested CV). The engine's behaviour on a probe problem is fingerprinted so that
stored results are reused only while the engine gives the same models.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import warnings

import numpy as np

from widefs_reproduce.shah2010._baselines import errors
from widefs_reproduce.shah2010._data import load, quiet_single_threaded

__all__ = ["configs", "engine_fingerprint", "make", "run_scm"]


def configs(spec) -> list[dict]:
    """Every configuration of a grid ``{param: values, ..., "v": max stumps}``."""
    keys = [k for k in spec if k != "v"]
    return [dict(zip(keys, vals)) for vals in itertools.product(*(spec[k] for k in keys))]


def make(kind, cfg, v, rng, select):
    """The SCM of ``kind`` ("sc", "occam", "pb", "fixed") with ``cfg`` and at most v stumps."""
    from widefs.scm import OccamSCM, PACBayesSCM, SampleCompressionSCM

    if kind == "sc":
        return SampleCompressionSCM(max_rules=v, select=select, **cfg)
    if kind == "occam":
        return OccamSCM(max_rules=v, select=select, feature_range=rng, **cfg)
    if kind == "pb":
        return PACBayesSCM(max_rules=v, select=select, feature_range=rng, **cfg)
    cfg = dict(cfg)
    return PACBayesSCM(
        max_rules=v, select=select, feature_range=rng, margin=cfg.pop("gamma"), **cfg
    )


def _gibbs_errors(model, X, y):
    p1 = model.predict_proba(X)[:, 1]
    return float(np.sum(np.where(y == model.classes_[1], 1.0 - p1, p1)))


def _prefix_errors(kind, model, X, y, V):
    """Validation errors of the models with 1..V stumps (prefixes of one greedy run)."""
    if kind == "pb":  # selected by the expected Gibbs errors
        errs = [
            float(np.sum(np.where(y == model.classes_[1], 1 - p[:, 1], p[:, 1])))
            for p in model.staged_predict_proba(X)
        ]
    else:
        errs = [errors(p, y) for p in model.staged_predict(X)]
    errs = errs[1:] or errs  # v >= 1 stumps (the empty model only if nothing was learned)
    return np.asarray((errs + [errs[-1]] * V)[:V])


def _cv_choice(kind, Xtr, ytr, inner, spec, rng, fixed_v):
    """(configuration, v) of smallest nested-CV error; ties to fewer stumps, then grid order."""
    V = spec["v"]
    scores = {}
    for ci, cfg in enumerate(configs(spec)):
        tot = np.zeros(V)
        for a, b in inner:
            model = make(kind, cfg, V, rng, "none").fit(Xtr[a], ytr[a])
            tot += _prefix_errors(kind, model, Xtr[b], ytr[b], V)
        for v in range(1, V + 1) if fixed_v is None else [fixed_v]:
            scores[(ci, v)] = tot[v - 1]
    ci, v = min(scores, key=lambda k: (scores[k], k[1], k[0]))
    return configs(spec)[ci], v


def _describe(kind, model, cfg, Xte, yte) -> dict:
    out = {
        "errors": errors(model.predict(Xte), yte),
        "size": len(model.rules_),
        "config": cfg,
        "bound": model.risk_bound_,
        "ratios": model.margin_ratios_.tolist() if hasattr(model, "margin_ratios_") else None,
    }
    if kind in ("pb", "fixed"):
        out["gibbs_errors"] = _gibbs_errors(model, Xte, yte)
        out["bayes_errors"] = errors(model.predict(Xte), yte)
    return out


def _bound_selected(kind, Xtr, ytr, Xte, yte, spec, rng):
    """Every config fitted once with select="bound"; the smallest bound wins (grid order)."""
    best = None
    for cfg in configs(spec):
        m = make(kind, cfg, spec["v"], rng, "bound").fit(Xtr, ytr)
        if best is None or m.risk_bound_ < best[0].risk_bound_:
            best = (m, cfg)
    return _describe(kind, best[0], best[1], Xte, yte)


def run_scm(kind, X, y, tr, te, inner, spec, rng, *, cv=True, bound=True, fixed_v=None):
    """CV-selected and bound-selected results of one SCM learner on one outer fold.

    ``fixed_v``: consider only that number of stumps in the nested CV (no early stopping).
    """
    Xtr, ytr, Xte, yte = X[tr], y[tr], X[te], y[te]
    out = {}
    if cv:
        cfg, v = _cv_choice(kind, Xtr, ytr, inner, spec, rng, fixed_v)
        final = make(kind, cfg, v, rng, "none").fit(Xtr, ytr)
        out["cv"] = _describe(kind, final, {**cfg, "v": v}, Xte, yte)
        out["cv"]["bits"] = [r.bits for r in final.rules_] if kind == "occam" else None
    if bound or not cv:
        out["bound"] = _bound_selected(kind, Xtr, ytr, Xte, yte, spec, rng)
    return out


def _probe_models(rng):
    from widefs.scm import OccamSCM, PACBayesSCM, SampleCompressionSCM

    for model_type in ("conjunction", "disjunction"):
        for select in ("none", "bound"):
            common = dict(p=1.0, model_type=model_type, max_rules=4, select=select)
            yield SampleCompressionSCM(**common)
            yield OccamSCM(eta=0.02, feature_range=rng, **common)
            yield PACBayesSCM(eta=0.02, feature_range=rng, **common)
            yield PACBayesSCM(margin=0.05, feature_range=rng, **common)


def _num(v):
    return None if v is None else format(float(v), ".12g")


def _probe_record(m, X) -> dict:
    ratios = getattr(m, "margin_ratios_", None)
    scores = (
        m.predict_proba(X)[:, 1] if hasattr(m, "predict_proba") else m.predict(X) == m.classes_[1]
    )
    return {
        "model": type(m).__name__,
        "stumps": [
            [
                int(r.feature),
                str(r.direction),
                _num(r.threshold),
                None if r.interval is None else [_num(v) for v in r.interval],
                r.bits,
            ]
            for r in m.rules_
        ],
        "bound": _num(m.risk_bound_),
        "ratios": None if ratios is None else [_num(v) for v in ratios],
        "proba": [_num(v) for v in scores],
    }


def engine_fingerprint() -> str:
    """Hash of what the SCM engine computes on a probe problem: stored task results are
    reused only when the learners the tasks run still give the same models.

    The probe fits every learner and model type the tasks use (sample compression, Occam,
    PAC-Bayes with learned and fixed margins; conjunctions and disjunctions; select="none"
    and "bound") on colon's first 300 genes and hashes their stumps (feature, direction,
    threshold, interval, code bits), risk bounds, margin ratios and predictions or
    probabilities (12 significant digits). A behavioural fingerprint, not a hash of the
    sources: a refactoring that changes no result keeps the stored tasks, a change of the
    engine's results on the probe recomputes them. A change that shows only on other data
    escapes it; ``--fresh`` discards the store.
    """
    X, y = load("colon", 300)
    rng = (X.min(axis=0), X.max(axis=0))
    with warnings.catch_warnings():
        quiet_single_threaded()
        probe = [_probe_record(m.fit(X, y), X) for m in _probe_models(rng)]
    return hashlib.sha256(json.dumps(probe, sort_keys=True).encode()).hexdigest()[:16]
