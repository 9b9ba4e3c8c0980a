"""The leave-one-out protocol of Palatucci & Carlson (2008), Section 5.2, vectorized over rounds.

In each round one example is held out; the remaining ones are split into stratified
equal halves; every feature's one-feature Gaussian naive Bayes is trained on one half
and its errors counted on the other; features are selected by a threshold on those
errors; a Gaussian naive Bayes on the selected features is retrained on both halves and
tests the held-out example. All rounds run at once: validation errors for all rounds and
features come from :func:`gaussian_nb_split_errors`, and the final classifier of every
round and *every* error threshold is a cumulative sum of per-feature log-likelihood
terms bucketed by error count (:func:`gaussian_nb_log_likelihoods`), so Figure 3's whole
accuracy-versus-errors-allowed curve costs one pass.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike, NDArray

from widefs._utils import refuse_sparse, spawn_seeds
from widefs.stats import chance_error_rate, expected_min_errors
from widefs.univariate._error_counts import merge_null as _merge_null
from widefs.univariate._error_counts import score_block as _score_block
from widefs.univariate._null import label_permutations, split_cells
from widefs.univariate._scores import (
    gaussian_nb_log_likelihoods,
    gaussian_nb_split_errors,
    halves_masks,
)
from widefs.univariate._thresholds import threshold_in_errors

__all__ = ["LeaveOneOutCurve", "ThresholdOutcome", "leave_one_out_threshold_curve"]

DEFAULT_THRESHOLDS = ("all", "max_chance", "fdr", "mgm")


@dataclass(frozen=True)
class ThresholdOutcome:
    """Leave-one-out result of one threshold rule.

    A frozen dataclass; its fields are the constructor's parameters.

    Parameters
    ----------
    name : str
        The rule (``"mgm"``, ``"fdr"``, ..., or ``"oracle"``).
    accuracy : float
        Fraction of held-out examples predicted correctly.
    correct : ndarray of bool, shape (n_rounds,)
        Whether each round's held-out example was predicted correctly.
    n_selected : ndarray of int, shape (n_rounds,)
        Features selected in each round.
    cut : ndarray of float, shape (n_rounds,)
        Each round's threshold in errors.

    Attributes
    ----------
    empty_rounds : int
        Rounds in which no feature passed (read-only, from ``n_selected``).

    See Also
    --------
    leave_one_out_threshold_curve : produces these.

    Examples
    --------
    >>> out = ThresholdOutcome("mgm", 0.5, np.array([True, False]), np.array([3, 0]), np.ones(2))
    >>> out.empty_rounds
    1
    """

    name: str
    accuracy: float
    correct: NDArray[np.bool_]  # (n_rounds,)
    n_selected: NDArray[np.int64]  # (n_rounds,)
    cut: NDArray[np.float64]  # (n_rounds,) threshold in errors

    @property
    def empty_rounds(self) -> int:
        """Rounds in which no feature passed (the prediction then uses class priors only)."""
        return int((self.n_selected == 0).sum())


@dataclass(frozen=True)
class LeaveOneOutCurve:
    """Outcome of :func:`leave_one_out_threshold_curve`.

    A frozen dataclass; its fields are the constructor's parameters.

    Parameters
    ----------
    errors_allowed : ndarray (N + 1,)
        0..N; a threshold of e errors allowed selects features with at most e errors.
    accuracy : ndarray (N + 1,)
        Leave-one-out accuracy at each number of errors allowed (Figure 3).
    mean_selected : ndarray (N + 1,)
        Mean number of features selected at each number of errors allowed.
    outcomes : dict[str, ThresholdOutcome]
        Named thresholds plus ``"oracle"`` (the single errors-allowed value with the best
        accuracy, chosen with the test labels: an upper reference, not a method).
    n_validation, n_features_scored : int
        N and M of the chance analysis.
    p_error : float
        Analytic chance error rate (mean over rounds when it varies).
    expected_errors, expected_min_errors, mgm : float
        E[X], E[X_(1)] and the MGM threshold of the null in use (means over rounds).
    null : str
        ``"analytic"`` or ``"permutation"``.
    analytic_expected_min_errors : float
        E[X_(1)] of Theorem 4.1 for ``p_error`` (whichever null is in use).

    See Also
    --------
    leave_one_out_threshold_curve : produces it.
    ThresholdOutcome : one rule's result.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> y = np.repeat([0, 1], 10)
    >>> X = rng.normal(size=(20, 50)); X[:, 0] += 3 * y
    >>> curve = leave_one_out_threshold_curve(X, y, random_state=0)
    >>> curve.errors_allowed.size == curve.n_validation + 1, curve.null
    (True, 'analytic')
    """

    errors_allowed: NDArray[np.int64]
    accuracy: NDArray[np.float64]
    mean_selected: NDArray[np.float64]
    outcomes: dict[str, ThresholdOutcome] = field(default_factory=dict)
    n_validation: int = 0
    n_features_scored: int = 0
    p_error: float = 0.5
    expected_errors: float = 0.0
    expected_min_errors: float = 0.0
    mgm: float = 0.0
    null: str = "analytic"
    analytic_expected_min_errors: float = 0.0


def _bucket_cumsum(values: NDArray, errors: NDArray, n_buckets: int) -> NDArray:
    """``out[r, ..., e] = sum of values[r, ..., j] over features j with errors[r, j] <= e``."""
    R = errors.shape[0]
    flat_index = (np.arange(R)[:, None] * n_buckets + errors).ravel()
    lead = values.shape[1:-1]
    out = np.empty((R, *lead, n_buckets))
    for idx in np.ndindex(*lead):
        weights = values[(slice(None), *idx, slice(None))].ravel()
        sums = np.bincount(flat_index, weights=weights, minlength=R * n_buckets)
        out[(slice(None), *idx, slice(None))] = sums.reshape(R, n_buckets)
    return np.cumsum(out, axis=-1)


def leave_one_out_threshold_curve(
    X: ArrayLike,
    y: ArrayLike,
    *,
    thresholds=DEFAULT_THRESHOLDS,
    alpha: float = 0.05,
    p_error="auto",
    null: str = "analytic",
    n_permutations: int = 1000,
    var_smoothing: float = 1e-9,
    random_state=None,
) -> LeaveOneOutCurve:
    """Run the paper's leave-one-out protocol for several thresholds and every error cut.

    Parameters
    ----------
    X : array_like of shape (n_samples, n_features)
        Training data.
    y : array_like of shape (n_samples,)
        Class labels.
    thresholds : sequence, default=("all", "max_chance", "fdr", "mgm")
        Rules understood by :func:`threshold_in_errors`.
    alpha : float, default=0.05
        Level of the ``"fdr"`` / ``"bonferroni"`` rules.
    p_error : "auto", "uniform" or float, default="auto"
        Chance error rate of the analytic null, as in :class:`DiscriminativeSelector`:
        ``"auto"`` is the majority-class error of each round's validation half,
        ``"uniform"`` the paper's ``1 - 1/n_classes``.
    null : {"analytic", "permutation"}, default="analytic"
        ``"permutation"``: every round gets its own label-permutation null (labels
        permuted within the round's training half and within its validation half; the
        held-out example never moves), and its thresholds come from it.
    n_permutations : int, default=1000
        Permutations per round for ``null="permutation"``.
    var_smoothing : float, default=1e-9
        Variance smoothing of naive Bayes.
    random_state : int, RandomState instance or None
        Seeds the halves split of every round (one seed per round, drawn up front),
        then the permutations of every round.

    Returns
    -------
    LeaveOneOutCurve
        Accuracies by threshold and by number of errors allowed.

    See Also
    --------
    DiscriminativeSelector : one selection on all the data.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> y = np.repeat([0, 1], 15)
    >>> X = rng.normal(size=(30, 500)); X[:, :5] += 2 * y[:, None]
    >>> curve = leave_one_out_threshold_curve(X, y, random_state=0)
    >>> curve.outcomes["mgm"].accuracy > 0.8
    True
    """
    refuse_sparse("leave_one_out_threshold_curve", X)
    if null not in ("analytic", "permutation"):
        raise ValueError(f"null must be 'analytic' or 'permutation', got {null!r}.")
    rounds = _Rounds.build(X, y, random_state, var_smoothing)
    n, n_val, m = rounds.n, rounds.n_val, rounds.m
    p_round = _round_p_error(p_error, rounds.y_codes, rounds.n_classes, rounds.val)
    analytic_min = np.asarray(expected_min_errors(m, n_val, p_round), dtype=float)
    chance = (  # per round: E[X], E[X_(1)] and p-values of the null in use
        rounds.permutation_nulls(n_permutations, var_smoothing)
        if null == "permutation"
        else {
            "expected_errors": n_val * p_round,
            "expected_min_errors": analytic_min,
            "pvalues": [None] * n,
        }
    )
    outcomes = {
        str(rule): rounds.outcome(rule, chance, p_round, alpha, null) for rule in thresholds
    }
    outcomes["oracle"] = rounds.oracle(rounds.correct_by_e.mean(axis=0))
    return _curve(rounds, outcomes, chance, p_round, analytic_min, null)


def _curve(rounds, outcomes, chance, p_round, analytic_min, null) -> LeaveOneOutCurve:
    e_one, e_min = np.mean(chance["expected_errors"]), np.mean(chance["expected_min_errors"])
    return LeaveOneOutCurve(
        errors_allowed=np.arange(rounds.n_val + 1),
        accuracy=rounds.correct_by_e.mean(axis=0),
        mean_selected=rounds.counts.mean(axis=0),
        outcomes=outcomes,
        n_validation=rounds.n_val,
        n_features_scored=rounds.m,
        p_error=float(p_round.mean()),
        expected_errors=float(e_one),
        expected_min_errors=float(e_min),
        mgm=float(e_one + e_min) / 2,
        null=null,
        analytic_expected_min_errors=float(analytic_min.mean()),
    )


@dataclass
class _Rounds:
    """What every round of the protocol shares: splits, error counts and the curve's buckets."""

    Xe: np.ndarray  # the non-constant features
    y_codes: np.ndarray
    n_classes: int
    seeds: list
    train: np.ndarray  # (R, n) training halves
    val: np.ndarray  # (R, n) validation halves
    errors: np.ndarray  # (R, F) validation errors
    log_prior: np.ndarray
    terms: np.ndarray
    correct_by_e: np.ndarray  # (R, N + 1): held-out example right with e errors allowed
    counts: np.ndarray  # (R, N + 1): features kept with e errors allowed
    prior_correct: np.ndarray  # (R,): right when nothing is kept

    @property
    def n(self) -> int:
        return self.y_codes.size

    @property
    def n_val(self) -> int:
        return int(self.val.sum(axis=1).max())

    @property
    def m(self) -> int:
        return max(self.Xe.shape[1], 1)

    @classmethod
    def build(cls, X, y, random_state, var_smoothing) -> _Rounds:
        X = np.asarray(X, dtype=float)
        classes, y_codes = np.unique(np.asarray(y), return_inverse=True)
        n, C = X.shape[0], classes.size
        Xe = X[:, np.ptp(X, axis=0) > 0]
        available = ~np.eye(n, dtype=bool)  # round r holds out example r
        seeds = spawn_seeds(random_state, 2 * n)
        train, val = zip(
            *(halves_masks(y_codes, C, seeds[r], available=available[r]) for r in range(n)),
            strict=True,
        )
        train, val = np.array(train), np.array(val)
        errors = gaussian_nb_split_errors(Xe, y_codes, C, train, val, var_smoothing=var_smoothing)
        n_buckets = int(val.sum(axis=1).max()) + 1
        log_prior, terms = gaussian_nb_log_likelihoods(
            Xe, y_codes, C, available, np.arange(n), var_smoothing=var_smoothing
        )
        # Scores of every round, class and errors-allowed value e = 0..N, and selection sizes.
        jll = log_prior[:, :, None] + _bucket_cumsum(terms, errors, n_buckets)
        return cls(
            Xe,
            y_codes,
            C,
            seeds,
            train,
            val,
            errors,
            log_prior,
            terms,
            correct_by_e=np.argmax(jll, axis=1) == y_codes[:, None],
            counts=_bucket_cumsum(np.ones((n, errors.shape[1])), errors, n_buckets),
            prior_correct=np.argmax(log_prior, axis=1) == y_codes,
        )

    def permutation_nulls(self, n_permutations, var_smoothing) -> dict:
        """Each round's own label-permutation null (within its halves)."""
        nulls = []
        for r in range(self.n):
            cells = split_cells(self.train[r], self.val[r])
            perms = label_permutations(cells, n_permutations, self.seeds[self.n + r])
            block = _score_block(
                self.Xe,
                slice(0, self.Xe.shape[1]),
                False,
                self.y_codes,
                self.n_classes,
                self.train[r : r + 1],
                self.val[r : r + 1],
                "gaussian_nb",
                var_smoothing,
                self.y_codes[perms],
            )
            nulls.append(_merge_null([block], n_permutations, self.Xe.shape[1], self.n_val))
        return {
            "expected_errors": np.array([z.expected_errors for z in nulls]),
            "expected_min_errors": np.array([z.expected_min_errors for z in nulls]),
            "pvalues": [z.pvalues for z in nulls],
        }

    def oracle(self, accuracy) -> ThresholdOutcome:
        """The errors-allowed value of best accuracy, chosen with the test labels."""
        best = int(np.argmax(accuracy))  # the smallest errors-allowed value reaching the best
        return ThresholdOutcome(
            name="oracle",
            accuracy=float(accuracy[best]),
            correct=self.correct_by_e[:, best],
            n_selected=self.counts[:, best].astype(np.int64),
            cut=np.full(self.n, best + 1.0),
        )

    def outcome(self, rule, chance, p_round, alpha, null) -> ThresholdOutcome:
        """Leave-one-out result of one threshold rule, each round under its own null."""
        n, n_val, m = self.n, self.n_val, self.m
        cuts = np.array(
            [
                _round_threshold(rule, r, self.errors, chance, n_val, p_round, m, alpha)[0]
                for r in range(n)
            ]
        )
        # Fewer errors than the cut means at most ceil(cut) - 1 errors allowed.
        allowed = np.clip(np.ceil(cuts) - 1, -1, n_val).astype(int)
        rows, at = np.arange(n), np.maximum(allowed, 0)
        chosen = np.where(allowed >= 0, self.correct_by_e[rows, at], self.prior_correct)
        n_sel = np.where(allowed >= 0, self.counts[rows, at], 0).astype(np.int64)
        if null == "permutation" and rule in ("fdr", "bonferroni"):
            # Permutation p-values are per feature: the rejected set is not a prefix in
            # errors, so the curve's buckets do not describe it; score it directly.
            chosen, n_sel = _score_selection(
                rule,
                self.errors,
                chance,
                n_val,
                p_round,
                m,
                alpha,
                self.log_prior,
                self.terms,
                self.y_codes,
            )
        return ThresholdOutcome(
            name=str(rule),
            accuracy=float(chosen.mean()),
            correct=chosen,
            n_selected=n_sel,
            cut=cuts,
        )


