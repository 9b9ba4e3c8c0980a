"""The chance analysis: every feature's validation errors, both nulls, every threshold rule.

Palatucci & Carlson (2008): the best of M useless features makes E[X(1)] errors by luck;
the analytic null (Theorem 4.1) and a label-permutation null both say how many. The
error-controlling rules (FDR, Bonferroni) come from
:class:`~widefs.univariate.ClassDifferenceScreen`.
"""

from __future__ import annotations

import copy
import warnings

import numpy as np

from widefs.analysis._result import ChanceAnalysis, LooOutcome, ScreenSummary

__all__ = ["ERROR_RULES", "RULES", "chance_analysis"]

# Threshold rules, in report order: two chance-aware cuts on the errors, two error-controlling.
RULES = ("mgm", "max_chance", "fdr", "bonferroni")
ERROR_RULES = ("mgm", "max_chance")
# A leave-one-out row this far below the majority-class accuracy is flagged.
BELOW_MAJORITY = 0.05


def _fits(X, y, *, seed, p_error, null, n_permutations, n_jobs, counts="auto", design=None):
    """The errors selector under ``null`` (the permutation null beside it in any case) and
    the class-difference screens."""
    from widefs.exceptions import NothingSelectedWarning, UnusedParameterWarning
    from widefs.univariate import ClassDifferenceScreen, DiscriminativeSelector

    def errors_fit(which, p_error, threshold="all"):
        return DiscriminativeSelector(
            threshold,
            statistic="errors",
            p_error=p_error,
            null=which,
            n_permutations=n_permutations,
            random_state=seed,
            n_jobs=n_jobs,
        ).fit(X, y, groups=None if design is None else design.groups)

    with warnings.catch_warnings():
        # Selecting nothing is an outcome the analysis reports.
        warnings.simplefilter("ignore", NothingSelectedWarning)
        # Under a permutation null p_error still sets the analytic null the report shows.
        warnings.simplefilter("ignore", UnusedParameterWarning)
        sel = errors_fit(null, p_error)
        nulls = dict(sel.chance_nulls_)
        if "permutation" not in nulls:
            # Only its permutation null is read, which p_error does not change.
            nulls["permutation"] = errors_fit("permutation", "auto").chance_nulls_["permutation"]
        given = {} if design is None else {"covariates": design.covariates, "groups": design.groups}
        fdr = ClassDifferenceScreen("fdr", counts=counts, random_state=seed).fit(X, y, **given)
    return sel, nulls, {"fdr": fdr, "bonferroni": _under(fdr, "bonferroni")}


def _under(screen, rule):
    """``screen`` as fitted with ``threshold=rule``: the p-values do not depend on the rule,
    so one fit serves every rule (``select_under`` applies it exactly as ``fit`` would)."""
    other = copy.copy(screen).set_params(threshold=rule)
    other.threshold_, other.support_ = screen.select_under(rule)
    return other


def _order(sel) -> np.ndarray:
    """Best first (fewest errors, lowest index among ties); constant features last."""
    eligible = ~sel.constant_features_
    return np.concatenate(
        [
            np.flatnonzero(eligible)[np.argsort(sel.n_errors_[eligible], kind="stable")],
            np.flatnonzero(~eligible),
        ]
    )


def _loo(X, y, *, seed, p_error, null, n_permutations):
    """The paper's leave-one-out protocol for every rule, and its outcomes as rows."""
    from widefs.univariate import leave_one_out_threshold_curve

    curve = leave_one_out_threshold_curve(
        X,
        y,
        random_state=seed,
        thresholds=("all", *RULES),
        p_error=p_error,
        null=null,
        n_permutations=n_permutations,
    )
    rows = [
        LooOutcome(r, o.accuracy, float(np.median(o.n_selected)), o.empty_rounds, y.size)
        for r, o in curve.outcomes.items()
    ]
    return curve, rows


def below_majority(loo, majority: float) -> tuple[str, ...]:
    """Rules (not the oracle) whose leave-one-out accuracy is well below the majority class's.

    Leave-one-out works against a classifier that learnt nothing (removing the held-out
    example makes its class rarer), so such rows mean no usable signal.
    """
    return tuple(
        o.rule for o in loo if o.rule != "oracle" and o.accuracy < majority - BELOW_MAJORITY
    )


