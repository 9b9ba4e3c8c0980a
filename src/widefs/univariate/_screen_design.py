"""The class-difference screen with a study design: covariates in the model, nulls that keep groups.

With ``covariates`` or ``groups`` given to :meth:`ClassDifferenceScreen.fit`, every kind of
feature gets a test that uses the design (:func:`widefs.stats.resolve_design` checks it first
and says which case applies):

- **gaussian** and **counts** features: limma's moderated F of the class coefficients of the
  linear model ``[intercept | classes | covariates | blocks]`` (voom's weights computed for
  that design), the prior fitted on these features alone. Groups holding several classes
  (pairs, blocks) enter as fixed effects; groups holding one class each (repeated samples of
  a patient) are averaged into one observation per group, so patients are the replicates.
- **two_valued** and **ranked** (on mid-ranks) features: a permutation test of the ordinary F
  of the class coefficients whose relabellings respect the groups (within groups, or whole
  groups of equal size) and, with covariates, permute the residuals of the model without
  the class (Freedman and Lane 1983; :func:`widefs.stats.freedman_lane_test`). Without
  covariates this is the exact permutation test of the design (up to Monte Carlo).
- the spread test is off: the spread of residuals adjusted for covariates or blocks has no
  test here, and the fitted screen says so.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from widefs._utils import (
    block_width,
    column_min_max,
    is_lazy_matrix,
    iter_column_blocks,
    load_columns,
)
from widefs.stats import (
    ExchangeabilityScheme,
    StudyDesign,
    fit_f_dist,
    freedman_lane_test,
    linear_model_fit,
    moderated_f,
    n_relabellings,
    resolve_design,
    voom,
)
from widefs.univariate._kinds import COUNTS, GAUSSIAN, RANKED, TWO_VALUED, class_design, first_pass

__all__ = ["GROUP_WORDS", "ScreenDesign", "no_design", "screen_design"]

#: How ``groups`` was used, in the words of a report (keyed by the exchangeability case).
GROUP_WORDS = {
    "independent": "no groups (samples independent)",
    "within groups": "blocks (labels exchanged within groups)",
    "between groups": "repeated samples (whole groups exchanged)",
}
#: Label permutations of the permutation branch: enough for Bonferroni over the features it
#: tests at the screen's level, at least MIN_DRAWS, at most MAX_DRAWS.
MIN_DRAWS, MAX_DRAWS = 999, 9999


@dataclass(frozen=True)
class ScreenDesign:
    """A checked design of one fit: the model, how labels are exchanged, the raw inputs."""

    design: StudyDesign
    scheme: ExchangeabilityScheme
    covariates: object
    groups: object

    @property
    def case(self) -> str:
        return self.scheme.case

    def describe(self, statement: str) -> dict:
        """The screen's ``design_``."""
        return {
            "case": self.case,
            "groups": GROUP_WORDS[self.case],
            "covariates": self.design.covariate_names,
            "columns": self.design.column_names,
            "statement": statement,
        }


def no_design(classes) -> dict:
    """``design_`` of a fit without covariates or groups."""
    return {
        "case": "independent",
        "groups": GROUP_WORDS["independent"],
        "covariates": (),
        "columns": ("intercept", *(f"class[{c}]" for c in classes[1:])),
        "statement": "",
    }


def screen_design(labels, covariates, groups) -> ScreenDesign | None:
    """The checked design of ``(labels, covariates, groups)``, None when neither is given.

    Raises ``ValueError`` naming a covariate (or ``groups``) that has missing values, is
    constant, confounded with the classes or redundant, as :func:`resolve_design` does.
    """
    if covariates is None and groups is None:
        return None
    design, scheme = resolve_design(labels, covariates, groups)
    return ScreenDesign(design, scheme, covariates, None if groups is None else np.asarray(groups))


def _group_means(values, codes):
    onehot = (codes[None, :] == np.arange(codes.max() + 1)[:, None]).astype(np.float64)
    if not is_lazy_matrix(values):
        return (onehot @ np.asarray(values, dtype=np.float64)) / onehot.sum(axis=1)[:, None]
    # Sparse, out of core or voom's per-block log-CPM: a block of columns at a time.
    n, m = values.shape
    sums = np.empty((onehot.shape[0], m))
    for cols in iter_column_blocks(m, block_width(n)):
        sums[:, cols] = onehot @ load_columns(values, cols)
    return sums / onehot.sum(axis=1)[:, None]


