"""One verdict per method, from the two pieces of evidence that decide it.

A method shows a signal when its **nested cross-validated** score (balanced accuracy on
imbalanced classes, else accuracy) has a 95% interval above what a label-blind classifier
scores, and its **search certificate** (the whole search re-run on relabelled data) gives a
p-value at most ``ALPHA``. A single train/test split, a training fit or a risk bound is not
evidence for or against: the report describes them as what they are.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = ["ALPHA", "Verdict", "verdicts"]

ALPHA = 0.05  # level of the search certificate's p-value

# The outcomes, from the evidence available (None: not measured).
SIGNAL = "signal"  # both the interval and the certificate
CERTIFIED_ONLY = "certified only"  # the search beats relabelled data; the interval reaches chance
ACCURATE_ONLY = "accurate only"  # the interval is above chance; the certificate is not small
NOT_SHOWN = "not shown"  # neither


@dataclass(frozen=True)
class Verdict:
    """A method's verdict and the evidence behind it.

    ``score`` names the nested cross-validated score (``"balanced accuracy"`` or
    ``"accuracy"``), ``estimate``/``low``/``high`` its mean and 95% interval (None when the
    comparison did not run), ``chance`` what a label-blind classifier scores on it;
    ``pvalue`` the search certificate's p-value (None: no certificate or none it can give),
    ``pvalue_floor`` the smallest p-value its relabellings allow; ``outcome`` one of
    ``"signal"``, ``"certified only"``, ``"accurate only"``, ``"not shown"``.

    Examples
    --------
    >>> v = Verdict("m", "certified only", "accuracy", 0.5, 0.6, 0.45, 0.75, 0.03, 1 / 30)
    >>> v.above_chance, v.certified, v.floor_too_high
    (False, True, False)
    """

    method: str
    outcome: str
    score: str
    chance: float
    estimate: float | None = None
    low: float | None = None
    high: float | None = None
    pvalue: float | None = None
    pvalue_floor: float | None = None

    @property
    def above_chance(self) -> bool | None:
        """Whether the nested interval lies above chance (None: not evaluated)."""
        return None if self.low is None else bool(self.low > self.chance)

    @property
    def certified(self) -> bool | None:
        """Whether the certificate's p-value is at most ALPHA (None: no p-value)."""
        return None if self.pvalue is None else bool(self.pvalue <= ALPHA)

    @property
    def floor_too_high(self) -> bool:
        """The certificate could not reach ALPHA whatever the data (too few relabellings)."""
        return self.pvalue_floor is not None and self.pvalue_floor > ALPHA


def _outcome(above: bool | None, certified: bool | None) -> str:
    if above and certified:
        return SIGNAL
    if certified:
        return CERTIFIED_ONLY
    if above:
        return ACCURATE_ONLY
    return NOT_SHOWN


def _nested(row, balanced: bool) -> tuple[float | None, float | None, float | None]:
    if row is None or not row["applies"]:
        return None, None, None
    key, low, high = (
        ("balanced_accuracy", "balanced_ci_low", "balanced_ci_high")
        if balanced
        else ("accuracy", "accuracy_ci_low", "accuracy_ci_high")
    )
    values = tuple(float(row[k]) for k in (key, low, high))
    return (None, None, None) if any(math.isnan(v) for v in values) else values


def verdicts(comparison, certificates: dict, majority) -> dict[str, Verdict]:
    """``{method: Verdict}`` for every compared method and every certified search.

    ``comparison`` is the comparison DataFrame (None when it did not run), ``certificates``
    maps a certificate's name to its :class:`CertificateOutcome`, ``majority`` the
    :class:`~widefs.model_selection.MajorityBaseline`.
    """
    balanced = bool(majority.imbalanced)
    score = "balanced accuracy" if balanced else "accuracy"
    chance = float(majority.balanced_accuracy if balanced else majority.accuracy)
    speaks_for = {name: out for out in certificates.values() for name in out.compared_as}
    rows = {} if comparison is None else dict(comparison.iterrows())
    out = {}
    for method in [*rows, *(n for n in speaks_for if n not in rows)]:
        if method in rows and not rows[method]["applies"]:
            continue  # not run on these data (a binary-only method on several classes)
        estimate, low, high = _nested(rows.get(method), balanced)
        cert = speaks_for.get(method)
        pvalue, floor = None, None
        if cert is not None and cert.certificate is not None:
            pvalue, floor = cert.pvalue, float(cert.certificate.pvalue_floor)
        row = rows.get(method)
        if row is not None:
            # The comparison's cell: none when the method kept no feature in any fold.
            pvalue = None if math.isnan(row["search_pvalue"]) else float(row["search_pvalue"])
        verdict = Verdict(method, "", score, chance, estimate, low, high, pvalue, floor)
        outcome = _outcome(verdict.above_chance, verdict.certified)
        out[method] = Verdict(method, outcome, score, chance, estimate, low, high, pvalue, floor)
    return out
