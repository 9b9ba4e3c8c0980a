"""Fits on rows of a matrix read in place: a fold of a cross-validation without its copy.

A cross-validation holds the whole matrix and each fold's row indices; fitting on
``X[train]`` copies the training rows of every feature (and the errors statistic widens the
copy to float64: 640 MB per fold of 100 x 1,000,000 float32). Here the statistic reads
blocks of columns of the training rows instead, widened one block at a time: the same
fitted attributes, float for float (per-feature statistics do not depend on the blocks).
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets

from widefs._utils import RowsOf, array_key
from widefs.exceptions import NothingSelectedWarning
from widefs.univariate._error_counts import best_score, error_counts_key
from widefs.univariate._grouped_null import check_selector_groups

__all__ = ["finish_fit", "screen_fit_rows", "selector_fit_rows"]


def finish_fit(selector, stacklevel: int):
    """A :class:`DiscriminativeSelector` fit's last steps: search score, cut, selection
    (a warning at ``stacklevel`` when nothing is selected)."""
    selector.n_scored_ = int((~selector.constant_features_).sum())
    selector.search_score_ = best_score(selector.scores_, ~selector.constant_features_)
    selector.threshold_, selector.support_ = selector._select(selector.threshold)
    if not selector.support_.any():
        warnings.warn(selector._nothing_selected_message(), NothingSelectedWarning, stacklevel)
    return selector


def selector_fit_rows(selector, X, y, rows):
    """``selector.fit(X[rows], y)`` without the copy of ``X[rows]``: the same fitted selector.

    The errors statistic of a float ``X`` reads the training rows a block of columns at a
    time; the other statistics, inputs ``fit`` would refuse (so that its message is the
    one given) and parallel fits (which would ship the matrix to every worker) fit the copy.
    """
    from joblib import effective_n_jobs

    rows = np.asarray(rows, dtype=np.intp)
    y = np.asarray(y)
    selector.statistic_ = selector._resolve_statistic()
    if (
        selector.statistic_ != "errors"
        or effective_n_jobs(selector.n_jobs) > 1
        or X.dtype.kind != "f"
        or y.shape != rows.shape
        or rows.size < 2
        or np.unique(y).size < 2
    ):
        return selector.fit(X[rows], y)
    check_classification_targets(y)
    selector.classes_, y_codes = np.unique(y, return_inverse=True)
    selector.n_features_in_ = X.shape[1]
    if hasattr(selector, "feature_names_in_"):
        del selector.feature_names_in_
    check_selector_groups(selector, None, y_codes)
    rng = check_random_state(selector.random_state)
    n_classes = selector.classes_.size

    def key():  # the sharing key of fit's, with the rows: fits of the same fold share
        return error_counts_key(selector, X, y_codes, n_classes, None) + array_key(rows)

    selector._fit_errors(RowsOf(X, rows), y_codes, True, rng, key=key)
    return finish_fit(selector, stacklevel=5)


def screen_fit_rows(screen, X, y, rows):
    """``screen.fit(X[rows], y)`` of a :class:`ClassDifferenceScreen`, the rows read in place.

    The screen reads an out-of-core matrix a block of columns at a time with the results of
    its in-memory copy; the rows are given to it as such a matrix. With ``counts="auto"``
    (which reads every value first) or ``True`` (voom needs every library size) the screen
    fits the copy.
    """
    rows = np.asarray(rows, dtype=np.intp)
    if screen.counts is not False or X.dtype.kind != "f" or rows.size < 2:
        return screen.fit(X[rows], y)
    return screen.fit(RowsOf(X, rows), y)
