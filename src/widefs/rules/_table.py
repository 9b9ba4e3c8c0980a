"""The static candidate conditions of a CN2 fit: every attribute's values as bins.

Every attribute's values become contiguous *bins*, a nominal attribute's categories in code
order and a numeric attribute's distinct observed values in increasing order (the runs of
its presort, :func:`widefs.stumps.run_layout`); a missing value has no bin (-1), so it
satisfies no condition. Candidate condition ``sid`` (static id) is ``a == v`` for a category
bin, or ``a <= t`` / ``a > t`` for a value bin, numbered by attribute, then ``==``, ``<=``,
``>``, then value: the generation order of the documented tie-break, so a rule's sorted
static ids are its conditions in display order. The compiled beam rounds over this table
are in :mod:`widefs.rules._beam`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from widefs.rules._rule import EQ, GT, LE

__all__ = ["QUALITY_CODES", "CandidateTable"]

QUALITY_CODES = {"laplace": 0, "m_estimate": 1, "entropy": 2}


@dataclass(frozen=True)
class CandidateTable:
    """Bins of every attribute and the static list of candidate conditions.

    Attributes
    ----------
    bins : ndarray of intp, shape (n_samples, n_features)
        Global bin of each value (-1: missing or unseen); each attribute's bins are
        contiguous and ordered by value.
    feature_nominal, feature_offset, feature_n_bins, feature_first_candidate : ndarray
        Per attribute: kind, first bin, number of bins, first static candidate id.
    cand_feature, cand_op, cand_value, cand_bin : ndarray
        Per static candidate: attribute, operator code (``EQ``, ``LE``, ``GT``), category
        code or threshold, and bin (the category's, or the threshold's run).
    walk_rows, walk_bins : ndarray of intp, shape (n_features, n_samples)
        Per attribute, the rows in increasing bin order and their bins (-1: missing): the
        order in which a beam round walks an attribute's values.
    walk_distinct : ndarray of bool, shape (n_features,)
        Numeric attributes whose every row has a value, no two equal: a beam round knows
        how many candidates they make without walking them (:mod:`widefs.rules._beam`).
    max_conditions : int
        Most conditions a rule can hold (one ``==`` per nominal attribute, one ``<=`` and
        one ``>`` per numeric one).
    """

    bins: np.ndarray
    feature_nominal: np.ndarray
    feature_offset: np.ndarray
    feature_n_bins: np.ndarray
    feature_first_candidate: np.ndarray
    cand_feature: np.ndarray
    cand_op: np.ndarray
    cand_value: np.ndarray
    cand_bin: np.ndarray
    walk_rows: np.ndarray
    walk_bins: np.ndarray
    walk_distinct: np.ndarray

    max_conditions: int  # one == per nominal attribute, a <= and a > per numeric one

    @classmethod
    def build(cls, X: np.ndarray, nominal: np.ndarray, n_categories: np.ndarray) -> CandidateTable:
        """Bins from the encoded training matrix (one presort of the numeric columns).

        ``X`` holds numeric values (NaN: missing) and nominal category codes (negative:
        missing or unseen), as :func:`widefs._utils.encode_fit` returns them.
        """
        from widefs.stumps import SortedFeatures, run_layout

        n, F = X.shape
        nominal = np.asarray(nominal, dtype=bool)
        num = np.flatnonzero(~nominal)
        nom = np.flatnonzero(nominal)
        n_bins = np.zeros(F, dtype=np.intp)
        bins = np.full((n, F), -1, dtype=np.intp)
        run_value = np.array([])
        if num.size:
            sorted_num = SortedFeatures.from_matrix(X[:, num])
            lay = run_layout(sorted_num)
            run_value = lay.run_value + 0.0  # -0.0 and 0.0 are one run: print it as 0
            n_bins[num] = lay.end_run - lay.first_run
            # Runs are numbered feature by feature in increasing value; missing -> -1.
            run_id = np.where(lay.run_id < lay.n_runs, lay.run_id, -1)
            block = np.empty((num.size, n), dtype=np.intp)
            np.put_along_axis(block, sorted_num.order, run_id, axis=1)
            bins[:, num] = block.T
        n_bins[nom] = n_categories[nom]
        # Numeric runs keep their run_layout numbers [0, n_runs); categories follow.
        offset = np.zeros(F, dtype=np.intp)
        if num.size:
            offset[num] = lay.first_run
        n_runs = run_value.size
        cat_start = n_runs + np.concatenate([[0], np.cumsum(n_bins[nom])[:-1]]).astype(np.intp)
        offset[nom] = cat_start
        if nom.size:
            c = X[:, nom].astype(np.intp)
            bins[:, nom] = np.where(c >= 0, c + cat_start, -1)
        first, cand_feature, cand_op, cand_bin = _candidates(nominal, n_bins, offset)
        all_values = np.concatenate([run_value, np.arange(max(0, int(n_bins[nom].sum())))])
        if nom.size:
            # A category bin's value is its code: bin - the attribute's offset.
            all_values[n_runs:] = np.concatenate([np.arange(k) for k in n_bins[nom]])
        walk_rows = np.empty((F, n), dtype=np.intp)
        if num.size:
            walk_rows[num] = sorted_num.order  # missing values last, with bin -1
        if nom.size:
            # numpy's stable sort of 16-bit integers is a radix sort (~5x faster here).
            small = int(bins.max(initial=0)) < np.iinfo(np.int16).max
            keys = bins[:, nom].T.astype(np.int16 if small else np.intp)
            walk_rows[nom] = np.argsort(keys, axis=1, kind="stable")
        walk_bins = np.take_along_axis(bins.T, walk_rows, axis=1)
        return cls(
            bins=np.ascontiguousarray(bins),
            feature_nominal=nominal,
            feature_offset=offset,
            feature_n_bins=n_bins,
            feature_first_candidate=first,
            cand_feature=cand_feature,
            cand_op=cand_op,
            cand_value=all_values[cand_bin].astype(float, copy=False),
            cand_bin=cand_bin,
            walk_rows=walk_rows,
            walk_bins=walk_bins,
            walk_distinct=_distinct(walk_bins, nominal),
            max_conditions=_max_conditions(nominal),
        )

    @classmethod
    def shared(cls, X: np.ndarray, nominal: np.ndarray, n_categories: np.ndarray) -> CandidateTable:
        """:meth:`build`, shared between the fits of one
        :func:`~widefs._utils.sharing_label_free_work` block: the table does not depend on
        the labels, so a search certificate builds it once for all its relabellings (every
        block of its sequential null, the fit on the real labels) instead of once per fit."""
        from widefs._utils import array_key, data_digest, label_free

        def key():
            return (b"cn2-table", data_digest(X), array_key(nominal), array_key(n_categories))

        def compute():
            table = cls.build(X, nominal, n_categories)
            return tuple(getattr(table, f.name) for f in _ARRAY_FIELDS)

        # Copies: the cache's arrays are read-only, which numba compiles kernels for anew.
        arrays = label_free(key, compute, copy=True)
        fields = dict(zip((f.name for f in _ARRAY_FIELDS), arrays, strict=True))
        return cls(**fields, max_conditions=_max_conditions(nominal))

    def kernel_args(self, y: np.ndarray, n_classes: int) -> tuple:
        """The leading arguments of :func:`widefs.rules._beam.beam_round`: the bins, the
        class codes ``y`` and ``n_classes``, the static candidates, the walk order and the
        counting table's scratch (None when walking is never dearer: see ``beam_round``)."""
        n, F = self.bins.shape
        cells = int(self.feature_n_bins.sum()) * n_classes
        # The kernel counts into the table only when 2 cells + covered rows x F < n x F.
        table = np.empty(cells, dtype=np.int64) if 2 * cells < n * F else None
        return (
            self.bins,
            y,
            n_classes,
            self.feature_nominal,
            self.feature_offset,
            self.feature_n_bins,
            self.feature_first_candidate,
            self.cand_feature,
            self.cand_op,
            self.cand_bin,
            self.walk_rows,
            self.walk_bins,
            self.walk_distinct,
            table,
        )

    def coverage(self, sids: np.ndarray) -> np.ndarray:
        """Rows satisfying every condition in ``sids`` (all rows for an empty rule)."""
        out = np.ones(self.bins.shape[0], dtype=bool)
        for s in np.asarray(sids).tolist():
            col = self.bins[:, self.cand_feature[s]]
            b = self.cand_bin[s]
            op = self.cand_op[s]
            out &= (col == b) if op == EQ else ((col >= 0) & (col <= b)) if op == LE else (col > b)
        return out