def _round_threshold(rule, r, errors, chance, n_val, p_round, m, alpha):
    """``threshold_in_errors`` of round ``r`` under its own null: ``(cut, mask)``."""
    return threshold_in_errors(
        rule,
        errors[r],
        n_val,
        p_round[r],
        n_scored=m,
        alpha=alpha,
        pvalues=chance["pvalues"][r],
        expected_errors=chance["expected_errors"][r],
        expected_min_errors=chance["expected_min_errors"][r],
    )


def _round_p_error(p_error, y_codes, n_classes, val) -> np.ndarray:
    """Analytic chance error rate of every round (its validation half's class counts)."""
    if p_error == "uniform":
        return np.full(val.shape[0], 1.0 - 1.0 / n_classes)
    if p_error == "auto":
        counts = val.astype(np.int64) @ np.eye(n_classes, dtype=np.int64)[y_codes]
        return np.asarray(chance_error_rate(counts), dtype=float).reshape(-1)
    if isinstance(p_error, str) or not 0 < float(p_error) < 1:
        raise ValueError(
            f"p_error must be 'auto', 'uniform' or a float in (0, 1), got {p_error!r}."
        )
    return np.full(val.shape[0], float(p_error))


def _score_selection(rule, errors, chance, n_val, p_round, m, alpha, log_prior, terms, y_codes):
    """Held-out correctness and sizes of per-round selections given as masks."""
    n = errors.shape[0]
    correct = np.empty(n, dtype=bool)
    sizes = np.empty(n, dtype=np.int64)
    for r in range(n):
        _, mask = _round_threshold(rule, r, errors, chance, n_val, p_round, m, alpha)
        jll = log_prior[r] + terms[r][:, mask].sum(axis=1)
        correct[r] = np.argmax(jll) == y_codes[r]
        sizes[r] = mask.sum()
    return correct, sizes
