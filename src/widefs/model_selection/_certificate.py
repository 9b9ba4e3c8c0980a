"""Search certificates: how good would this search look on labels that mean nothing?

A wrapper search (or a rule learner, or a set covering machine) reports the score it
optimized on its own training data. That score is optimistic by an amount nobody states:
the more the search looked, the better its best find looks even when the labels carry no
information. :func:`search_certificate` measures that optimism directly: it re-runs the
*whole* search, with the same parameters, on label permutations and compares the observed
score with the scores reached on permuted labels (Varma & Simon 2006; Ambroise &
McLachlan 2002 for why the search must be inside the null).

Every widefs estimator exposes the score it certifies as ``search_score_`` (always
oriented so that higher is better), so nothing here depends on the estimator's class. An
estimator may also offer ``permutation_search_scores(X, y, permutations, n_jobs=None)``,
a faster path that shares the work not depending on the labels; it must equal the plain
refit loop, which is used otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["SearchCertificate", "search_certificate"]

#: Quantiles of the null reported by :attr:`SearchCertificate.quantiles`.
NULL_QUANTILES = (0.05, 0.25, 0.5, 0.75, 0.95)


@dataclass(frozen=True)
class SearchCertificate:
    """The observed search score beside its label-permutation null.

    Parameters
    ----------
    observed : float
        ``search_score_`` of the estimator fitted on the real labels.
    null_scores : ndarray of float, shape (n_permutations,)
        ``search_score_`` after re-running the whole search on ``y[permutations[i]]``.
    permutations : ndarray of int, shape (n_permutations, n_samples)
        The index arrays: ``y[permutations[i]]`` is the i-th relabelling.
    estimator : estimator
        The estimator fitted on the real labels.

    Attributes
    ----------
    pvalue : float
        ``(1 + #{i : null_scores[i] >= observed}) / (1 + n_permutations)``: the chance
        that the search, run on labels unrelated to the features, scores at least as well
        (ties count against the observed score, so the p-value is valid, at worst
        conservative, under exchangeable labels).
    null_mean : float
        Mean of ``null_scores``.
    excess : float
        ``observed - null_mean``: the part of the score the search's optimism does not
        explain.
    quantiles : dict {float: float}
        The null's 5, 25, 50, 75 and 95 % quantiles.
    n_permutations : int
        Number of permutations.

    Methods
    -------
    randomized_pvalue(random_state=None)
        The p-value with ties broken at random: exactly uniform under the null (for
        calibration studies; ``pvalue`` is the one to report).

    See Also
    --------
    search_certificate : Computes it.

    Examples
    --------
    >>> cert = SearchCertificate(0.9, np.array([0.7, 0.9, 0.8]), np.zeros((3, 4), int), None)
    >>> cert.pvalue, round(cert.excess, 3)
    (0.5, 0.1)
    """

    observed: float
    null_scores: np.ndarray
    permutations: np.ndarray
    estimator: object = field(repr=False)

    @property
    def n_permutations(self) -> int:
        return int(self.null_scores.shape[0])

    @property
    def pvalue(self) -> float:
        from widefs.stats import permutation_pvalues

        # Higher is better: the lower tail of the negated scores, with the +1 correction.
        null = -np.asarray(self.null_scores, dtype=float)[:, None]
        return float(permutation_pvalues([-float(self.observed)], null)[0])

    def randomized_pvalue(self, random_state=None) -> float:
        """The p-value with ties broken at random and jittered within its step.

        Search scores are often counts (k of n examples right), so null scores equal to the
        observed one are common; :attr:`pvalue` counts them all against the search, which
        keeps it valid but makes it conservative, not uniform, under the null. Here the rank
        of the observed score among the ``n_permutations + 1`` scores is drawn uniformly
        among the tied positions and the p-value spread uniformly over its step: exactly
        uniform on (0, 1) when the labels are exchangeable, and never above :attr:`pvalue`.
        A calibration tool (it is random); report :attr:`pvalue`.

        Parameters
        ----------
        random_state : int, RandomState instance, Generator or None, default=None
            Source of the tie-breaking draws.

        Returns
        -------
        float
            A p-value in ``(0, pvalue]``.

        Examples
        --------
        >>> cert = SearchCertificate(0.9, np.array([0.7, 0.9, 0.8]), np.zeros((3, 4), int), None)
        >>> 0 < cert.randomized_pvalue(0) <= cert.pvalue
        True
        """
        rng = np.random.default_rng(
            random_state
            if not isinstance(random_state, np.random.RandomState)
            else random_state.randint(2**32)
        )
        null = np.asarray(self.null_scores, dtype=float)
        greater = np.count_nonzero(null > self.observed)
        ties = np.count_nonzero(null == self.observed)
        rank = greater + 1 + rng.integers(0, ties + 1)  # uniform on the tied ranks
        return float((rank - rng.random()) / (self.n_permutations + 1))

    @property
    def null_mean(self) -> float:
        return float(np.mean(self.null_scores))

    @property
    def excess(self) -> float:
        return float(self.observed - self.null_mean)

    @property
    def quantiles(self) -> dict:
        values = np.quantile(self.null_scores, NULL_QUANTILES)
        return {q: float(v) for q, v in zip(NULL_QUANTILES, values, strict=True)}


def _draw_permutations(n_samples: int, n_permutations: int, random_state=None) -> np.ndarray:
    """``(n_permutations, n_samples)`` random permutations of ``range(n_samples)``, one draw.

    The same ``random_state`` gives the same permutations for any later split of the work.

    Parameters
    ----------
    n_samples : int
        Length of each permutation.
    n_permutations : int
        Number of permutations, at least 1.
    random_state : int, RandomState instance or None, default=None
        Seed of the draw.

    Returns
    -------
    permutations : ndarray of int, shape (n_permutations, n_samples)
    """
    from widefs.univariate import label_permutations

    # One cell holding every example: unrestricted permutations, drawn by the same code as
    # the chance screen's permutation null.
    return label_permutations(np.zeros(int(n_samples), dtype=np.intp), n_permutations, random_state)


def _refit_scores(estimator, X, y, permutations) -> np.ndarray:
    """The oracle: ``clone(estimator).fit(X, y[perm]).search_score_`` for each row.

    The fits share the work that does not depend on the labels
    (:func:`widefs.utils.sharing_label_free_work`), which changes their cost, not their
    results.
    """
    from sklearn.base import clone

    from widefs.utils import sharing_label_free_work

    with sharing_label_free_work():
        return np.array(
            [float(clone(estimator).fit(X, y[perm]).search_score_) for perm in permutations]
        )


def search_certificate(
    estimator, X, y, *, n_permutations=199, random_state=None, n_jobs=None
) -> SearchCertificate:
    """Certify a search: its score on the real labels against the same search on permuted ones.

    The estimator is fitted on ``(X, y)``; its ``search_score_`` (the criterion its search
    optimized, higher is better: leave-one-out accuracy of the chosen subset for the wrapper
    searches, the combined leave-one-out accuracy for CEFS, training accuracy for the set
    covering machines and CN2, the best feature's validation accuracy for
    ``DiscriminativeSelector``) is the observed value. Then the *whole* search runs again,
    with the same parameters, on ``n_permutations`` random relabellings; the p-value is the
    share of relabellings, counting the real one, on which the search does at least as well.

    A small p-value says the search found structure a search on meaningless labels does not
    reach; a large one (say 0.3) says that about 30 % of searches on shuffled labels score as
    well, so the reported score is what this much searching finds in noise. It is not an
    accuracy estimate: nested cross-validation measures the final model's accuracy, the
    certificate the search's optimism.

    Parameters
    ----------
    estimator : estimator with ``search_score_``
        Any widefs selector or learner (cloned, never modified).
    X : array_like or DataFrame of shape (n_samples, n_features)
        Training data.
    y : array_like of shape (n_samples,)
        Class labels.
    n_permutations : int, default=199
        Label permutations; the smallest possible p-value is ``1 / (n_permutations + 1)``.
    random_state : int, RandomState instance or None, default=None
        Seeds the permutations (drawn once, before any work is split). The estimator's own
        ``random_state`` is left as it is: every refit uses it as a fresh clone would.
    n_jobs : int, default=None
        Permutations scored in parallel with joblib (any backend). Results do not depend on
        it.

    Returns
    -------
    certificate : SearchCertificate
        ``observed``, ``null_scores``, ``permutations``, ``pvalue``, ``excess``,
        ``quantiles`` and the fitted ``estimator``.

    See Also
    --------
    SearchCertificate : The result.
    nested_evaluate : Honest accuracy of the final model (a different question).
    widefs.univariate.label_permutations : The permutation draw.

    Examples
    --------
    >>> import numpy as np
    >>> from widefs.search import KNNEvaluator, SequentialSelector
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(30, 20))
    >>> y = (X[:, 0] + X[:, 1] > 0).astype(int)
    >>> sfs = SequentialSelector(n_features=2, evaluator=KNNEvaluator(3))
    >>> cert = search_certificate(sfs, X, y, n_permutations=19, random_state=0)
    >>> cert.null_scores.shape, cert.permutations.shape, cert.pvalue
    ((19,), (19, 30), 0.05)
    >>> noise = search_certificate(sfs, X, rng.permutation(y), n_permutations=19, random_state=0)
    >>> bool(noise.pvalue > 0.05)
    True
    """
    from sklearn.base import clone
    from sklearn.utils import check_consistent_length, column_or_1d

    if not hasattr(estimator, "fit") or not hasattr(estimator, "get_params"):
        raise TypeError(
            f"estimator must be a scikit-learn estimator; got {type(estimator).__name__}."
        )
    if int(n_permutations) != n_permutations or n_permutations < 1:
        raise ValueError(f"n_permutations must be a positive integer, got {n_permutations!r}.")
    y = column_or_1d(y, warn=False)
    check_consistent_length(X, y)
    fitted = clone(estimator).fit(X, y)
    if not hasattr(fitted, "search_score_"):
        raise TypeError(
            f"{type(estimator).__name__} has no search_score_ after fit: search_certificate "
            "needs the score the estimator's search optimized (every widefs selector and "
            "learner exposes it)."
        )
    observed = float(fitted.search_score_)
    permutations = _draw_permutations(y.shape[0], int(n_permutations), random_state)
    batched = getattr(clone(estimator), "permutation_search_scores", None)
    if batched is not None:
        null = np.asarray(batched(X, y, permutations, n_jobs=n_jobs), dtype=float)
    else:
        null = _parallel_refits(estimator, X, y, permutations, n_jobs)
    return SearchCertificate(observed, null, permutations, fitted)


def _parallel_refits(estimator, X, y, permutations, n_jobs) -> np.ndarray:
    """The refit loop over chunks of permutations, one chunk per job, in permutation order."""
    from joblib import effective_n_jobs

    from widefs.utils import parallel_calls

    n_chunks = max(1, min(len(permutations), effective_n_jobs(n_jobs)))
    if n_chunks == 1:
        return _refit_scores(estimator, X, y, permutations)
    chunks = np.array_split(np.arange(len(permutations)), n_chunks)
    parts = parallel_calls(
        _refit_scores, [(estimator, X, y, permutations[c]) for c in chunks], n_jobs=n_chunks
    )
    return np.concatenate(parts)
