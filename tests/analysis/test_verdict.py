"""One verdict per method from the nested interval and the search certificate."""

import itertools
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from widefs.analysis._verdict import ALPHA, verdicts
from widefs.model_selection import MajorityBaseline


def _row(name, low, pvalue, *, applies=True, high=0.9):
    return {
        "method": name,
        "applies": applies,
        "accuracy": (low + high) / 2,
        "accuracy_ci_low": low,
        "accuracy_ci_high": high,
        "balanced_accuracy": (low + high) / 2 - 0.01,
        "balanced_ci_low": low - 0.01,
        "balanced_ci_high": high,
        "search_pvalue": np.nan if pvalue is None else pvalue,
    }


def _cert(name, compared_as, pvalue, floor=1 / 30):
    certificate = SimpleNamespace(pvalue_floor=floor)
    return SimpleNamespace(
        name=name, compared_as=compared_as, pvalue=pvalue, certificate=certificate
    )


BALANCED = MajorityBaseline(np.array(["a", "b"]), np.array([20, 20]))  # chance: 0.5 accuracy


@pytest.mark.parametrize(
    ("low", "pvalue"), list(itertools.product([0.49, 0.5, 0.51], [None, 0.01, ALPHA, 0.06]))
)
def test_every_combination_of_the_evidence(low, pvalue):
    frame = pd.DataFrame([_row("m", low, pvalue)]).set_index("method")
    v = verdicts(frame, {}, BALANCED)["m"]
    above = low > 0.5  # strictly above: an interval touching chance does not exclude it
    certified = pvalue is not None and pvalue <= ALPHA  # at most alpha
    expected = {
        (True, True): "signal",
        (False, True): "certified only",
        (True, False): "accurate only",
        (False, False): "not shown",
    }[above, certified]
    assert v.outcome == expected
    assert (v.score, v.chance, v.low) == ("accuracy", 0.5, low)


def test_imbalanced_classes_judge_balanced_accuracy_against_one_over_k():
    imbalanced = MajorityBaseline(np.array(["a", "b"]), np.array([40, 22]))
    frame = pd.DataFrame([_row("m", 0.505, 0.01)]).set_index("method")
    v = verdicts(frame, {}, imbalanced)["m"]
    # balanced_ci_low = 0.495 < 0.5: the accuracy interval (above 0.5) is not the one used
    assert (v.score, v.chance, v.low, v.outcome) == (
        "balanced accuracy",
        0.5,
        0.495,
        "certified only",
    )


def test_certificate_without_comparison_and_rows_that_do_not_apply():
    frame = pd.DataFrame([_row("skip", 0.9, 0.01, applies=False)]).set_index("method")
    certs = {"c": _cert("c", ("a", "b"), 0.02), "q": _cert("q", ("q",), 0.1, floor=0.1)}
    out = verdicts(frame, certs, BALANCED)
    assert set(out) == {"a", "b", "q"}  # the binary-only row on other data has no verdict
    assert out["a"].outcome == "certified only" and out["a"].above_chance is None
    assert out["q"].outcome == "not shown" and out["q"].floor_too_high
    assert verdicts(None, {}, BALANCED) == {}


def test_the_comparison_cell_speaks_for_a_method_that_kept_nothing():
    # A certificate exists, but the comparison row has no p-value (no feature in any fold).
    frame = pd.DataFrame([_row("a", 0.6, None)]).set_index("method")
    out = verdicts(frame, {"c": _cert("c", ("a",), 0.01)}, BALANCED)
    assert out["a"].pvalue is None and out["a"].outcome == "accurate only"
