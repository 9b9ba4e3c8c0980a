"""Rule induction that accounts for search: CN2 with process-oriented error estimates.

- :class:`CN2Classifier`: ordered (decision list) or unordered CN2 with classic
  significance stopping or Domingos' (1999) process-oriented stopping (``stopping="poe"``);
- the POE estimates: :func:`poe_estimate` (Eq. 13 with ``m' = max(1, log2 m)``),
  :func:`poe_combine`, :func:`effective_hypotheses`, :func:`poe_exact_beta` (Eq. 11 for a
  Beta prior) and :func:`poe1_estimate` (the earlier POE1 integral);
- :class:`Rule` and :class:`Condition`, the readable fitted rules;
- :func:`rules_summary`: CN2-POE on a 67/33 split with its rule list and held-out error
  (for reports such as ``widefs run``).
"""

from widefs.rules._cn2 import CN2Classifier
from widefs.rules._poe import (
    effective_hypotheses,
    poe1_estimate,
    poe_combine,
    poe_estimate,
    poe_exact_beta,
)
from widefs.rules._rule import Condition, Rule
from widefs.rules._summary import RulesSummary, rules_summary

__all__ = [
    "CN2Classifier",
    "Condition",
    "Rule",
    "RulesSummary",
    "effective_hypotheses",
    "poe1_estimate",
    "poe_combine",
    "poe_estimate",
    "poe_exact_beta",
    "rules_summary",
]
