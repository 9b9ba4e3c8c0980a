"""Real wide and UCI datasets bundled with widefs, with their provenance as DESCR."""

from widefs.datasets._loaders import dataset_path, list_datasets, load_dataset, read_manifest
from widefs.datasets._synthetic import make_wide_classification

__all__ = [
    "dataset_path",
    "list_datasets",
    "load_dataset",
    "make_wide_classification",
    "read_manifest",
]
