"""Self-describing JSON for fitted Set Covering Machines, and a readable model summary."""

from __future__ import annotations

import json

import numpy as np

from widefs.scm._base import BaseSCM, StumpRule

__all__ = ["describe_model", "from_json", "model_from_json", "model_to_json"]

FORMAT = "widefs.scm"
FORMAT_VERSION = 1

_FLOAT_ATTRS = (
    "risk_bound_",
    "empirical_risk_",
    "gibbs_risk_",
    "bayes_risk_bound_",
)
_ARRAY_ATTRS = ("bound_path_", "margin_ratios_", "compression_set_", "feature_importances_")


def _estimators() -> dict:
    from widefs.scm._greedy import OccamSCM, SampleCompressionSCM
    from widefs.scm._pac_bayes import PACBayesSCM

    return {c.__name__: c for c in (SampleCompressionSCM, OccamSCM, PACBayesSCM)}


def _plain(value):
    """JSON-safe version of a parameter or label (numpy scalars, tuples, arrays)."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return [_plain(v) for v in value.tolist()]
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    return value


def model_to_json(model: BaseSCM) -> str:
    """JSON text holding the estimator's class, parameters, classes and rules.

    Floats are written with Python's shortest round-trip repr, so thresholds (and hence
    predictions) are identical after :func:`model_from_json`.
    """
    from sklearn.utils.validation import check_is_fitted

    check_is_fitted(model, "rules_")
    doc = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "estimator": type(model).__name__,
        "params": {k: _plain(v) for k, v in model.get_params(deep=False).items()},
        "classes": _plain(model.classes_),
        "classes_dtype": model.classes_.dtype.str,
        "n_features_in": int(model.n_features_in_),
        "feature_names_in": (
            _plain(model.feature_names_in_) if hasattr(model, "feature_names_in_") else None
        ),
        "n_rules_learned": int(model.n_rules_learned_),
        "rules": [r.to_dict() for r in model.rules_],
        "feature_range": (
            [_plain(model.feature_range_[0]), _plain(model.feature_range_[1])]
            if hasattr(model, "feature_range_")
            else None
        ),
    }
    for name in _FLOAT_ATTRS:
        if hasattr(model, name):
            doc[name.rstrip("_")] = float(getattr(model, name))
    for name in _ARRAY_ATTRS:
        if hasattr(model, name):
            doc[name.rstrip("_")] = _plain(np.asarray(getattr(model, name)))
    return json.dumps(doc, indent=1, allow_nan=False)


def model_from_json(text: str) -> BaseSCM:
    """Rebuild a fitted estimator from :func:`model_to_json` output.

    Examples
    --------
    >>> import numpy as np
    >>> from widefs.scm import SampleCompressionSCM
    >>> X = np.array([[0.0, 5.0], [1.0, 3.0], [2.0, 4.0], [3.0, 1.0]])
    >>> clf = SampleCompressionSCM().fit(X, ["a", "a", "b", "b"])
    >>> again = from_json(clf.to_json())
    >>> (again.predict(X) == clf.predict(X)).all(), again.rules_ == clf.rules_
    (np.True_, True)
    """
    doc = json.loads(text)
    if doc.get("format") != FORMAT:
        raise ValueError(f"Not a widefs.scm model: format is {doc.get('format')!r}.")
    if doc.get("format_version") != FORMAT_VERSION:
        raise ValueError(
            f"Unsupported widefs.scm format version {doc.get('format_version')!r} "
            f"(this widefs reads version {FORMAT_VERSION})."
        )
    classes = _estimators()
    name = doc["estimator"]
    if name not in classes:
        raise ValueError(f"Unknown estimator {name!r}; expected one of {sorted(classes)}.")
    params = dict(doc["params"])
    if isinstance(params.get("feature_range"), list):
        params["feature_range"] = tuple(params["feature_range"])
    model = classes[name](**params)
    model.classes_ = np.array(doc["classes"], dtype=np.dtype(doc["classes_dtype"]))
    model.n_features_in_ = int(doc["n_features_in"])
    if doc.get("feature_names_in") is not None:
        model.feature_names_in_ = np.array(doc["feature_names_in"], dtype=object)
    model.n_rules_learned_ = int(doc["n_rules_learned"])
    model.rules_ = [StumpRule.from_dict(r) for r in doc["rules"]]
    model.selected_features_ = np.array([r.feature for r in model.rules_], dtype=np.intp)
    importances = np.zeros(model.n_features_in_)
    if model.rules_:
        np.add.at(importances, model.selected_features_, 1.0 / len(model.rules_))
    if "feature_importances" in doc:
        importances = np.asarray(doc["feature_importances"], dtype=float)
    model.feature_importances_ = importances
    if doc.get("feature_range") is not None:
        model.feature_range_ = tuple(np.asarray(v, dtype=float) for v in doc["feature_range"])
    for attr in _FLOAT_ATTRS:
        key = attr.rstrip("_")
        if key in doc:
            setattr(model, attr, float(doc[key]))
    for attr in _ARRAY_ATTRS:
        key = attr.rstrip("_")
        if key in doc:
            dtype = np.intp if attr == "compression_set_" else float
            setattr(model, attr, np.asarray(doc[key], dtype=dtype))
    return model


def from_json(text: str) -> BaseSCM:
    """Rebuild any fitted widefs.scm model from its JSON (see ``model.to_json()``)."""
    return model_from_json(text)


def describe_model(model: BaseSCM, *, max_rules: int | None = None) -> str:
    """A plain-text summary of a fitted SCM: the rule, its risk bound and training risk.

    Meant for reports (the CLI prints it as is).

    Examples
    --------
    >>> import numpy as np
    >>> from widefs.scm import SampleCompressionSCM
    >>> X = np.array([[0.0, 5.0], [1.0, 3.0], [2.0, 4.0], [3.0, 1.0]])
    >>> print(describe_model(SampleCompressionSCM().fit(X, [0, 0, 1, 1])))
    SampleCompressionSCM (conjunction of 1 decision stump, p=1, delta=0.05)
    predict 1 if x0 > 1, else 0
    training risk 0.000; sample-compression risk bound 0.934 (holds with probability 0.95)
    """
    from sklearn.utils.validation import check_is_fitted

    check_is_fitted(model, "rules_")
    name = type(model).__name__
    k = len(model.rules_)
    kind = model.model_type
    c0, c1 = model.classes_[0], model.classes_[1]
    lines = [
        f"{name} ({kind} of {k} decision stump{'s' if k != 1 else ''}, "
        f"p={model.p:g}, delta={model.delta:g})"
    ]
    shown = model.rules_ if max_rules is None else model.rules_[:max_rules]
    joiner = " and " if kind == "conjunction" else " or "
    if k == 0:
        lines.append(f"predict {c1} always" if kind == "conjunction" else f"predict {c0} always")
    else:
        body = joiner.join(str(r) for r in shown)
        if len(shown) < k:
            body += f"{joiner}... ({k - len(shown)} more)"
        lines.append(f"predict {c1} if {body}, else {c0}")
    setting = {
        "SampleCompressionSCM": "sample-compression",
        "OccamSCM": "Occam",
        "PACBayesSCM": "PAC-Bayes (Gibbs)",
    }.get(name, "")
    conf = f"holds with probability {1 - model.delta:g}"
    if name == "PACBayesSCM":
        lines.append(
            f"training Gibbs risk {model.gibbs_risk_:.3f}; {setting} risk bound "
            f"{model.risk_bound_:.3f}, Bayes classifier bound {model.bayes_risk_bound_:.3f} ({conf})"
        )
    else:
        lines.append(
            f"training risk {model.empirical_risk_:.3f}; {setting} risk bound "
            f"{model.risk_bound_:.3f} ({conf})"
        )
    return "\n".join(lines)
