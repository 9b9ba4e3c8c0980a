"""Real wide and UCI datasets bundled with widefs, with their provenance as DESCR.

:func:`load_dataset` returns a dataset as a Bunch or ``(X, y)``, :func:`list_datasets` lists
them, :func:`make_wide_classification` draws a synthetic wide problem. Nothing downloads at
run time.
"""

from widefs.datasets._loaders import list_datasets, load_dataset
from widefs.datasets._synthetic import make_wide_classification

__all__ = ["list_datasets", "load_dataset", "make_wide_classification"]
