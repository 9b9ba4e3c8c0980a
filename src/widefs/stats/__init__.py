"""Pure, vectorized statistics shared by all widefs methods.

- chance order statistics of M random classifiers (Palatucci & Carlson 2008):
  :func:`expected_min_errors`, :func:`highest_chance_accuracy`,
  :func:`multiplicity_gap`, :func:`mgm_threshold`, :func:`expected_errors`,
  the label-blind chance error rate :func:`chance_error_rate` and the permutation
  p-values :func:`permutation_pvalues` of the calibrated null;
- pooled permutation p-values, one null sample for all features
  (:func:`pooled_permutation_pvalues`), and the check of the exchangeability they assume
  (:func:`null_heterogeneity`);
- binomial tails and Langford's inversion, Bernoulli KL and its inverse:
  :func:`binomial_tail`, :func:`binomial_tail_inversion`, :func:`kl_divergence`,
  :func:`kl_inverse_upper`, :func:`log_binomial_coefficient`;
- moderated t and F statistics (limma's empirical Bayes, Smyth 2004):
  :func:`linear_model_fit`, :func:`fit_f_dist`, :func:`squeeze_var`, :func:`moderated_t`,
  :func:`moderated_f`, :func:`trigamma_inverse`; counts to log-CPM with precision weights
  (:func:`voom`, Law et al. 2014) and :func:`looks_like_counts`; exact conditional p-values
  of two-valued features (:func:`binary_exact_pvalues`) and Tarone's testable set
  (:func:`tarone_testable`);
- multiple-testing adjustments: :func:`benjamini_hochberg`, :func:`bonferroni`,
  :func:`reject_at`.
"""

from widefs.stats._binomial import (
    binomial_tail,
    binomial_tail_inversion,
    kl_divergence,
    kl_inverse_upper,
    log_binomial_coefficient,
)
from widefs.stats._chance import (
    chance_error_rate,
    expected_errors,
    expected_min_errors,
    highest_chance_accuracy,
    mgm_threshold,
    multiplicity_gap,
    permutation_pvalues,
)
from widefs.stats._exact import (
    binary_exact_pvalues,
    binary_table_distribution,
    tarone_testable,
)
from widefs.stats._moderated import (
    LinearModelFit,
    ModeratedTest,
    fit_f_dist,
    linear_model_fit,
    moderated_f,
    moderated_t,
    squeeze_var,
    trigamma_inverse,
)
from widefs.stats._multitest import benjamini_hochberg, bonferroni, reject_at
from widefs.stats._pooled import null_heterogeneity, pooled_permutation_pvalues
from widefs.stats._voom import looks_like_counts, lowess, voom

__all__ = [
    "LinearModelFit",
    "ModeratedTest",
    "benjamini_hochberg",
    "binary_exact_pvalues",
    "binary_table_distribution",
    "binomial_tail",
    "binomial_tail_inversion",
    "bonferroni",
    "chance_error_rate",
    "expected_errors",
    "expected_min_errors",
    "fit_f_dist",
    "highest_chance_accuracy",
    "kl_divergence",
    "kl_inverse_upper",
    "linear_model_fit",
    "log_binomial_coefficient",
    "looks_like_counts",
    "lowess",
    "mgm_threshold",
    "moderated_f",
    "moderated_t",
    "multiplicity_gap",
    "null_heterogeneity",
    "permutation_pvalues",
    "pooled_permutation_pvalues",
    "reject_at",
    "squeeze_var",
    "tarone_testable",
    "trigamma_inverse",
    "voom",
]
