"""The comparison's selection pipelines, fitted on the rows of a fold in place.

``make_pipeline(selector, classifier)`` fitted on a fold's copy of its training rows holds
that copy (and the selector its own float64 copy): about 1 GB per worker on 80 x 1,000,000
float32. A selector that reads rows in place (``_fit_rows``) selects from the whole matrix;
the classifier then gets the training rows of the selected columns only.
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.pipeline import Pipeline, make_pipeline

__all__ = ["RowsPipeline", "rows_pipeline"]


class RowsPipeline(Pipeline):
    """:class:`sklearn.pipeline.Pipeline` that also fits on rows of a matrix in place.

    ``fit`` and ``predict`` are Pipeline's. A fold of a cross-validation (which holds the
    whole matrix and its row indices) calls ``_fit_rows`` and ``_predict_rows`` instead:
    when the first step is a selector with ``_fit_rows``, it selects reading the rows in
    place and the later steps see only the selected columns of those rows (the same values
    a fit on ``X[rows]`` gives them, so the same fitted pipeline and predictions).

    Parameters
    ----------
    steps : list of (str, estimator) tuples
        As in :class:`~sklearn.pipeline.Pipeline`.
    transform_input, memory, verbose
        As in :class:`~sklearn.pipeline.Pipeline`.

    Attributes
    ----------
    named_steps, classes_, n_features_in_
        As in :class:`~sklearn.pipeline.Pipeline`.

    Examples
    --------
    >>> from sklearn.feature_selection import SelectKBest
    >>> from sklearn.naive_bayes import GaussianNB
    >>> X = np.array([[0.0, 5.0], [0.1, 1.0], [1.0, 4.0], [1.1, 2.0], [0.0, 3.0]])
    >>> pipe = rows_pipeline(SelectKBest(k=1), GaussianNB())
    >>> pipe._fit_rows(X, [0, 0, 1, 1], np.arange(4))._predict_rows(X, [4]).tolist()
    [0]
    """

    def _fit_rows(self, X, y, rows):
        """``fit(X[rows], y)`` of a C-ordered numpy ``X``."""
        rows = np.asarray(rows, dtype=np.intp)
        name, first = self.steps[0]
        if not hasattr(first, "_fit_rows") or len(self.steps) < 2:
            return self.fit(X[rows], y)
        self.steps[0] = (name, first._fit_rows(X, y, rows))
        tail = Pipeline(self.steps[1:], memory=self.memory, verbose=self.verbose)
        tail.fit(self._selected(X, rows), y)
        self.steps[1:] = tail.steps
        return self

    def _predict_rows(self, X, rows):
        """``predict(X[rows])`` of a C-ordered numpy ``X``, reading the selected columns."""
        rows = np.asarray(rows, dtype=np.intp)
        if not hasattr(self.steps[0][1], "_fit_rows") or len(self.steps) < 2:
            return self.predict(X[rows])
        return Pipeline(self.steps[1:]).predict(self._selected(X, rows))

    def _selected(self, X, rows):
        """The first step's ``transform(X[rows])``, from the selected columns of the rows."""
        columns = self.steps[0][1].get_support(indices=True)
        if columns.size == 0:  # as SelectorMixin.transform says it
            warnings.warn(
                "No features were selected: either the data is too noisy or the selection "
                "test too strict.",
                UserWarning,
                stacklevel=2,
            )
        return X[np.ix_(rows, columns)]


def rows_pipeline(*steps) -> RowsPipeline:
    """``make_pipeline(*steps)`` (the same step names) as a :class:`RowsPipeline`."""
    return RowsPipeline(make_pipeline(*steps).steps)
