"""widefs: feature selection and sparse classifiers for wide data.

Few samples, many features: widefs offers methods that account for how much
searching was done when features were picked, and report it in numbers.

Subpackages
-----------
stats            binomial tails and inversions, chance order statistics, multiple testing
stumps           the shared threshold-scan kernel over presorted features
univariate       DiscriminativeSelector (chance-aware discriminative feature selection)
datasets         bundled real datasets (load_dataset, list_datasets)
cli              the ``widefs`` command line
"""

__version__ = "0.1.0"

__all__ = ["__version__"]
