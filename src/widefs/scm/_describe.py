"""A plain-text summary of a fitted Set Covering Machine, for reports."""

from __future__ import annotations

from sklearn.utils.validation import check_is_fitted

__all__ = ["describe_model"]

_SETTING = {
    "SampleCompressionSCM": "sample-compression",
    "OccamSCM": "Occam",
    "PACBayesSCM": "PAC-Bayes (Gibbs)",
}


def describe_model(model, *, max_rules: int | None = None) -> str:
    """A plain-text summary of a fitted SCM: the rule, its risk bound and training risk.

    Meant for reports (the CLI prints it as is).

    Parameters
    ----------
    model : SampleCompressionSCM, OccamSCM or PACBayesSCM
        Fitted.
    max_rules : int, optional
        Show at most this many rules (the others are counted).

    Returns
    -------
    str
        Three lines: the learner, the rule, the training risk and the bound.

    See Also
    --------
    from_json : Rebuilds a saved model, which describes itself identically.

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
    setting = _SETTING.get(name, "")
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
