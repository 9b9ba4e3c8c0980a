"""Decision stumps: as a fitted model shows them (:class:`StumpRule`) and as a greedy finds them.

Conventions (Shah, Marchand & Corbeil 2010, Section II): a stump fires for ``x > t``
(direction ``+1``) or ``x <= t`` (direction ``-1``). The paper writes ``(x - t) d > 0``,
i.e. ``x < t`` for ``d = -1``; using ``x <= t`` lets every threshold be a training value
(as the sample-compression setting requires) and only differs on the threshold itself.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

__all__ = ["LearnedStump", "StumpRule"]

_OPPOSITE = {">": "<=", "<=": ">"}


@dataclass(frozen=True)
class StumpRule:
    """One decision stump of a fitted model, in output space.

    Parameters
    ----------
    feature : int
        Column index in ``X``.
    feature_name : str
        The column name (``"x<index>"`` when ``X`` had no names).
    direction : {">", "<="}
        The stump fires for ``x > threshold`` or ``x <= threshold``.
    threshold : float
        Deterministic threshold (for PAC-Bayes stumps, the middle of the margin
        interval, where the stump's firing probability crosses 1/2).
    interval : tuple of float or None, default=None
        PAC-Bayes margin interval ``[a, b]``: the threshold is uniform on it in the
        Gibbs classifier, so the firing probability rises linearly across it.
    bits : int or None, default=None
        Occam: length of the dyadic code of the threshold.
    equivalent : tuple of (int, str), default=()
        The other features that split the training examples exactly as this rule does:
        ``(feature, direction)``, the stump ``x_feature direction t`` firing on the same
        training examples for some ``t`` (see :func:`widefs.scm.describe_model`). Only
        the training data are considered: new data may tell them apart.

    Attributes
    ----------
    feature, feature_name, direction, threshold, interval, bits, equivalent
        As given.

    See Also
    --------
    SampleCompressionSCM, OccamSCM, PACBayesSCM : Their ``rules_`` are lists of StumpRule.

    Examples
    --------
    >>> import numpy as np
    >>> rule = StumpRule(1, "gene_1", ">", 0.5)
    >>> str(rule), rule.fires(np.array([[9.0, 0.2], [9.0, 0.7]])).tolist()
    ('gene_1 > 0.5', [False, True])
    >>> str(rule.negated())
    'gene_1 <= 0.5'
    """

    feature: int
    feature_name: str
    direction: str
    threshold: float
    interval: tuple[float, float] | None = None
    bits: int | None = None
    equivalent: tuple[tuple[int, str], ...] = ()

    def fires(self, X: np.ndarray) -> np.ndarray:
        """Boolean output of the deterministic stump on the rows of ``X``.

        Parameters
        ----------
        X : ndarray of shape (n_samples, n_features)

        Returns
        -------
        ndarray of bool, shape (n_samples,)
        """
        x = X[:, self.feature]
        return x > self.threshold if self.direction == ">" else x <= self.threshold

    def firing_probability(self, X: np.ndarray) -> np.ndarray:
        """``sigma^d_{a,b}(x)``: probability that a stump with threshold uniform on ``interval`` fires.

        Parameters
        ----------
        X : ndarray of shape (n_samples, n_features)

        Returns
        -------
        ndarray of float, shape (n_samples,)
            0 or 1 for a stump without interval.
        """
        if self.interval is None:
            return self.fires(X).astype(float)
        direction = 1 if self.direction == ">" else -1
        return firing_probability(X[:, self.feature], direction, *self.interval)

    def negated(self) -> StumpRule:
        """The stump with the opposite direction (same threshold and interval).

        Its equivalent features are this rule's, with their directions reversed too.

        Returns
        -------
        StumpRule
        """
        return StumpRule(
            self.feature,
            self.feature_name,
            _OPPOSITE[self.direction],
            self.threshold,
            self.interval,
            self.bits,
            tuple((g, _OPPOSITE[d]) for g, d in self.equivalent),
        )

    def __str__(self) -> str:
        text = f"{self.feature_name} {self.direction} {self.threshold:.6g}"
        if self.interval is not None:
            text += f" (margin [{self.interval[0]:.6g}, {self.interval[1]:.6g}])"
        return text

    def to_dict(self) -> dict:
        """The rule as JSON-ready plain values (see ``model.to_json()``).

        Returns
        -------
        dict
        """
        d = asdict(self)
        if self.interval is not None:
            d["interval"] = [float(v) for v in self.interval]
        d["equivalent"] = [[int(g), str(direction)] for g, direction in self.equivalent]
        return d


def firing_probability(x: np.ndarray, direction: int, a: float, b: float) -> np.ndarray:
    """``sigma^d_{a,b}(x)`` of Section V (piecewise linear, exactly 0 or 1 outside ``[a, b]``)."""
    rise = np.where(x < a, 0.0, np.where(x > b, 1.0, (x - a) / (b - a)))
    return rise if direction > 0 else 1.0 - rise


@dataclass(frozen=True)
class LearnedStump:
    """A stump in conjunction space as a greedy found it (internal).

    ``covered_negatives`` / ``covered_positives`` are the (weights of the) remaining
    examples of each class the stump covered (classified as the negative class) when it
    was added. ``interval`` is the PAC-Bayes margin interval, ``bits`` the Occam code length.
    """

    feature: int
    direction: int  # +1: fires for x > t; -1: fires for x <= t
    threshold: float
    covered_negatives: float
    covered_positives: float
    interval: tuple[float, float] | None = None
    bits: int | None = None

    def fires(self, x: np.ndarray) -> np.ndarray:
        """Deterministic output on the values ``x`` of its feature."""
        return x > self.threshold if self.direction > 0 else x <= self.threshold

    def to_rule(self, feature_name: str, *, negate: bool) -> StumpRule:
        """The output-space rule (negated for a disjunction)."""
        fires_above = (self.direction > 0) != negate
        return StumpRule(
            feature=int(self.feature),
            feature_name=str(feature_name),
            direction=">" if fires_above else "<=",
            threshold=float(self.threshold),
            interval=None if self.interval is None else tuple(map(float, self.interval)),
            bits=None if self.bits is None else int(self.bits),
        )
