"""The validation-error protocol with groups: splits that keep groups whole, relabellings
that respect them.

With ``groups`` (subject, pair, patient) the samples of a group are not independent. The
training and validation parts then keep every group on one side (scikit-learn's
``StratifiedGroupKFold``; ``"halves"`` is its first split of two), so a patient's other samples
cannot vouch for a feature on validation. The label permutations of the null stay within
the cells of the splits, as without groups, and inside each cell follow the design's scheme
(:func:`widefs.stats.exchangeability_scheme`): labels exchanged within groups when groups hold
several classes, whole groups of equal size exchanged when every group holds one class.
"""

from __future__ import annotations

import numbers

import numpy as np

from widefs.stats import exchangeability_scheme, permutation_indices

__all__ = ["check_selector_groups", "grouped_permutations", "grouped_split_masks"]


def check_selector_groups(selector, groups, y_codes):
    """``groups`` as an array (None without), checked; sets the selector's ``design_case_``.

    The analytic null assumes independent samples: refused with groups, except under the
    threshold ``"all"``, which thresholds nothing (its search score needs no null).
    """
    if groups is None:
        selector.design_case_ = "independent"
        return None
    if selector.statistic_ != "errors":
        raise ValueError(
            f"groups apply to the errors statistic only, not statistic={selector.statistic_!r}."
        )
    if selector.null == "analytic" and selector.threshold != "all":
        raise ValueError(
            'null="analytic" assumes independent samples, which groups say they are not; '
            'with groups use null="permutation" (or "auto")'
        )
    groups = np.asarray(groups)
    selector.design_case_ = exchangeability_scheme(y_codes, groups).case
    return groups


def grouped_split_masks(cv, y_codes, groups, rng):
    """Training and validation masks, each (n_splits, n_samples), that keep groups whole."""
    from sklearn.model_selection import StratifiedGroupKFold, check_cv

    n = y_codes.shape[0]
    if cv == "halves" or isinstance(cv, numbers.Integral):
        k = 2 if cv == "halves" else int(cv)
        splitter = StratifiedGroupKFold(k, shuffle=True, random_state=rng)
    else:
        splitter = check_cv(cv, y_codes, classifier=True)
    splits = list(splitter.split(np.zeros((n, 1)), y_codes, groups))
    if cv == "halves":
        splits = splits[:1]
    train = np.zeros((len(splits), n), bool)
    val = np.zeros((len(splits), n), bool)
    for s, (tr, va) in enumerate(splits):
        train[s, tr], val[s, va] = True, True
        both = np.intersect1d(groups[tr], groups[va])
        if both.size:
            raise ValueError(
                f"the splitter {type(splitter).__name__} puts group {both[0]!r} on both sides "
                "of a split; give an int cv or a splitter that keeps groups whole."
            )
    return train, val


def grouped_permutations(cells, y_codes, groups, n_permutations: int, rng):
    """Index arrays of relabellings within every cell that respect the groups' scheme.

    The scheme is the whole design's: with groups holding several classes anywhere, labels
    move only within a group (a group of one class keeps it, in every cell); with one class
    per group, whole groups of equal size are exchanged inside a cell. A cell that allows no
    relabelling keeps its labels.
    """
    kind = exchangeability_scheme(y_codes, groups).kind
    n = cells.size
    perms = np.tile(np.arange(n), (int(n_permutations), 1))
    for c in np.unique(cells):
        idx = np.flatnonzero(cells == c)
        if exchangeability_scheme(y_codes[idx], groups[idx]).kind != kind:
            continue  # every group of this cell holds one class: within groups, nothing moves
        try:
            sub = permutation_indices(
                y_codes[idx], groups[idx], n_permutations=int(n_permutations), random_state=rng
            )
        except ValueError:  # no two whole groups of one size here: the cell keeps its labels
            continue
        perms[:, idx] = idx[sub]
    return perms
