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

from widefs._utils import iter_column_blocks, refuse_sparse, spawn_seeds
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

    Xe: np.ndarray  # the non-constant features (X itself when none is constant)
    y_codes: np.ndarray
    n_classes: int
    seeds: list
    train: np.ndarray  # (R, n) training halves
    val: np.ndarray  # (R, n) validation halves
    errors: np.ndarray  # (R, F) validation errors, in the smallest integer type that holds N
    log_prior: np.ndarray
    var_smoothing: float
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
        X = np.asarray(X)
        if X.dtype.kind != "f":
            X = X.astype(float)
        classes, y_codes = np.unique(np.asarray(y), return_inverse=True)
        n, C = X.shape[0], classes.size
        varies = np.ptp(X, axis=0) > 0
        Xe = X if varies.all() else X[:, varies]  # a float32 X stays float32: chunks widen
        available = ~np.eye(n, dtype=bool)  # round r holds out example r
        seeds = spawn_seeds(random_state, 2 * n)
        train, val = zip(
            *(halves_masks(y_codes, C, seeds[r], available=available[r]) for r in range(n)),
            strict=True,
        )
        train, val = np.array(train), np.array(val)
        n_buckets = int(val.sum(axis=1).max()) + 1
        errors, log_prior, sums, counts = _chunked_buckets(
            Xe, y_codes, C, train, val, available, n_buckets, var_smoothing
        )
        # Scores of every round, class and errors-allowed value e = 0..N, and selection sizes.
        jll = log_prior[:, :, None] + np.cumsum(sums, axis=-1)
        return cls(
            Xe,
            y_codes,
            C,
            seeds,
            train,
            val,
            errors,
            log_prior,
            var_smoothing,
            correct_by_e=np.argmax(jll, axis=1) == y_codes[:, None],
            counts=np.cumsum(counts, axis=-1).astype(float),
            prior_correct=np.argmax(log_prior, axis=1) == y_codes,
        )

    def chunks(self):
        """Column slices of ``Xe`` whose temporaries stay near :data:`_CHUNK_BYTES`."""
        return _chunks(self.Xe.shape, self.n_classes)

    def selected_terms(self, masks) -> list:
        """``terms[r][:, masks[r]]`` of every round: the per-feature log-likelihood terms of
        the selected features only, computed on the union of the selections."""
        union = np.flatnonzero(masks.any(axis=0))
        _, terms = gaussian_nb_log_likelihoods(
            _column_chunk(self.Xe, union), self.y_codes, self.n_classes,
            ~np.eye(self.n, dtype=bool), np.arange(self.n), var_smoothing=self.var_smoothing,
        )  # fmt: skip
        return [terms[r][:, masks[r, union]] for r in range(self.n)]

    def permutation_nulls(self, n_permutations, var_smoothing) -> dict:
        """Each round's own label-permutation null (within its halves).

        The observed errors are the round's row of :attr:`errors` (the features of ``Xe``
        vary, so none is constant): only the relabellings are scored.
        """
        nulls, pvalues = [], []
        for r in range(self.n):
            cells = split_cells(self.train[r], self.val[r])
            perms = label_permutations(cells, n_permutations, self.seeds[self.n + r])
            blocks = [
                _score_block(
                    _column_chunk(self.Xe, chunk),
                    chunk,
                    False,
                    self.y_codes,
                    self.n_classes,
                    self.train[r : r + 1],
                    self.val[r : r + 1],
                    "gaussian_nb",
                    var_smoothing,
                    self.y_codes[perms],
                    observed=(
                        self.errors[r, chunk].astype(np.int64),
                        np.zeros(chunk.stop - chunk.start, dtype=bool),
                    ),
                )
                for chunk in self.chunks()
            ]
            nulls.append(_merge_null(blocks, n_permutations, self.Xe.shape[1], self.n_val))
            pvalues.append(_PermutationPvalues.of(nulls[-1].pvalues, n_permutations))
        return {
            "expected_errors": np.array([z.expected_errors for z in nulls]),
            "expected_min_errors": np.array([z.expected_min_errors for z in nulls]),
            "pvalues": pvalues,
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
        per_round = [
            _round_threshold(rule, r, self.errors, chance, n_val, p_round, m, alpha)
            for r in range(n)
        ]
        cuts = np.array([cut for cut, _ in per_round])
        # Fewer errors than the cut means at most ceil(cut) - 1 errors allowed.
        allowed = np.clip(np.ceil(cuts) - 1, -1, n_val).astype(int)
        rows, at = np.arange(n), np.maximum(allowed, 0)
        chosen = np.where(allowed >= 0, self.correct_by_e[rows, at], self.prior_correct)
        n_sel = np.where(allowed >= 0, self.counts[rows, at], 0).astype(np.int64)
        if null == "permutation" and rule in ("fdr", "bonferroni"):
            # Permutation p-values are per feature: the rejected set is not a prefix in
            # errors, so the curve's buckets do not describe it; score it directly.
            masks = np.array([mask for _, mask in per_round]).reshape(n, -1)
            chosen, n_sel = _score_selection(masks, self.selected_terms(masks), self)
        return ThresholdOutcome(
            name=str(rule),
            accuracy=float(chosen.mean()),
            correct=chosen,
            n_selected=n_sel,
            cut=cuts,
        )


def _round_threshold(rule, r, errors, chance, n_val, p_round, m, alpha):
    """``threshold_in_errors`` of round ``r`` under its own null: ``(cut, mask)``."""
    pvalues = chance["pvalues"][r]
    return threshold_in_errors(
        rule,
        errors[r].astype(np.int64),
        n_val,
        p_round[r],
        n_scored=m,
        alpha=alpha,
        pvalues=None if pvalues is None else pvalues.values(),
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


def _score_selection(masks, terms, rounds) -> tuple[np.ndarray, np.ndarray]:
    """Held-out correctness and sizes of per-round selections given as masks (``terms``:
    each round's terms of its selected features, :meth:`_Rounds.selected_terms`)."""
    correct = np.empty(rounds.n, dtype=bool)
    for r in range(rounds.n):
        jll = rounds.log_prior[r] + terms[r].sum(axis=1)
        correct[r] = np.argmax(jll) == rounds.y_codes[r]
    return correct, masks.sum(axis=1).astype(np.int64)


@dataclass(frozen=True)
class _PermutationPvalues:
    """A round's permutation p-values ``(1 + k) / (1 + B)``, kept as the counts ``k`` (two
    bytes per feature instead of eight) and rebuilt exactly, by the same arithmetic."""

    counts: np.ndarray
    n_permutations: int

    @classmethod
    def of(cls, pvalues: np.ndarray, n_permutations: int) -> _PermutationPvalues:
        counts = np.rint(pvalues * (1.0 + n_permutations) - 1.0)
        return cls(counts.astype(np.min_scalar_type(n_permutations)), n_permutations)

    def values(self) -> np.ndarray:
        return (1.0 + self.counts.astype(np.int64)) / (1.0 + self.n_permutations)


# Bytes of one chunk's temporaries in the rounds' passes over the features: the chunk's
# centred values, its error counts and log-likelihood terms (so that 10^6 features do not
# hold (rounds x classes x features) float arrays at once).
_CHUNK_BYTES = 64 * 2**20


def _chunks(shape, n_classes: int):
    n, F = shape
    per_feature = 8 * (2 * n + n * (1 + 3 * n_classes))
    return iter_column_blocks(F, max(1, _CHUNK_BYTES // per_feature))


def _column_chunk(X, columns) -> np.ndarray:
    """Columns of ``X`` as float64 (a float32 matrix is widened one chunk at a time)."""
    return np.asarray(X[:, columns], dtype=float)


def _chunked_buckets(Xe, y_codes, C, train, val, available, n_buckets, var_smoothing):
    """Errors ``(R, F)``, log priors, and per round, class and errors-allowed bucket the sums
    of the terms and the feature counts, one chunk of features at a time.

    The bucket sums are carried from chunk to chunk as the first weights of the next
    ``bincount``, so every bucket adds its features' terms in feature order, exactly as one
    ``bincount`` over all features would (the same floating-point sums).
    """
    R, F = train.shape[0], Xe.shape[1]
    n_val = int(val.sum(axis=1).max())
    errors = np.empty((R, F), dtype=np.int16 if n_val < 2**15 else np.int64)
    sums = np.zeros((R, C, n_buckets))
    counts = np.zeros((R, n_buckets), dtype=np.int64)
    log_prior = np.zeros((R, C))
    carried = np.arange(R * n_buckets)
    for chunk in _chunks(Xe.shape, C):
        Xb = _column_chunk(Xe, chunk)
        err = gaussian_nb_split_errors(Xb, y_codes, C, train, val, var_smoothing=var_smoothing)
        errors[:, chunk] = err
        log_prior, terms = gaussian_nb_log_likelihoods(
            Xb, y_codes, C, available, np.arange(R), var_smoothing=var_smoothing
        )
        flat_index = np.concatenate([carried, (carried[::n_buckets, None] + err).ravel()])
        for c in range(C):
            weights = np.concatenate([sums[:, c].ravel(), terms[:, c].ravel()])
            sums[:, c] = np.bincount(flat_index, weights, R * n_buckets).reshape(R, n_buckets)
        counts += np.bincount(flat_index[carried.size :], minlength=R * n_buckets).reshape(
            R, n_buckets
        )
    return errors, log_prior, sums, counts
