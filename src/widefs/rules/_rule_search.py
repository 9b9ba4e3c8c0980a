"""CN2's search for one rule: beam rounds until the stopping rule (significance or POE) ends it.

Each round is one call of :func:`widefs.rules._beam.beam_round` (its compiled steps count,
rank and keep the specializations of the beam); :func:`find_rule` prepares the round's
arguments once and applies the stopping rules of :class:`widefs.rules.CN2Classifier`
between rounds.
"""

from __future__ import annotations

import functools

import numpy as np
from scipy import stats

from widefs.rules._shared_rounds import shared_beam_round
from widefs.rules._table import QUALITY_CODES, CandidateTable

__all__ = ["find_rule"]


def _beam():
    """The compiled beam rounds, imported (and compiled) on first use."""
    from widefs.rules import _beam

    return _beam


def _root_quality(kernels, counts, target: int, kind: int, m: float, entropy_work) -> float:
    """Quality of the empty rule, by :func:`widefs.rules._beam.quality_of`'s operations.

    Laplace and m-estimate are computed here, so a run that ranks by them never compiles
    ``quality_of`` (the beam round drops it too; see its ``entropy_work``).
    """
    if entropy_work is not None:
        return float(kernels.quality_of(counts, target, kind, m, entropy_work))
    n = float(counts.sum())  # integer-valued: the kernel's float sum is exact too
    hit = counts[target] if target >= 0 else counts.max()
    C = counts.size
    if kind == QUALITY_CODES["laplace"]:
        return float((hit + 1.0) / (n + C))
    return float((hit + m / C) / (n + m))


class _Found:
    """A rule version: sorted static condition ids, covered rows (full training set), counts."""

    __slots__ = ("counts", "covered", "quality", "sids")

    def __init__(self, sids: np.ndarray, covered: np.ndarray, counts: np.ndarray, quality: float):
        self.sids = sids
        self.covered = covered
        self.counts = counts
        self.quality = quality


@functools.lru_cache(maxsize=64)
def _chi2_threshold(alpha: float, df: int) -> float:
    """``chi2.isf(alpha, df)``, remembered: scipy's call costs more than a small beam search,
    and every rule search of every refit asks for the same few values."""
    return float(stats.chi2.isf(alpha, df))


def _round_args(est, table: CandidateTable, y, C: int, base, target):
    """The arguments of every beam round of one search (the same for each round), and the
    quality of the empty rule: ``(leading, trailing, root_quality)``."""
    alpha = est._alpha()
    kind = QUALITY_CODES[est.quality]
    tgt = -1 if target is None else int(target)
    m = float(est.m)
    entropy_work = np.empty(C) if kind == QUALITY_CODES["entropy"] else None
    root_quality = _root_quality(_beam(), base, tgt, kind, m, entropy_work)
    base_p = base / base.sum()
    test = alpha is not None
    df = int((base_p > 0).sum()) - 1
    threshold = _chi2_threshold(float(alpha), df) if test and df >= 1 else np.inf
    max_len = 0 if est.max_rule_length is None else int(est.max_rule_length)
    trailing = (max_len, kind, entropy_work, m, tgt, int(est.min_covered), test, base_p, threshold,
                int(est.beam_width))  # fmt: skip
    # The static candidates are the same for every round (and the table's scratch reused).
    return table.kernel_args(y, C), trailing, root_quality


def find_rule(est, table: CandidateTable, y, C: int, active, target, prior: float):
    """Beam search for one rule of ``est`` (a CN2Classifier) on the ``active`` rows.

    Returns ``(found or None, m, E)``: the rule version found, the rule versions
    generated (``m_k``) and its process-oriented estimate (POE stopping only).
    """
    base = np.bincount(y[active], minlength=C)
    leading, trailing, root_quality = _round_args(est, table, y, C, base, target)
    cov = active[None, :].copy()
    conds = np.zeros((1, table.max_conditions), dtype=np.intp)
    lens = np.zeros(1, dtype=np.intp)
    counts = base[None, :]
    poe = est.stopping in ("poe", "poe1")
    best = _Found(np.zeros(0, dtype=np.intp), active.copy(), base, root_quality) if poe else None
    m_k = 1
    estimate = est._round_estimate(base, 1, prior, target, C) if poe else None
    # Pure versions only have pure, smaller (so worse and less significant)
    # descendants: none could replace the best rule, so classic CN2 stops there.
    all_pure = (np.count_nonzero(base) <= 1) if target is None else base[target] == base.sum()
    while poe or not all_pure:
        (n_ok, cov, conds, lens, counts, found, best_cov, best_conds, best_len, best_counts,
         best_quality, all_pure) = shared_beam_round(est, leading, trailing, cov, conds, lens, counts)  # fmt: skip
        if n_ok == 0:
            break
        m_new = m_k + n_ok
        round_best = None
        if found and (best is None or best_quality > best.quality):
            round_best = _Found(best_conds[:best_len], best_cov[0], best_counts, best_quality)
        if poe:
            candidate = round_best if round_best is not None else best
            new_estimate = est._round_estimate(candidate.counts, m_new, prior, target, C)
            if new_estimate >= estimate:
                break
            best, estimate = candidate, new_estimate
        elif round_best is not None:
            best = round_best
        m_k = m_new
    return best, m_k, estimate
