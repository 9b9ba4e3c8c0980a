"""Sample-compression greedy covering on a packed presort, in numpy, by feature blocks.

The hard greedy of Section VI of Shah, Marchand & Corbeil (2010) with the utility
``U = |Q| - p |R|`` (eq. 8), organised so that it needs no JIT compiler and no full copy of
``X``, and so that it reads an out-of-core ``X`` (dask, zarr, memmap) once, block by block:

- **Packed presort, position-major** (:func:`widefs.stumps.packed_presort`). Each block of
  columns is sorted once into an array ``P[pos, j] = row | flags``: the row at sorted
  position ``pos`` of feature ``j``, a flag set when its value differs from the previous
  position's and (in memory) one when the next position's does. One byte per entry for
  ``m <= 128`` out of core (``m <= 64`` in memory), two up to 32768 (16384), instead of the
  matrix's four or eight.
- **One table look-up per cut.** With ``c = 1`` for an active negative and ``c = Q0 + 1`` for
  an active positive, the cumulative sum of ``c`` along a feature's order is ``q + r (Q0 + 1)``:
  it indexes a precomputed table of the dense rank of ``(q - p r, q - r)``, the utility and
  its tie-break, computed exactly as in the reference (``q - p * r`` in float64). The right
  side's table is the left one reversed; a scan reads the elementwise maximum of the two.
  Cuts inside a run of tied values, and cuts leaving a side without active examples, get
  rank ``-1``. Sums along the sorted position are row-wise vector additions. When the
  table would be too large (thousands of examples, :data:`MAX_TABLE_ENTRIES`), the same
  sums are decoded into ``(q, r)`` and the utilities computed directly.
- **Lazy greedy (pruning).** Removing the examples covered at a step can raise a
  candidate's utility by at most ``p`` times the number of positives removed, and creates no
  new split, so a feature whose last exact best plus that allowance is below the best
  utility found in the current step cannot win (not even a tie) and is not rescanned.
- **Pure covers.** No cut can beat one that covers every active negative and no active
  positive (utility and tie-break both ``|N|``). Once most rows are inactive, the active
  rows' values show which features have such a cut (the negatives strictly above or below
  every positive); the first one wins the step without a scan.
- **Lazy compaction.** Once three quarters of the rows are inactive they are dropped (run flags
  merged), so later steps scan only the remaining examples.

The greedy stops when no negative remains, after ``max_rules`` stumps, or when the best
utility is not positive (no stump removes more than ``p`` negatives per positive; the
last case includes "covers no negative"), as pyscm-ml never adds a rule that makes the
training error worse. The result, including every tie (utility, then training-error
decrease ``q - r``, then lowest feature index, then smallest threshold, then direction
``+1`` before ``-1``), is that of the literal greedy; ``tests/scm/test_covering.py`` checks
it against one with every shortcut pushed to its extreme.
"""

from __future__ import annotations

import functools
from functools import partial

import numpy as np

from widefs._utils import array_key, data_digest, iter_column_blocks, label_free, load_columns
from widefs.scm._base import check_finite_block
from widefs.scm._parallel import block_pool, threads_for
from widefs.scm._rules import LearnedStump
from widefs.stumps import packed_presort

__all__ = ["MAX_TABLE_ENTRIES", "sc_greedy"]

# Entries of one block of columns (rows x columns): wide blocks amortize numpy's per-call
# cost; the work inside a block goes by chunks of rows (_row_chunks), so temporaries stay
# small. Blocks are split further (not below MIN_BLOCK_ENTRIES) to give every thread one.
BLOCK_ENTRIES = 1 << 20
MIN_BLOCK_ENTRIES = 1 << 16
LAZY_BLOCK_ENTRIES = 1 << 18
# In memory, entries also flag the end of a run (see _State): no masking pass per step.
END_FLAGS = True
# Largest (Q0 + 1)(R0 + 1) rank table (int32): 4M entries = 16 MB, m up to about 4000.
MAX_TABLE_ENTRIES = 1 << 22
# Compact the stored rows once fewer than this fraction of them is active (a compaction
# costs about two scans, so it pays only when many rows are gone).
COMPACT_BELOW = 0.25
# Features evaluated first at each step (highest upper bounds) to set a good bar early.
PROBE = 64
# Look for a stump covering every active negative and no active positive before scanning,
# once at most this fraction of the stored rows is active (reading the active rows' values
# then costs a fraction of a scan).
PURE_COVER_ACTIVE = 0.5
# Rows of each class read at a time by that search.
_PURE_COVER_ROWS = 8


