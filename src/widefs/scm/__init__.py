"""Set Covering Machines of decision stumps with risk bounds (Shah, Marchand & Corbeil 2010).

Learners (scikit-learn classifiers):

- :class:`SampleCompressionSCM` — hard greedy, utility ``|Q| - p|R|``, thresholds at training
  values, sample-compression bound (eqs. 4-5);
- :class:`OccamSCM` — hard greedy with a dyadic threshold code, Occam's razor bound (Theorem 2);
- :class:`PACBayesSCM` — soft greedy over margin intervals, Gibbs and Bayes classifiers,
  PAC-Bayes bound (Theorem 5).

More than two classes: a decision list of binary machines (``machines_``) with the sum of
their bounds as its bound. A matrix of 0/1 values (presence/absence) is packed in bits and
learned by population counts (:func:`pack_binary` packs it once for several fits). Each
fitted model has ``rules_`` (:class:`StumpRule`, with the features ``equivalent`` to each
rule on the training data), ``risk_bound_`` and ``get_support()``.
Bounds as pure functions: :func:`occam_bound`, :func:`sample_compression_bound`,
:func:`pac_bayes_bound`. Persistence: ``model.to_json()`` / :func:`from_json` (validated
field by field). A readable summary for reports: :func:`describe_model`.
"""

from widefs.scm import _serialize_list  # noqa: F401  (registers the decision-list JSON layout)
from widefs.scm._bitpacked import PackedBinary, pack_binary
from widefs.scm._bounds import (
    dyadic_bits,
    dyadic_threshold,
    log_zeta,
    occam_bound,
    pac_bayes_bound,
    sample_compression_bound,
)
from widefs.scm._describe import BoundSummary, describe_bound, describe_model
from widefs.scm._multiclass import n_candidate_machines
from widefs.scm._occam import OccamSCM
from widefs.scm._pac_bayes import PACBayesSCM
from widefs.scm._rules import StumpRule
from widefs.scm._sample_compression import SampleCompressionSCM
from widefs.scm._serialize import from_json

__all__ = [
    "BoundSummary",
    "OccamSCM",
    "PACBayesSCM",
    "PackedBinary",
    "SampleCompressionSCM",
    "StumpRule",
    "describe_bound",
    "describe_model",
    "dyadic_bits",
    "dyadic_threshold",
    "from_json",
    "log_zeta",
    "n_candidate_machines",
    "occam_bound",
    "pac_bayes_bound",
    "pack_binary",
    "sample_compression_bound",
]