def chance_analysis(
    X, y, *, seed, p_error, null, n_permutations, quick, n_jobs, counts="auto", design=None
):
    """Score every feature, both nulls, every threshold, and the leave-one-out curve.

    ``null`` chooses the null of the multiplicity-gap thresholds (``"auto"``: as
    :class:`~widefs.univariate.DiscriminativeSelector` chooses it); the other is computed too.
    ``design`` (:func:`widefs.analysis._design.check_design`) reaches the class-difference
    screens; the validation-error selector takes none.
    """
    sel, nulls, screens = _fits(
        X,
        y,
        seed=seed,
        p_error=p_error,
        null=null,
        n_permutations=n_permutations,
        n_jobs=n_jobs,
        counts=counts,
        design=design,
    )
    selections = {rule: sel.select_under(rule)[1] for rule in ERROR_RULES}
    selections.update({rule: s.get_support() for rule, s in screens.items()})
    n_val = sel.n_validation_
    eligible = ~sel.constant_features_
    # Each round's null needs E[X] and E[X(1)]: a few hundred permutations estimate them well.
    n_loo = min(n_permutations, 100 if quick else 200)
    curve, loo = _loo(X, y, seed=seed, p_error=p_error, null=sel.null_, n_permutations=n_loo)
    _, counts = np.unique(y, return_counts=True)
    majority = counts.max() / counts.sum()
    screen = screens["fdr"]
    return ChanceAnalysis(
        selector=sel,
        nulls=nulls,
        screens=screens,
        selections=selections,
        n_permutations=n_permutations,
        null_used=sel.null_,
        chance_accuracy={k: 1 - v.expected_min_errors / n_val for k, v in nulls.items()},
        null_gap=abs(
            nulls["analytic"].expected_min_errors - nulls["permutation"].expected_min_errors
        ),
        mgm_threshold=0.5 * (sel.expected_errors_ + sel.expected_min_errors_),
        best_errors=int(sel.n_errors_[eligible].min()),
        best_accuracy=float(sel.scores_[eligible].max()),
        screen=_screen_summary(screen),
        bonferroni_cut=screen.alpha / max(int(screens["bonferroni"].testable_.sum()), 1),
        order=_order(sel),
        loo=loo,
        loo_curve=curve,
        loo_permutations=n_loo,
        loo_below_majority=below_majority(loo, majority),
        loo_min_pvalue=nulls["analytic"].min_pvalue,
    )


def _screen_summary(screen) -> ScreenSummary:
    """What the class-difference screen did, from its public fitted attributes."""
    ranked = screen.kinds_ == screen.kind_names_.index("ranked")
    return ScreenSummary(
        kind_counts=dict(screen.kind_counts_),
        spread_weight=screen.spread_weight_,
        counts=screen.counts_,
        note=screen.note_,
        n_scored=screen.n_scored_,
        n_testable=int(screen.testable_.sum()),
        ranked_floor=float(screen.min_pvalues_[ranked].max()) if ranked.any() else None,
        alpha=screen.alpha,
    )


def feature_table(chance: ChanceAnalysis):
    """Every feature's numbers, best first: a DataFrame indexed by feature position."""
    import pandas as pd

    sel, screen, order = chance.selector, chance.screens["fdr"], chance.order
    columns = {
        "errors": sel.n_errors_[order],
        "accuracy": sel.scores_[order],
        "pvalue_errors": sel.pvalues_[order],
        "pvalue_errors_analytic": chance.nulls["analytic"].pvalues[order],
        "pvalue_errors_permutation": chance.nulls["permutation"].pvalues[order],
        "f_location": screen.location_statistics_[order],
        "f_spread": screen.spread_statistics_[order],
        "pvalue_class_difference": screen.pvalues_[order],
        "kind": np.asarray(screen.kind_names_, dtype=object)[screen.kinds_[order]],
        "constant": sel.constant_features_[order],
    }
    columns.update({rule: chance.selections[rule][order] for rule in RULES})
    return pd.DataFrame(columns, index=pd.Index(order, name="feature"))
