"""A plain-text summary of a fitted Set Covering Machine, for reports."""

from __future__ import annotations

from dataclasses import replace
from typing import NamedTuple

from sklearn.utils.validation import check_is_fitted

__all__ = ["BoundSummary", "describe_bound", "describe_model", "equivalent_names"]

_SETTING = {
    "SampleCompressionSCM": "sample-compression",
    "OccamSCM": "Occam",
    "PACBayesSCM": "PAC-Bayes (Gibbs)",
}
# Equivalent features named per rule before "... (n more)".
SHOW_EQUIVALENT = 10


def equivalent_names(
    model, rule, *, limit: int | None = SHOW_EQUIVALENT, feature_names=None
) -> str:
    """The features equivalent to ``rule`` on the training data, by name, as one line.

    A feature whose stump fires in the opposite direction (absent where the rule's feature
    is present) is marked "(opposite)". Empty when there is none. ``feature_names``
    (indexable by feature index) overrides the model's own names.
    """
    names = getattr(model, "feature_names_in_", None) if feature_names is None else feature_names
    items = [
        (f"x{g}" if names is None else str(names[g]))
        + (" (opposite)" if d != rule.direction else "")
        for g, d in rule.equivalent[:limit]
    ]
    more = len(rule.equivalent) - len(items)
    return ", ".join(items) + (f", ... ({more} more)" if more > 0 else "")


def _rule_text(rules, kind: str, max_rules: int | None) -> str:
    shown = rules if max_rules is None else rules[:max_rules]
    joiner = " and " if kind == "conjunction" else " or "
    body = joiner.join(str(r) for r in shown)
    if len(shown) < len(rules):
        body += f"{joiner}... ({len(rules) - len(shown)} more)"
    return body


def _risk_line(model, setting: str, conf: str) -> str:
    if type(model).__name__ == "PACBayesSCM":
        return (
            f"training Gibbs risk {model.gibbs_risk_:.3f}; {setting} risk bound "
            f"{model.risk_bound_:.3f}, Bayes classifier bound {model.bayes_risk_bound_:.3f} ({conf})"
        )
    return (
        f"training risk {model.empirical_risk_:.3f}; {setting} risk bound "
        f"{model.risk_bound_:.3f} ({conf})"
    )


def _equivalence_lines(model, rules, names) -> list[str]:
    lines = [
        f"  {r}: {equivalent_names(model, r, feature_names=names)}" for r in rules if r.equivalent
    ]
    if lines:
        lines.insert(0, "equivalent on the training data (the same split of its examples):")
    return lines


def _binary_lines(model, rename, max_rules) -> list[str]:
    k = len(model.rules_)
    kind = model.model_type
    c0, c1 = model.classes_[0], model.classes_[1]
    lines = [
        f"{type(model).__name__} ({kind} of {k} decision stump{'s' if k != 1 else ''}, "
        f"p={model.p:g}, delta={model.delta:g})"
    ]
    if k == 0:
        lines.append(f"predict {c1} always" if kind == "conjunction" else f"predict {c0} always")
    else:
        rules = rename(model.rules_)
        lines.append(f"predict {c1} if {_rule_text(rules, kind, max_rules)}, else {c0}")
    return lines


def _list_lines(model, rename, max_rules) -> list[str]:
    from widefs.scm._multiclass import n_candidate_machines

    machines = model.machines_
    k, n = len(model.rules_), model.classes_.size
    lines = [
        f"{type(model).__name__} (decision list of {len(machines)} {model.model_type}s over {n} "
        f"classes, {k} decision stump{'s' if k != 1 else ''}, p={model.p:g}, delta={model.delta:g})"
    ]
    for i, cm in enumerate(machines):
        rules = rename(cm.machine.rules_)
        test = _rule_text(rules, model.model_type, max_rules) if rules else None
        if test is None:  # an empty machine always fires (conjunction) or never (disjunction)
            test = "always" if model.model_type == "conjunction" else "never"
        lead = "if" if i == 0 else "else if"
        lines.append(
            f"{lead} {test}: predict {cm.label}  [{cm.label} vs "
            f"{', '.join(str(c) for c in cm.remaining if c != cm.label)}: {cm.n_examples} examples, "
            f"bound {cm.machine.risk_bound_:.3f}]"
        )
    last = machines[-1]
    lines.append(f"else predict {next(c for c in last.remaining if c != last.label)}")
    lines.append(
        f"(each machine's bound at delta/{n_candidate_machines(n)}, over all "
        f"{machines[0].n_examples} training examples; the list's bound is their sum)"
    )
    return lines


