"""Readable rules: conditions on one attribute, conjunctions of them, and their printing."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["Condition", "Rule", "format_value"]

# Operator codes shared with the vectorized candidate generator.
EQ, LE, GT = 0, 1, 2
OP_SYMBOLS = {EQ: "==", LE: "<=", GT: ">"}


def format_value(value: float) -> str:
    """Shortest readable text for a threshold that still reads back as the same float.

    >>> format_value(2.5), format_value(0.1 + 0.2), format_value(3.0)
    ('2.5', '0.30000000000000004', '3')
    """
    text = f"{value:.6g}"
    return text if float(text) == value else repr(float(value))


@dataclass(frozen=True)
class Condition:
    """One test ``feature op value``; a missing value never satisfies a condition.

    Parameters
    ----------
    feature : int
        Column index.
    op : {"==", "<=", ">"}
        ``"=="`` for a nominal attribute, ``"<="`` or ``">"`` for a numeric one.
    value : float
        The category code (``"=="``) or an observed value (the threshold).
    feature_name : str
        The column's name, for display.
    label : str
        The value as displayed: the category's text, or the threshold.

    See Also
    --------
    Rule : A conjunction of conditions.

    Examples
    --------
    >>> cond = Condition(1, "<=", 2.5, "temp", "2.5")
    >>> str(cond), cond.mask(np.array([[0.0, 1.0], [0.0, 3.0], [0.0, np.nan]])).tolist()
    ('temp <= 2.5', [True, False, False])
    """

    feature: int
    op: str
    value: float
    feature_name: str
    label: str

    def __str__(self) -> str:
        return f"{self.feature_name} {self.op} {self.label}"

    def mask(self, X: np.ndarray) -> np.ndarray:
        """Which rows satisfy the test.

        Parameters
        ----------
        X : ndarray of float64, shape (n_samples, n_features)
            Encoded like the estimator's training data (:func:`widefs._utils.encode_fit`:
            numeric values with NaN for missing, nominal category codes, negative for
            missing or unseen).

        Returns
        -------
        mask : ndarray of bool, shape (n_samples,)
        """
        col = X[:, self.feature]
        if self.op == "==":
            return col == self.value  # codes: a missing (-1) or unseen (-2) value matches none
        # NaN compares False both ways: missing never satisfies a numeric test.
        return col <= self.value if self.op == "<=" else col > self.value


@dataclass(frozen=True)
class Rule:
    """``IF conditions THEN prediction`` with the training class counts it covered.

    Parameters
    ----------
    conditions : tuple of Condition
        Empty for the default rule.
    prediction : object
        The predicted class label.
    class_counts : ndarray of int, shape (n_classes,)
        Training examples of each class covered (in ordered mode: among the examples
        left uncovered by the earlier rules).
    poe_error : float or None, default=None
        The process-oriented error estimate that accepted the rule (``stopping="poe"``).
    n_hypotheses : int or None, default=None
        Rule versions generated while searching for this rule (``m_k`` of Eq. 13).

    See Also
    --------
    CN2Classifier : Learns lists of rules.
    Condition : One test of a rule.

    Examples
    --------
    >>> rule = Rule((Condition(0, "==", 1.0, "colour", "red"),), "yes", np.array([0, 4]))
    >>> print(rule)
    IF colour == red THEN yes  [0, 4]
    >>> rule.n_covered, rule.length
    (4, 1)
    """

    conditions: tuple[Condition, ...]
    prediction: object
    class_counts: np.ndarray
    poe_error: float | None = None
    n_hypotheses: int | None = None

    @property
    def n_covered(self) -> int:
        """Training examples covered."""
        return int(np.sum(self.class_counts))

    @property
    def length(self) -> int:
        """Number of conditions."""
        return len(self.conditions)

    def __str__(self) -> str:
        body = " AND ".join(str(c) for c in self.conditions) if self.conditions else "TRUE"
        counts = ", ".join(str(int(c)) for c in self.class_counts)
        text = f"IF {body} THEN {self.prediction}  [{counts}]"
        if self.poe_error is not None:
            text += f"  (POE error {self.poe_error:.3f}, m = {self.n_hypotheses})"
        return text

    def mask(self, X: np.ndarray) -> np.ndarray:
        """Which rows satisfy every condition.

        Parameters
        ----------
        X : ndarray of float64, shape (n_samples, n_features)
            Encoded like the estimator's training data (see :meth:`Condition.mask`).

        Returns
        -------
        mask : ndarray of bool, shape (n_samples,)
        """
        out = np.ones(X.shape[0], dtype=bool)
        for cond in self.conditions:
            out &= cond.mask(X)
        return out
