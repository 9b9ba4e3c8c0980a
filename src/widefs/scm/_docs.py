"""The docstring fragments the three Set Covering Machines share (:class:`Substitution`)."""

from __future__ import annotations

from widefs._utils import Substitution

__all__ = ["scm_docs"]

scm_docs = Substitution(
    model_type="""
        model_type : {"conjunction", "disjunction"}, default="conjunction"
            Learn a conjunction, or a disjunction (the conjunction of the negated stumps for
            the swapped classes).""",
    p_covered="""
        p : float, default=1.0
            Penalty for each positive example a stump covers (misclassifies).""",
    delta="""
        delta : float, default=0.05
            The bound holds with probability ``1 - delta``.""",
    select_prefix="""
        select : {"bound", "none"}, default="bound"
            ``"bound"``: keep the prefix (number of stumps) whose bound is smallest (first
            minimum); ``"none"``: keep every stump the greedy added.""",
    certified="""
        The bound is not what is certified (it is already a certificate of its own).""",
    fitted_common="""
        n_rules_learned_ : int
            Stumps the greedy added before ``select``.
        classes_ : ndarray of shape (n_classes,)
        machines_ : list of ClassMachine
            More than two classes: the decision list (``rules_``: all its rules in order,
            ``risk_bound_``: the sum of its machines' bounds; see ``docs/methods/scm.md``).
        n_features_in_ : int
        feature_names_in_ : ndarray of str
            Only when ``X`` had string column names.""",
)