def describe_model(model, *, max_rules: int | None = None, feature_names=None) -> str:
    """A plain-text summary of a fitted SCM: the rule, its risk bound and training risk.

    Meant for reports (the CLI prints it as is). A decision list (more than two classes)
    shows one line per machine with its share of the bound; rules with equivalent features
    on the training data list them (at most ten names each).

    Parameters
    ----------
    model : SampleCompressionSCM, OccamSCM or PACBayesSCM
        Fitted.
    max_rules : int, optional
        Show at most this many rules (per machine; the others are counted).
    feature_names : sequence of str, optional
        Names by feature index, instead of the model's own (e.g. for a model fitted on a
        packed matrix or an out-of-core array, which carry none).

    Returns
    -------
    str
        The learner, the rule (or the list), the training risk and the bound, then the
        equivalent features if any.

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
    >>> present = np.array([[0, 1, 0], [0, 1, 1], [1, 0, 1], [1, 0, 0]], dtype=bool)
    >>> print(describe_model(SampleCompressionSCM().fit(present, [0, 0, 1, 1])))
    SampleCompressionSCM (conjunction of 1 decision stump, p=1, delta=0.05)
    predict 1 if x0 > 0, else 0
    training risk 0.000; sample-compression risk bound 0.942 (holds with probability 0.95)
    equivalent on the training data (the same split of its examples):
      x0 > 0: x1 (opposite)
    """
    check_is_fitted(model, "rules_")

    def rename(rules):
        if feature_names is None:
            return rules
        return [replace(r, feature_name=str(feature_names[r.feature])) for r in rules]

    layout = _list_lines if model.classes_.size > 2 else _binary_lines
    lines = layout(model, rename, max_rules)
    conf = f"holds with probability {1 - model.delta:g}"
    lines.append(_risk_line(model, _SETTING.get(type(model).__name__, ""), conf))
    return "\n".join(lines + _equivalence_lines(model, rename(model.rules_), feature_names))


class BoundSummary(NamedTuple):
    """A fitted SCM's training risk, its risk bound, and whether the bound is vacuous.

    Parameters
    ----------
    training_risk : float
        The training risk the bound covers (the Gibbs risk for PAC-Bayes).
    bound : float
        The risk bound, ``risk_bound_``.
    vacuous : bool
        Whether the bound is at or above the majority-class error.

    See Also
    --------
    describe_bound : builds it from a fitted model.

    Examples
    --------
    >>> BoundSummary(0.1, 0.6, True).vacuous
    True
    """

    training_risk: float
    bound: float
    vacuous: bool


def describe_bound(model, majority_error: float) -> BoundSummary:
    """The training risk the bound covers, the bound, and whether the bound is vacuous.

    A bound at or above ``majority_error`` (the error of always predicting the majority
    class) certifies nothing a classifier without features would not reach: it is vacuous.
    For :class:`PACBayesSCM` the bound covers the Gibbs classifier, so its training Gibbs
    risk is the one given.

    Parameters
    ----------
    model : SampleCompressionSCM, OccamSCM or PACBayesSCM
        Fitted.
    majority_error : float
        ``1 - max_c n_c / n`` on the data the bound is read against.

    Returns
    -------
    BoundSummary
        ``(training_risk, bound, vacuous)``.

    See Also
    --------
    describe_model : the rule, the training risk and the bound as text.

    Examples
    --------
    >>> import numpy as np
    >>> from widefs.scm import SampleCompressionSCM
    >>> X = np.array([[0.0, 5.0], [1.0, 3.0], [2.0, 4.0], [3.0, 1.0]])
    >>> summary = describe_bound(SampleCompressionSCM().fit(X, [0, 0, 1, 1]), majority_error=0.5)
    >>> summary.training_risk, round(summary.bound, 3), summary.vacuous
    (0.0, 0.934, True)
    """
    training = getattr(model, "gibbs_risk_", None)
    if training is None:
        training = model.empirical_risk_
    bound = float(model.risk_bound_)
    return BoundSummary(float(training), bound, bool(bound >= majority_error))
