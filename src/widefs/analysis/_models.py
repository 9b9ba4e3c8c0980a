"""The Set Covering Machines, CN2-POE and CEFS fitted on the data, with what they claim."""

from __future__ import annotations

import math
import warnings

import numpy as np

from widefs._utils import RowsOf, top_k_mask
from widefs.analysis._result import CefsAnalysis, RulesAnalysis, ScmAnalysis, ScmBound
from widefs.analysis._spec import PRESCREEN

__all__ = ["TEST_FRACTION", "cefs_analysis", "rules_analysis", "scm_analysis", "scm_bounds"]

TEST_FRACTION = 0.33  # Domingos (1999): 67% training, 33% held out
#: Largest float64 copy (bytes) of an in-memory matrix the SCMs are fitted on; above it they
#: read the matrix a block of columns at a time (100 x 167,772 features and more).
SCM_IN_MEMORY_BYTES = 2**27
SCM_NAMES = {
    "PAC-Bayes SCM": "PACBayesSCM",
    "sample-compression SCM": "SampleCompressionSCM",
    "Occam SCM": "OccamSCM",
}


def scm_bounds(models: dict, majority_error: float) -> list[ScmBound]:
    """Each fitted SCM's training risk and bound, and whether the bound is vacuous.

    The verdict is the SCM's own (:func:`widefs.scm.describe_bound`): a bound at or above the
    majority-class error certifies nothing a classifier without features would not reach.
    """
    from widefs.scm import describe_bound

    out = []
    for name, model in models.items():
        training, bound, vacuous = describe_bound(model, majority_error)
        out.append(ScmBound(name, len(model.rules_), training, bound, vacuous))
    return out


def scm_analysis(X, y, feature_names) -> ScmAnalysis:
    """The three Set Covering Machines fitted on all examples (a store packed in bits).

    A matrix whose float64 copy would exceed :data:`SCM_IN_MEMORY_BYTES` is read as an
    out-of-core one (the same machines: the SCMs presort one block of columns at a time
    instead of holding a float64 copy and its presort, three times the copy's size).
    """
    import pandas as pd

    import widefs.scm as scm
    from widefs.exceptions import HeuristicBoundWarning

    names = None
    if isinstance(X, np.ndarray) and 8 * X.size <= SCM_IN_MEMORY_BYTES:
        X = pd.DataFrame(X, columns=[str(c) for c in feature_names])
    else:  # out of core: read where it lies, packed once; names looked up when described
        X = RowsOf(X) if isinstance(X, np.ndarray) else X
        packed = scm.pack_binary(X)
        X = X if packed is None else packed
        names = feature_names
    models = {}
    for name, cls in SCM_NAMES.items():
        with warnings.catch_warnings():
            # Without an a-priori feature range the bound takes the training range.
            warnings.simplefilter("ignore", HeuristicBoundWarning)
            models[name] = getattr(scm, cls)().fit(X, y)
    _, counts = np.unique(y, return_counts=True)
    majority_error = 1 - counts.max() / counts.sum()
    return ScmAnalysis(
        models=models,
        bounds=scm_bounds(models, majority_error),
        descriptions={
            name: scm.describe_model(m, feature_names=names) for name, m in models.items()
        },
        majority_error=majority_error,
        n_candidate_machines=scm.n_candidate_machines(counts.size),
    )


def _frame(X, feature_names):
    import pandas as pd

    return pd.DataFrame(X, columns=[str(c) for c in feature_names])


def _f_screen(X, y_train, train) -> np.ndarray:
    """The F pre-screen of the training rows ``train`` of ``X``, read in place (a block of
    columns at a time): ``SelectKBest(f_scores_blockwise, k=PRESCREEN)`` fitted on
    ``X[train]``, the same mask without that copy."""
    from widefs.model_selection import f_scores_blockwise

    return top_k_mask(f_scores_blockwise(RowsOf(X, np.asarray(train)), y_train)[0], PRESCREEN)


def rules_analysis(X, y, feature_names, *, seed, groups=None) -> RulesAnalysis:
    """CN2-POE on a 67/33 split, behind the F pre-screen (fitted on the training part) when wide.

    The held-out part holds at least one example per class (so the stratified split exists
    for tiny data, where every class has at least two examples). The matrix is read in
    place: the screen a block of columns at a time, CN2 the kept columns of each part.
    """
    from widefs.rules import rules_summary

    n_classes = np.unique(y).size
    n_test = math.ceil(TEST_FRACTION * y.size)
    test_size = TEST_FRACTION if n_test >= n_classes else n_classes
    wide = X.shape[1] > PRESCREEN
    summary = rules_summary(
        np.asarray(X), y, test_size=test_size, random_state=seed,
        prescreen=_f_screen if wide else None, groups=groups, feature_names=feature_names,
    )  # fmt: skip
    return RulesAnalysis(
        summary=summary,
        test_size=test_size,
        enlarged=test_size != TEST_FRACTION,
        better_than_default=summary.test_error < summary.default_error,
        prescreened=PRESCREEN if wide else None,
    )


def cefs_analysis(X, y, feature_names, *, seed) -> CefsAnalysis:
    """Class-specific ensemble feature selection on all examples (pre-screened when wide).

    No accuracy is claimed from this fit, so the pre-screen may see every example. Wide, the
    matrix is read in place: ``Prescreened(estimator, k=PRESCREEN)``'s screen a block of
    columns at a time, the ensemble fitted on the kept columns only.
    """
    from widefs.ensemble import ClassSpecificEnsemble
    from widefs.model_selection import f_scores_blockwise

    wide = X.shape[1] > PRESCREEN
    model = ClassSpecificEnsemble(random_state=seed)
    if wide:
        X = np.asarray(X)
        kept = np.flatnonzero(top_k_mask(f_scores_blockwise(X, y)[0], PRESCREEN))
        model.fit(_frame(X[:, kept], [feature_names[c] for c in kept]), y)
    else:
        model.fit(_frame(X, feature_names), y)
    return CefsAnalysis(
        model=model,
        class_subsets={c: list(map(str, s)) for c, s in model.class_subsets_.items()},
        overall_subset=list(map(str, model.overall_subset_)),
        prescreened=PRESCREEN if wide else None,
    )