def _parametric(screen, X, codes, plan: ScreenDesign) -> str:
    """Moderated F of the design's class coefficients for gaussian and counts features."""
    D = plan.design.matrix
    between = plan.scheme.kind == "between"
    terms = [
        t
        for t, on in (
            ("the covariates", plan.covariates is not None),
            ("the groups as blocks", plan.case == "within groups"),
        )
        if on
    ]
    weights, words = None, " and ".join(terms) + " in the linear model"
    if screen.counts_:
        # voom's weights are for the model fitted; with group means the model is on groups,
        # so the weights of the class-only model are dropped after averaging the log-CPM.
        sample_design = class_design(codes, screen.classes_.size) if between else D
        X, weights = voom(X, sample_design)
    if between:
        X = _group_means(X, plan.scheme.group_codes)
        weights, words = None, "one averaged observation per group (the replicates)"
        if plan.covariates is not None:
            words += " and the covariates in the linear model"
    fit = linear_model_fit(X, D, weights=weights)
    modelled = (screen.kinds_ == GAUSSIAN) | (screen.kinds_ == COUNTS)
    prior = fit_f_dist(fit.variances[modelled], fit.df_residual[modelled])
    test = moderated_f(fit, list(plan.design.class_coefficients), prior=prior)
    screen.prior_ = {"location": prior, "spread": None}
    screen.location_statistics_[modelled] = test.statistics[modelled]
    screen.pvalues_[modelled] = np.minimum(test.pvalues[modelled], 1.0)
    screen.min_pvalues_[modelled] = 0.0
    kinds = "counts (voom log-CPM)" if screen.counts_ else "gaussian"
    if screen.counts_ and between:
        kinds = "counts (voom log-CPM, unweighted after averaging)"
    return f"{kinds} features: limma's moderated F of the class coefficients with {words}"


def n_draws(n_tested: int, alpha: float) -> int:
    """Label permutations of the permutation branch for ``n_tested`` features at ``alpha``."""
    return int(min(MAX_DRAWS, max(MIN_DRAWS, np.ceil(n_tested / alpha))))


def _permutation(screen, X, codes, plan: ScreenDesign, rng) -> str:
    """Design-respecting permutation p-values of the two-valued and ranked features."""
    from scipy.stats import rankdata

    columns = np.flatnonzero((screen.kinds_ == TWO_VALUED) | (screen.kinds_ == RANKED))
    if not columns.size:
        return ""
    values = load_columns(X, columns) if is_lazy_matrix(X) else np.asarray(X[:, columns], float)
    ranked = screen.kinds_[columns] == RANKED
    values[:, ranked] = rankdata(values[:, ranked], axis=0)
    n_relabel = n_relabellings(codes, plan.groups)
    draws = n_draws(int(np.sum(screen.kinds_ != 0)), screen.alpha)
    exchange = {
        "independent": "labels permuted",
        "within groups": "labels exchanged within groups",
        "between groups": "whole groups of equal size exchanged",
    }[plan.case]
    scheme = "Freedman-Lane permutations of the residuals of the model without the class"
    if plan.covariates is None:
        scheme = "permutations of the ordinary F of the class coefficients"
    what = f"two-valued and ranked (mid-rank) features: {scheme}, {exchange}"
    try:
        res = freedman_lane_test(
            values,
            codes,
            covariates=plan.covariates,
            groups=plan.groups if plan.case != "independent" else None,
            n_permutations=draws,
            random_state=rng,
        )
    except ValueError as exc:  # no relabelling exchanges whole groups (no two of equal size)
        screen.min_pvalues_[columns] = 1.0
        return f"{what}: not possible ({exc}), so their p-values are 1"
    screen.pvalues_[columns] = res.pvalues
    screen.location_statistics_[columns] = res.statistics
    # The test's own floor (one over the relabellings) for two-valued features, which
    # Tarone's rule reads; ranked features keep the Monte Carlo floor.
    screen.min_pvalues_[columns] = np.where(
        ranked, 1.0 / (draws + 1.0), max(1.0 / n_relabel, 1.0 / (draws + 1.0))
    )
    return f"{what} ({draws} draws; {n_relabel:.0f} relabellings allowed)"


def score_with_design(screen, X, codes, plan: ScreenDesign, rng) -> None:
    """Fill the screen's per-feature results for a fit with a design."""
    C = screen.classes_.size
    m = X.shape[1]
    screen.note_ = (
        "The data were read as counts: log-CPM with voom precision weights for the design, "
        "then the weighted moderated F."
        if screen.counts_
        else ""
    )
    if screen.counts_:  # equal counts, not equal log-CPM, make a feature constant
        low, high = column_min_max(X)  # a sparse X is not densified
        screen.kinds_ = np.where(low == high, 0, COUNTS).astype(np.int8)
    else:  # the kinds are label-free, as without a design
        screen.kinds_ = first_pass(X, codes, C, spread=False).kinds.copy()
    screen.pvalues_, screen.min_pvalues_ = np.ones(m), np.ones(m)
    screen.location_statistics_, screen.spread_statistics_ = np.zeros(m), np.zeros(m)
    screen.prior_ = {"location": (np.nan, np.nan), "spread": None}
    parts = []
    if np.any((screen.kinds_ == GAUSSIAN) | (screen.kinds_ == COUNTS)):
        parts.append(_parametric(screen, X, codes, plan))
    parts.append(_permutation(screen, X, codes, plan, rng))
    covs = ", ".join(plan.design.covariate_names) or "none"
    statement = (
        f"Design: covariates {covs}; groups: {GROUP_WORDS[plan.case]}. "
        + "; ".join(p for p in parts if p)
        + "; the spread test is off with a design."
    )
    screen.design_ = plan.describe(statement)
