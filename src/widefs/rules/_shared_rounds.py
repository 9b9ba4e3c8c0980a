"""Beam rounds shared between CN2 searches that differ only in their stopping rule.

An analysis certifies CN2-POE and CN2 with the significance test on the same relabellings
and the same folds. Their beams are the same until a search stops (the beam a round keeps
does not depend on the stopping rule; only the best rule it reports does), so the
significance searches repeat rounds the POE searches ran: every one of them, on colon.
Inside :func:`widefs._utils.sharing_label_free_work`, a round of a refit on a prepared
table (:mod:`widefs.rules._refits`) is stored under everything it is computed from (the
data, the fold's rows, the labels, the beam and the search's settings) and looked up by
later refits. A round run without the test stores its outputs and its best candidate; a
round with the test takes them when that candidate passes the test (then it is also the
best candidate that passes), else runs itself. Results never depend on the sharing.
"""

from __future__ import annotations

import numpy as np

__all__ = ["rounds_key", "shared_beam_round"]


def _beam():
    from widefs.rules import _beam

    return _beam


def rounds_key(Xe, encoding) -> bytes | None:
    """The data part of a round's key (None outside a sharing block: nothing is shared)."""
    from widefs._utils import data_digest, label_free_cache

    if label_free_cache() is None:
        return None
    return b"cn2-rounds" + data_digest(Xe, encoding.nominal, encoding.n_categories)


def _key(rows_key, leading, trailing, cov, conds, lens, counts) -> tuple:
    from widefs._utils import array_key

    max_len, kind, _, m, target, min_covered, _, _, _, beam_width = trailing
    settings = (int(max_len), int(kind), float(m), int(target), int(min_covered), int(beam_width))
    width = int(lens.max(initial=0))  # conditions past a member's length are zeros
    return (
        rows_key,
        array_key(leading[1]),  # the labels
        array_key(cov),
        array_key(conds[:, :width]),
        array_key(lens),
        array_key(counts),
        repr(settings).encode(),
    )


def _packed(out) -> tuple:
    """The round's outputs as arrays of their own (the cache makes them read-only)."""
    n_ok, cov, conds, lens, counts, found, best_cov, best_conds, best_len, best_counts = out[:10]
    width = int(lens.max(initial=0))
    return (
        np.array([n_ok, best_len, conds.shape[1]], dtype=np.int64),
        cov.copy(),
        conds[:, :width].copy(),
        lens.copy(),
        counts.copy(),
        np.array([found, out[11]], dtype=bool),
        best_cov.copy(),
        best_conds[:best_len].copy(),
        best_counts.copy(),
        np.array([out[10]], dtype=np.float64),
    )


def _unpacked(value) -> tuple:
    """The round's outputs, writable (a read-only array would make numba compile anew)."""
    ints, cov, conds, lens, counts, flags, best_cov, best_conds, best_counts, quality = value
    n_ok, best_len, width = (int(v) for v in ints)
    full = np.zeros((conds.shape[0], width), dtype=np.intp)
    full[:, : conds.shape[1]] = conds
    best_full = np.zeros(width if flags[0] else 0, dtype=np.intp)
    best_full[:best_len] = best_conds
    return (
        n_ok, cov.copy(), full, lens.copy(), counts.copy(), bool(flags[0]), best_cov.copy(),
        best_full, best_len, best_counts.copy(), float(quality[0]), bool(flags[1]),
    )  # fmt: skip


def shared_beam_round(est, leading, trailing, cov, conds, lens, counts) -> tuple:
    """:func:`widefs.rules._beam.beam_round` on ``(*leading, cov, conds, lens, counts,
    *trailing)``, shared as the module says when ``est`` is a refit on a prepared table."""
    from widefs._utils import label_free_cache

    kernels = _beam()
    rows_key = getattr(est, "_rounds_key", None)
    cache = None if rows_key is None else label_free_cache()
    if cache is None:
        return kernels.beam_round(*leading, cov, conds, lens, counts, *trailing)
    test = trailing[6]
    key = _key(rows_key, leading, trailing, cov, conds, lens, counts)
    stored = cache.lookup(key)
    if stored is not None:
        out = _unpacked(stored)
        # The best candidate of all, if it passes, is the best that passes.
        if not test or not out[5] or kernels.best_is_significant(out[9], trailing[7], trailing[8]):
            return out
    out = kernels.beam_round(*leading, cov, conds, lens, counts, *trailing)
    if not test and stored is None and cache.wanted(key, after=0):
        cache.store(key, _packed(out))
    return out
