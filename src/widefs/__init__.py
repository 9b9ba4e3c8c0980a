"""widefs: feature selection and sparse classifiers for wide data.

Few samples, many features: widefs offers methods that account for how much
searching was done when features were picked, and report it in numbers.

Subpackages
-----------
stats            binomial tails and inversions, chance order statistics, multiple testing
stumps           the shared threshold-scan kernel over presorted features
univariate       DiscriminativeSelector (chance-aware discriminative feature selection)
search           wrapper subset search (SFS, SBS, genetic algorithm) with leave-one-out evaluators
ensemble         ClassSpecificEnsemble (class-specific ensemble feature selection, CEFS)
rules            CN2 rule induction with process-oriented estimation (CN2-POE)
scm              Set Covering Machines of decision stumps with their risk bounds
model_selection  nested evaluation, search certificates, the prior fallback classifier
analysis         analyse(X, y): the numbers of ``widefs run`` (chance, fits, certificates)
datasets         bundled real datasets (load_dataset, list_datasets)
plotting         the figures of the report and the docs
utils            seeds, parallel calls, shared label-free work, column blocks
exceptions       widefs's warnings and errors
cli              the ``widefs`` command line

The paper reproductions are a separate package of the distribution, ``widefs_reproduce``
(``widefs reproduce PAPER``).
"""

__version__ = "0.1.0"

__all__ = ["__version__"]