def _row_chunks(n: int, w: int, entries: int = 1 << 15):
    """Slices of rows holding about ``entries`` entries (temporaries stay in cache)."""
    step = max(1, entries // max(w, 1))
    for i in range(0, n, step):
        yield slice(i, min(i + step, n))


def _rank_table(n_neg: int, n_pos: int, p: float):
    """Dense rank of ``(q - p r, q - r)`` at index ``q + r (n_neg + 1)``; each rank's utility and tie."""
    q = np.tile(np.arange(n_neg + 1, dtype=np.float64), n_pos + 1)
    r = np.repeat(np.arange(n_pos + 1, dtype=np.float64), n_neg + 1)
    score = q - p * r  # the reference's formula, in float64
    tie = q - r
    order = np.lexsort((tie, score))
    s, t = score[order], tie[order]
    new = np.ones(order.size, dtype=bool)
    new[1:] = (s[1:] != s[:-1]) | (t[1:] != t[:-1])
    rank = np.empty(order.size, dtype=np.int32)
    rank[order] = np.cumsum(new) - 1
    return rank, s[new], t[new]


def _cumsum_rows(a: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """Cumulative sum along axis 0 (intp) as row-wise vector additions (fast for wide blocks)."""
    if out is None:
        out = a.astype(np.intp)  # one cast up front: mixed-type adds are slow
    elif out is not a:
        out[...] = a
    if a.shape[1] >= 512 and a.shape[0] > 1:
        for i in range(1, a.shape[0]):
            np.add(out[i - 1], out[i], out=out[i])
    else:
        np.cumsum(out, axis=0, out=out)
    return out


def _lex_better(u, t, best_u, best_t):
    """Where ``(u, t)`` is lexicographically larger than ``(best_u, best_t)``."""
    return (u > best_u) | ((u == best_u) & (t > best_t))


class _State:
    """Per-step tables shared by all blocks.

    Two packed formats: with ``end_flags`` (in memory) every entry also flags that the next
    position starts a new run; the class code table then adds ``2 c - start + end`` per
    entry, whose cumulative sum telescopes to ``2 (q + r (Q0 + 1)) + end``: its parity says
    whether a cut follows the position, so one look-up in an interleaved table gives the
    rank with no separate masking pass. Without them (out of core, one byte per entry for
    up to 128 examples) the cut mask is read from the next row's start flag.

    Scans return, per column, the best ``(utility, tie-break)`` of its cuts (``-inf`` when
    it has none): from the rank table, or computed directly when the table is too large.
    """

    def __init__(self, bits: int, m: int, y_pos: np.ndarray, p: float, end_flags: bool):
        self.bits = bits
        self.flag = 1 << bits  # start of a run
        self.end_flags = end_flags
        self.m = m
        self.p = float(p)
        n_neg0, n_pos0 = int(np.sum(~y_pos)), int(np.sum(y_pos))
        self.stride = n_neg0 + 1
        self.table = (n_neg0 + 1) * (n_pos0 + 1) <= MAX_TABLE_ENTRIES
        if self.table:
            self.rank, self.utility_of_rank, self.tie_of_rank = _rank_table(n_neg0, n_pos0, p)

    def update(self, active: np.ndarray, y_pos: np.ndarray) -> None:
        n_codes = 1 << self.bits
        code = np.zeros(n_codes, dtype=np.intp)
        code[: self.m] = np.where(active, np.where(y_pos, self.stride, 1), 0)
        act = np.zeros(n_codes, dtype=bool)
        act[: self.m] = active
        if self.end_flags:
            # packed value = row + n_codes (start) + 2 n_codes (end)
            self.code = np.concatenate([2 * code, 2 * code - 1, 2 * code + 1, 2 * code])
            self.active_tab = np.tile(act, 4)
        else:
            self.code = np.tile(code, 2)  # indexed by the packed entry (row | start)
            self.active_tab = np.tile(act, 2)
        self.n_neg = int(np.sum(active & ~y_pos))
        self.n_pos = int(np.sum(active & y_pos))
        self.total = total = self.n_neg + self.n_pos * self.stride
        if not self.table:
            return
        t0 = self.rank[: total + 1].copy()
        t1 = self.rank[total::-1].copy()  # right side of a cut: (Q - q, R - r)
        for t in (t0, t1):
            t[0] = t[total] = -1  # a side without active examples
        t01 = np.maximum(t0, t1)  # the better side of each cut
        if self.end_flags:  # index 2 k + 1: a cut with sums k; 2 k: no cut
            self.t01 = np.full(2 * (total + 1), -1, dtype=np.int32)
            self.t01[1::2] = t01
        else:
            self.t01 = t01

    def _cut_sums(self, P: np.ndarray, rows: slice, carry: np.ndarray) -> np.ndarray:
        """Cumulative class codes after positions ``rows``, as read by :attr:`t01`."""
        # mode="clip": indices are valid, and it spares numpy a checked, buffered gather.
        cum = self.code.take(P[rows], mode="clip")
        cum[0] += carry
        _cumsum_rows(cum, out=cum)
        carry[:] = cum[-1]
        if not self.end_flags:
            # a cut after position i exists iff position i + 1 starts a run of tied values
            cum *= (P[rows.start + 1 : rows.stop + 1] & P.dtype.type(self.flag)) != 0
        return cum

    def _side_keys(self, cum: np.ndarray):
        """``(u0, t0, u1, t1)``: utility and tie-break of the left (covered by ``x > t``) and
        right parts of every cut whose sums are ``cum``; ``-inf`` where there is no cut."""
        k = np.where(cum & 1, cum >> 1, 0) if self.end_flags else cum  # end flags: even = no cut
        valid = (k > 0) & (k < self.total)  # a cut with active examples on both sides
        r, q = np.divmod(k, self.stride)
        q, r = q.astype(np.float64), r.astype(np.float64)
        q1, r1 = self.n_neg - q, self.n_pos - r
        out = (q - self.p * r, q - r, q1 - self.p * r1, q1 - r1)  # the reference's formulas
        return tuple(np.where(valid, v, -np.inf) for v in out)

    def cut_keys(self, P: np.ndarray):
        """``(u0, t0, u1, t1)`` at every cut ``(n - 1, w)`` of a block."""
        cum = self._cut_sums(P, slice(0, P.shape[0] - 1), np.zeros(P.shape[1], np.intp))
        return self._side_keys(cum)

    def best_keys(self, P: np.ndarray):
        """Best ``(utility, tie-break)`` of each column over its cuts and both sides."""
        n, w = P.shape
        carry = np.zeros(w, dtype=np.intp)
        best_u, best_t = np.full(w, -np.inf), np.full(w, -np.inf)
        if self.table:
            best = np.full(w, -1, dtype=np.int32)
        # Row chunks keep every temporary small, in cache and recycled by the allocator.
        for rows in _row_chunks(n - 1, w):
            cum = self._cut_sums(P, rows, carry)
            if self.table:
                np.maximum(best, np.maximum.reduce(self.t01.take(cum, mode="clip")), out=best)
                continue
            u0, t0, u1, t1 = self._side_keys(cum)
            for u, t in ((u0, t0), (u1, t1)):
                cu = u.max(axis=0)
                ct = np.where(u == cu, t, -np.inf).max(axis=0)
                better = _lex_better(cu, ct, best_u, best_t)
                best_u = np.where(better, cu, best_u)
                best_t = np.where(better, ct, best_t)
        if self.table:
            ok = best >= 0
            best_u[ok] = self.utility_of_rank[best[ok]]
            best_t[ok] = self.tie_of_rank[best[ok]]
        return best_u, best_t

    def compact(self, P: np.ndarray, n_active: int) -> np.ndarray:
        """Drop inactive rows of a block in place, keeping order; returns its first rows.

        A run flag (new value) survives on the next kept row. Kept entries only move to
        earlier rows, so the block's own memory is reused: compaction allocates no new
        block (and leaves no fragmented heap behind).
        """
        w = P.shape[1]
        start = P.dtype.type(self.flag)
        keep = np.take(self.active_tab, P, mode="clip")
        # Flat indices of the kept entries (row-major); np.take on them is several times
        # faster than boolean-mask indexing.
        src = np.flatnonzero(keep)
        rank = _cumsum_rows(keep)  # position of each kept entry in its column, from 1
        rank -= 1
        rank *= w
        rank += np.arange(w)
        dest = rank.reshape(-1).take(src)  # its flat index once compacted
        del rank
        run = _cumsum_rows((P & start) != 0).reshape(-1).take(src)  # run ids of kept entries
        flat = P.reshape(-1)
        flat[dest] = flat.take(src) & P.dtype.type(self.flag - 1)  # read before writing
        kept_run = np.empty(n_active * w, dtype=run.dtype)
        kept_run[dest] = run
        kept_run = kept_run.reshape(n_active, w)
        new_run = kept_run[1:] != kept_run[:-1]
        out = P[:n_active]
        out[1:] |= np.left_shift(new_run, self.bits, dtype=P.dtype)
        if self.end_flags:
            out[:-1] |= np.left_shift(new_run, self.bits + 1, dtype=P.dtype)
        return out


def sc_greedy(
    X,
    y_pos: np.ndarray,
    *,
    p: float,
    max_rules: int,
    feature_reuse: bool = False,
    lazy: bool = False,
    block_entries: int | None = None,
) -> list[LearnedStump]:
    """Greedy covering with ``U = |Q| - p |R|``; thresholds at training values.

    Parameters
    ----------
    X : ndarray of shape (m, n), or an out-of-core matrix with ``lazy=True`` (read once,
        one block of columns at a time; NaN or infinite values raise ``ValueError``).
    y_pos : ndarray of bool, shape (m,)
        Conjunction-space labels.
    p : float
    max_rules : int
    feature_reuse : bool
        Allow several stumps on one attribute.
    lazy : bool
        ``X`` is a dask/zarr/memmap matrix, loaded block by block.
    block_entries : int, optional
        Entries (rows x columns) of one block (default ``BLOCK_ENTRIES``).

    Returns
    -------
    list of LearnedStump
    """
    m, F = X.shape
    y_pos = np.asarray(y_pos, dtype=bool)
    bits = max(1, int(m - 1).bit_length())
    # In memory, entries also carry an end-of-run flag (one masking pass less per step);
    # out of core they stay at one byte for up to 128 examples.
    end_flags = END_FLAGS and not lazy
    sort = partial(packed_presort, bits=bits, end_flags=end_flags)
    cpus = threads_for(m, F)
    reads, spans = _block_layout(X, lazy=lazy, block_entries=block_entries, cpus=cpus)
    threads = min(cpus, len(spans))
    with block_pool(threads) as pool:
        # numpy's sort, gathers and ufuncs release the GIL: blocks run in parallel threads.
        if lazy:
            blocks = _read_and_sort(X, reads, spans, sort, pool, threads)
        else:
            blocks = _sort_in_memory(X, spans, sort, pool, (bits, end_flags))
        state = _State(bits, m, y_pos, p, end_flags)
        return _greedy_steps(
            X, y_pos, blocks, [b.start for b in spans], pool, state, max_rules=max_rules,
            feature_reuse=feature_reuse, lazy=lazy,
        )  # fmt: skip


def _block_layout(X, *, lazy: bool, block_entries: int | None, cpus: int):
    """``(reads, spans)``: the column slices read at once and the blocks sorted (in order).

    Out of core, ``X`` is read by whole storage chunks (each decompressed once), in its own
    dtype, and sorted in blocks of ``width`` columns; in memory, reads are the blocks.
    """
    m, F = X.shape
    # An out-of-core block is also converted to float64 and keyed: keep it smaller.
    default = LAZY_BLOCK_ENTRIES if lazy else BLOCK_ENTRIES
    width = max(1, int(block_entries or default) // max(m, 1))
    if cpus > 1 and block_entries is None:  # at least one block per thread, if not tiny
        width = min(width, max(-(-F // cpus), MIN_BLOCK_ENTRIES // max(m, 1)))
    width |= 1  # odd: power-of-two strides make numpy's column-wise cumsum thrash caches
    chunk = _column_chunk(X) if lazy else None
    read_width = max(width, chunk or 0)
    if chunk:
        read_width = chunk * max(1, read_width // chunk)
    reads = list(iter_column_blocks(F, read_width))
    spans = [
        slice(r.start + b.start, r.start + b.stop)
        for r in reads
        for b in iter_column_blocks(r.stop - r.start, width)
    ]
    return reads, spans


def _read_and_sort(X, reads, spans, sort, pool, threads) -> list[np.ndarray]:
    """Out of core: read each slice in this thread (checked), sort its blocks in the pool,
    with few blocks in flight."""
    pending, blocks = [], []
    native = np.dtype(getattr(X, "dtype", np.float64))
    read_dtype = native if native.kind == "f" else np.float64
    todo = iter(spans)
    for r in reads:
        Xr = load_columns(X, r, dtype=read_dtype)
        check_finite_block(Xr, r.start)
        for b in todo:
            pending.append(pool.submit(sort, Xr[:, b.start - r.start : b.stop - r.start]))
            if len(pending) > threads:
                blocks.append(pending.pop(0).result())
            if b.stop == r.stop:
                break
        del Xr
    return blocks + [f.result() for f in pending]


def _sort_in_memory(X, spans, sort, pool, settings) -> list[np.ndarray]:
    """The packed presort of every block of an in-memory ``X``.

    The presort does not depend on y: a search certificate sorts each block once for every
    relabelling (copies: compaction works in place).
    """
    digest = functools.cache(lambda: data_digest(X))

    def presort(b):
        def key():
            return (b"packed", digest(), array_key([b.start, b.stop, *settings]))

        return label_free(key, lambda: sort(X[:, b]), copy=True)

    return list(pool.map(presort, spans))


def _column_chunk(X) -> int | None:
    """Width of the storage chunks of a zarr or dask matrix along the columns (None if unknown)."""
    chunks = getattr(X, "chunks", None)
    try:
        c = chunks[1]
        c = c[0] if isinstance(c, tuple) else c  # dask: sizes of every chunk
        return int(c) if int(c) > 0 else None
    except (TypeError, IndexError, ValueError):
        return None


def _scan_blocks(pool, state, blocks, starts, stops, want, bound, bar):
    """``(columns, best utilities, best tie-breaks)`` of each block's wanted features whose
    bound reaches ``bar``.

    A generator over blocks, so per-feature temporaries exist for one block at a time.
    """

    def one(i):
        sub = want[starts[i] : stops[i]] & (bound[starts[i] : stops[i]] >= bar)
        local = np.flatnonzero(sub)
        if local.size == 0:
            return local, None, None
        P = blocks[i]
        if 2 * local.size >= P.shape[1]:  # cheaper than gathering the columns
            u, t = state.best_keys(P)
            return local + starts[i], u[local], t[local]
        return local + starts[i], *state.best_keys(P[:, local])

    for cols, u, t in pool.map(one, range(len(blocks))):
        if u is not None:
            yield cols, u, t


def _scan_and_record(
    pool, state, blocks, starts, stops, bound, step, best_seen, removed_pos_at, removed_pos,
    want, bar,
) -> float:  # fmt: skip
    """Scan the wanted features whose bound reaches ``bar``, record their exact bests (in
    ``step`` and, with the positives removed so far, for later pruning) and return the
    raised bar."""
    for cols, u, t in _scan_blocks(pool, state, blocks, starts, stops, want, bound, bar):
        step.utility[cols], step.tie[cols], step.scanned[cols] = u, t, True
        best_seen[cols] = u
        removed_pos_at[cols] = removed_pos
        bar = max(bar, float(u.max()))
    return bar


def _pure_cover(X, active, y_pos, candidates) -> int:
    """The lowest of ``candidates`` (sorted feature indices) with a stump covering every
    active negative and no active positive (-1: none).

    Such a stump has utility ``|N|`` and tie-break ``|N|``, the largest pair any cut can
    have, so the first feature that has one wins the step, as the exhaustive scan would find.
    It exists where the active negatives lie strictly above (or below) every active positive.
    Rows are read a few of each class at a time, and features are dropped as soon as the
    rows read so far interleave, which leaves almost none after the first rows.
    """
    neg = np.flatnonzero(active & ~y_pos)
    pos = np.flatnonzero(active & y_pos)
    if neg.size == 0 or pos.size == 0:  # (a cut needs active examples on both sides)
        return -1
    cols = np.asarray(candidates, dtype=np.intp)
    lo_n, hi_n, lo_p, hi_p = (np.full(cols.size, v) for v in (np.inf, -np.inf, np.inf, -np.inf))
    step = _PURE_COVER_ROWS
    for start in range(0, max(neg.size, pos.size), step):
        for rows, lo, hi in (
            (neg[start : start + step], lo_n, hi_n),
            (pos[start : start + step], lo_p, hi_p),
        ):
            if rows.size:
                x = X[np.ix_(rows, cols)]
                np.minimum(lo, x.min(axis=0), out=lo)
                np.maximum(hi, x.max(axis=0), out=hi)
        keep = (lo_n > hi_p) | (hi_n < lo_p)
        if not keep.all():
            cols, lo_n, hi_n, lo_p, hi_p = (a[keep] for a in (cols, lo_n, hi_n, lo_p, hi_p))
        if cols.size == 0:
            return -1
    return int(cols[0])


class _Step:
    """Best ``(utility, tie-break)`` of every feature scanned at this step."""

    def __init__(self, n_features: int):
        self.utility = np.full(n_features, -np.inf)
        self.tie = np.full(n_features, -np.inf)
        self.scanned = np.zeros(n_features, dtype=bool)

    def winner(self) -> int:
        """Highest utility, then tie-break, then lowest feature index (-1: no cut at all)."""
        u = self.utility.max()
        if u == -np.inf:
            return -1
        t = self.tie[self.utility == u].max()
        return int(np.flatnonzero((self.utility == u) & (self.tie == t))[0])


def _greedy_steps(X, y_pos, blocks, starts, pool, state, *, max_rules, feature_reuse, lazy):
    m, F = X.shape
    dtype = blocks[0].dtype
    p = state.p
    active = np.ones(m, dtype=bool)
    n_rows = m
    stops = [*starts[1:], F]
    # Exact best utility of each feature when last scanned, and the positives removed
    # since (the allowance of the pruning bound); -inf: never a candidate again.
    best_seen = np.full(F, np.inf)
    removed_pos_at = np.zeros(F, dtype=np.int32)
    removed_pos = 0
    slack = 1e-9 * (1.0 + m * (1.0 + p))  # float rounding of the utilities
    stumps: list[LearnedStump] = []
    while len(stumps) < max_rules:
        state.update(active, y_pos)
        if state.n_neg == 0:
            break
        n_active = int(active.sum())
        if n_active < COMPACT_BELOW * n_rows:
            # In place, block by block: the old block is freed as soon as its copy is made.
            for i, compacted in enumerate(
                pool.map(partial(state.compact, n_active=n_active), blocks)
            ):
                blocks[i] = compacted
            n_rows = n_active
        bound = best_seen + p * (removed_pos - removed_pos_at) + slack
        step = _Step(F)
        scan = partial(
            _scan_and_record, pool, state, blocks, starts, stops, bound, step,
            best_seen, removed_pos_at, removed_pos,
        )  # fmt: skip
        eligible = bound > -np.inf
        n_eligible = int(eligible.sum())
        if n_eligible == 0:
            break
        f = -1
        if not lazy and n_active <= PURE_COVER_ACTIVE * n_rows:
            # (no feature whose bound is below |N| can have such a cut)
            f = _pure_cover(X, active, y_pos, np.flatnonzero(bound >= state.n_neg))
        if f >= 0:
            top_u = top_t = float(state.n_neg)  # the best key there is (see _pure_cover)
        else:
            if not stumps or n_eligible <= PROBE:
                scan(eligible, -np.inf)
            else:
                # The features with the highest bounds first: they set the bar for the rest.
                probe = bound >= np.partition(bound, F - PROBE)[F - PROBE]
                bar = scan(probe & eligible, -np.inf)
                scan(eligible & ~step.scanned, bar)
            f = step.winner()
            if f < 0 or not step.utility[f] > 0.0:
                break  # no cut, or the best one removes no more than p negatives per positive
            top_u, top_t = step.utility[f], step.tie[f]
        i = int(np.searchsorted(starts, f, side="right")) - 1
        P = blocks[i][:, f - starts[i] : f - starts[i] + 1]
        u0, t0, u1, t1 = (v[:, 0] for v in state.cut_keys(P))
        left, right = (u0 == top_u) & (t0 == top_t), (u1 == top_u) & (t1 == top_t)
        pos = int(np.flatnonzero(left | right)[0])  # first cut, left part first
        side = 0 if left[pos] else 1
        rows = (P[:, 0] & dtype.type(state.flag - 1)).astype(np.intp)
        part = rows[: pos + 1] if side == 0 else rows[pos + 1 :]
        covered = part[active[part]]
        q = int(np.sum(~y_pos[covered]))
        column = load_columns(X, [f])[:, 0] if lazy else X[:, f]
        stumps.append(
            LearnedStump(
                feature=f,
                direction=1 if side == 0 else -1,
                # The threshold is the value of a training example (the compression set).
                threshold=float(column[rows[pos]]),
                covered_negatives=q,
                covered_positives=int(covered.size - q),
            )
        )
        active[covered] = False
        removed_pos += int(covered.size - q)
        if not feature_reuse:
            best_seen[f] = -np.inf
    return stumps