def _candidates(nominal, n_bins, offset) -> tuple[np.ndarray, ...]:
    """``(feature_first_candidate, cand_feature, cand_op, cand_bin)`` of the static
    candidates, in generation order: attribute, then ``==``, ``<=``, ``>``, then value. Each
    attribute's candidates are runs (its ``==`` run, or its ``<=`` run then its ``>`` run)
    over its bins in order, so each array is one ``repeat`` of a value per run (the bins:
    plus the position), not a gather per candidate (~4x faster: a fold's CN2 table on colon
    holds 200,000 candidates)."""
    F = nominal.size
    runs = np.where(nominal, 1, 2)
    first_run = np.cumsum(runs) - runs
    run_feature = np.repeat(np.arange(F, dtype=np.intp), runs)
    # A numeric attribute's second run is its > conditions.
    second = np.zeros(run_feature.size, dtype=bool)
    second[first_run[~nominal] + 1] = True
    run_op = np.where(nominal[run_feature], EQ, np.where(second, GT, LE)).astype(np.intp)
    run_length = n_bins[run_feature]
    run_start = (np.cumsum(run_length) - run_length).astype(np.intp)
    cand_feature = np.repeat(run_feature, run_length)
    cand_op = np.repeat(run_op, run_length)
    # Bin = the attribute's first bin + the position within its run.
    cand_bin = np.repeat(offset[run_feature] - run_start, run_length)
    cand_bin += np.arange(cand_bin.size, dtype=np.intp)
    return run_start[first_run], cand_feature, cand_op, cand_bin


def _distinct(walk_bins: np.ndarray, nominal: np.ndarray) -> np.ndarray:
    """Numeric attributes whose walk has no missing value and no two equal bins."""
    # A walk is in increasing bin order with the missing values (-1) last.
    rising = (np.diff(walk_bins, axis=1) > 0).all(axis=1)
    return ~np.asarray(nominal, dtype=bool) & rising & (walk_bins >= 0).all(axis=1)


def _max_conditions(nominal: np.ndarray) -> int:
    """One ``==`` per nominal attribute, one ``<=`` and one ``>`` per numeric one."""
    return max(1, int(np.sum(np.where(nominal, 1, 2))))


# Every field but ``max_conditions``: the arrays a shared table is stored as.
_ARRAY_FIELDS = tuple(f for f in dataclasses.fields(CandidateTable) if f.name != "max_conditions")
