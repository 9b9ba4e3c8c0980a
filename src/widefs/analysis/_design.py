"""The study design of an analysis: checked once, passed to every part that can use it.

``covariates`` and ``groups`` reach the class-difference screen (covariates in its linear
model, nulls that respect the groups), the nested cross-validation (no group on both sides
of a split; covariates to the steps that take them), the search certificates (relabellings
that respect the groups) and the chance screen's permutation null. What a part cannot use it
says in words (:attr:`DesignSummary.statements`); nothing ignores a design silently.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["AnalysisDesign", "DesignSummary", "check_design", "design_folds"]

#: The groups case in words, keyed by the exchangeability case.
GROUP_CASES = {
    "independent": "no groups: samples are independent",
    "within groups": "blocks holding several classes (pairs, blocks): labels exchanged "
    "within groups, groups kept whole in every split",
    "between groups": "repeated samples, one class per group: whole groups exchanged, "
    "groups kept whole in every split",
}


@dataclass(frozen=True)
class DesignSummary:
    """What an analysis did with the study design, for a report.

    ``case``: ``"independent"``, ``"within groups"`` or ``"between groups"``;
    ``groups_case``: that case in words; ``covariates``: the covariates' names;
    ``n_groups``: groups given (0 without); ``columns``: the screen's linear model;
    ``statements``: part (``chance``, ``scm``, ``rules``, ``cefs``, ``compare``,
    ``certificates``) -> what it did with the design, in one sentence.
    """

    case: str
    groups_case: str
    covariates: tuple
    n_groups: int
    columns: tuple
    statements: dict = field(default_factory=dict)


@dataclass(frozen=True)
class AnalysisDesign:
    """A checked design: the raw inputs and its summary (statements filled per part)."""

    covariates: object
    groups: Any  # ndarray of the group labels, or None
    case: str
    columns: tuple
    covariate_names: tuple
    n_groups: int

    def summary(self, methods) -> DesignSummary:
        return DesignSummary(
            case=self.case,
            groups_case=GROUP_CASES[self.case],
            covariates=self.covariate_names,
            n_groups=self.n_groups,
            columns=self.columns,
            statements=statements(self, methods),
        )


def _frame(covariates, n: int):
    """Covariates as a DataFrame of ``n`` rows (a mapping, a DataFrame or an array)."""
    import numpy as np
    import pandas as pd

    if covariates is None:
        return None
    if isinstance(covariates, pd.DataFrame):
        return covariates.reset_index(drop=True)
    if isinstance(covariates, dict):
        return pd.DataFrame({str(k): np.asarray(v) for k, v in covariates.items()})
    arr = np.asarray(covariates)
    arr = arr[:, None] if arr.ndim == 1 else arr
    return pd.DataFrame(arr, columns=[f"covariate {j}" for j in range(arr.shape[1])])


def check_design(y, covariates, groups, X=None) -> AnalysisDesign | None:
    """The study design of an analysis, checked; None when neither part is given.

    ``covariates`` (a DataFrame, a dict of columns or an array) are adjusted for by the
    class-difference screen (its linear model), also inside the comparison's folds; the
    other methods take none. ``groups`` (the subject, pair or patient of every sample) make
    the screen's tests, the comparison's folds and the certificates' relabellings respect
    them, within groups or between whole groups (the summary's ``case``).

    Parameters
    ----------
    y : array_like of shape (n_samples,)
    covariates : DataFrame, dict of columns or array_like, optional
    groups : array_like of shape (n_samples,), optional
    X : array_like, optional
        The data: a design needs it in memory (a numpy array).

    Returns
    -------
    AnalysisDesign or None

    Raises
    ------
    ValueError
        Naming the column that has missing values, is constant, confounded with the classes
        or redundant (:func:`widefs.stats.resolve_design`), or when ``groups`` does not hold
        one label per sample.

    Examples
    --------
    >>> design = check_design(["a", "a", "b", "b"], {"age": [40, 51, 47, 38]}, None)
    >>> design.case, design.columns
    ('independent', ('intercept', 'class[b]', 'age'))
    """
    if covariates is None and groups is None:
        return None
    import numpy as np

    if X is not None and not isinstance(X, np.ndarray):
        raise ValueError("covariates and groups need the data in memory (not the scm-only store)")
    from widefs.stats import resolve_design

    n = len(y)
    frame = _frame(covariates, n)
    if frame is not None and len(frame) != n:
        raise ValueError(f"covariates must have one row per sample ({n}); got {len(frame)}")
    g = None if groups is None else np.asarray(groups)
    design, scheme = resolve_design(y, frame, g)
    return AnalysisDesign(
        covariates=frame,
        groups=g,
        case=scheme.case,
        columns=design.column_names,
        covariate_names=design.covariate_names,
        n_groups=0 if g is None else int(np.unique(g.astype(str)).size),
    )


def design_folds(y, design: AnalysisDesign | None, folds: int) -> int:
    """Folds that every class can fill with whole groups (``folds`` without groups)."""
    import numpy as np

    _, codes = np.unique(y, return_inverse=True)
    if design is None or design.groups is None:
        return int(min(folds, np.bincount(codes).min()))
    g = np.unique(design.groups.astype(str), return_inverse=True)[1]
    if design.case == "between groups":
        per_class = [np.unique(g[codes == c]).size for c in range(codes.max() + 1)]
        return int(max(2, min(folds, min(per_class))))
    return int(max(2, min(folds, np.unique(g).size)))


def statements(design: AnalysisDesign, methods) -> dict:
    """Part -> what it did with the design, in one sentence."""
    has_cov, has_groups = design.covariates is not None, design.groups is not None
    what = " and ".join(w for w, on in (("covariates", has_cov), ("groups", has_groups)) if on)
    ignored = (
        "fitted on every sample without the design (a descriptive fit; "
        "its numbers treat the samples as independent)"
    )
    out = {}
    if "chance" in methods:
        out["chance"] = (
            f"the class-difference screen (FDR and Bonferroni) used the {what}: covariates in "
            "its linear model, permutations that respect the groups; "
            + (
                "the validation-error selector kept every group on one side of its halves and "
                "its thresholds used the permutation null with relabellings that respect the "
                "groups; its analytic null (shown beside) and the leave-one-out curve treat "
                "the samples as independent"
                if has_groups
                else "the validation-error selector, its two nulls and the leave-one-out "
                "curve take no covariates (they did not use them)"
            )
        )
    for part, name in (("scm", "the Set Covering Machines"), ("cefs", "CEFS")):
        if part in methods:
            out[part] = f"{name}: {ignored}"
    if "rules" in methods:
        out["rules"] = (
            "CN2-POE: its held-out split kept every group on one side; the rules take no covariates"
            if has_groups
            else f"CN2-POE: {ignored}"
        )
    if "compare" in methods:
        out["compare"] = (
            "nested cross-validation "
            + ("kept every group on one side of every split; " if has_groups else "")
            + (
                "the covariates reached the class-difference screen (FDR 5% + naive Bayes); "
                "the other methods do not take covariates"
                if has_cov
                else "no covariates"
            )
        )
    out["certificates"] = (
        "relabellings respect the groups" if has_groups else "labels permuted freely"
    ) + ("; the searches take no covariates, so they did not use them" if has_cov else "")
    return out
