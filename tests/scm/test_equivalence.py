"""Equivalent features of each rule against a brute-force pairwise comparison."""

import json
import warnings

import numpy as np
import pytest

from widefs.scm import OccamSCM, PACBayesSCM, SampleCompressionSCM, describe_model, from_json
from widefs.scm._equivalence import equivalent_stumps


def _brute(X, fired, own):
    """Every (feature, direction) with a threshold whose stump fires exactly on ``fired``."""
    out = []
    for g in range(X.shape[1]):
        if g == own:
            continue
        values = np.unique(X[:, g])
        cuts = np.concatenate([[values[0] - 1], (values[1:] + values[:-1]) / 2, [values[-1] + 1]])
        x = X[:, g]
        for direction, fires in ((">", x[None] > cuts[:, None]), ("<=", x[None] <= cuts[:, None])):
            if any(np.array_equal(row, fired) for row in fires):
                out.append((g, direction))
    return tuple(out)


def _tied(seed, m=40, n=30):
    """Few distinct values, columns copied and reflected: many equivalent features."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 4, size=(m, n)).astype(float)
    X[:, 5] = 2 * X[:, 1] + 1  # same order as column 1
    X[:, 6] = -X[:, 1]  # reversed order
    X[:, 7] = (X[:, 1] > 1).astype(float)  # one of column 1's splits
    y = (X[:, 1] > 1) ^ (rng.random(m) < 0.1)
    return X, y.astype(int)


def _check(model, X):
    assert model.rules_
    for rule in model.rules_:
        assert rule.equivalent == _brute(X, rule.fires(X), rule.feature)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize(
    "est",
    [
        SampleCompressionSCM(select="none", max_rules=4),
        OccamSCM("disjunction", select="none", max_rules=4),
        PACBayesSCM(select="none", max_rules=4),
    ],
    ids=repr,
)
def test_numeric_equivalents_are_the_brute_force_ones(est, seed):
    X, y = _tied(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _check(est.fit(X, y), X)
    assert any(r.equivalent for r in est.rules_)


@pytest.mark.parametrize("seed", range(3))
def test_presence_absence_equivalents_are_the_brute_force_ones(seed):
    rng = np.random.default_rng(seed)
    X = rng.random((90, 50)) < 0.3
    X[:, 30:34] = X[:, [2]]
    X[:, 40] = ~X[:, 2]
    y = (X[:, 2] | (rng.random(90) < 0.05)).astype(int)
    model = SampleCompressionSCM(select="none", max_rules=3).fit(X, y)
    _check(model, X.astype(float))
    first = next(r for r in model.rules_ if r.feature == 2)
    assert {(30, ">"), (33, ">"), (40, "<=")} <= set(first.equivalent)


def test_machines_of_a_decision_list_use_their_own_examples():
    X, y = _tied(4, m=60)
    y = np.where(X[:, 9] > 2, 2, y)
    model = SampleCompressionSCM().fit(X, y)
    for cm in model.machines_:
        rows = np.isin(y, cm.remaining)
        for rule in cm.machine.rules_:
            assert rule.equivalent == _brute(X[rows], rule.fires(X[rows]), rule.feature)


def test_out_of_core_and_one_sided_splits(tmp_path):
    X, y = _tied(5)
    mm = np.memmap(tmp_path / "x.dat", dtype=np.float64, mode="w+", shape=X.shape)
    mm[:] = X
    a = SampleCompressionSCM().fit(X, y)
    b = SampleCompressionSCM().fit(mm, y)
    assert a.rules_ == b.rules_ and any(r.equivalent for r in a.rules_)
    fired = np.ones(X.shape[0], bool)
    assert equivalent_stumps(X, [fired, ~fired, X[:, 1] > 1]) == [
        (),
        (),
        ((1, ">"), (5, ">"), (6, "<="), (7, ">")),
    ]


def test_equivalents_in_json_and_description():
    X, y = _tied(6)
    model = SampleCompressionSCM().fit(X, y)
    (rule,) = [r for r in model.rules_ if r.feature == 1]
    text = model.to_json()
    again = from_json(text)
    assert again.rules_ == model.rules_
    assert "x5, x6 (opposite), x7" in describe_model(model)
    doc = json.loads(text)
    i = model.rules_.index(rule)
    for bad, message in (
        ([[1, ">"]], "must not hold the rule's own feature"),
        ([[6, "<="], [5, ">"]], "distinct features in increasing order"),
        ([[5, "?"]], r"equivalent\[0\]\[1\] must be one of"),
        ([[99, ">"]], r"equivalent\[0\]\[0\] must lie in"),
    ):
        doc["rules"][i]["equivalent"] = bad
        with pytest.raises(ValueError, match=message):
            from_json(json.dumps(doc))
    del doc["rules"][i]["equivalent"]  # a file written before equivalents were stored
    with pytest.warns(UserWarning, match="edited"):  # (its hash no longer matches)
        assert from_json(json.dumps(doc), allow_edited=True).rules_[i].equivalent == ()


@pytest.mark.parametrize("seed", range(4))
def test_in_memory_equivalents_of_any_split_are_the_brute_force_ones(seed):
    # Splits of one to all-but-one examples, on tied values (a tie across the split makes a
    # near miss) and on float32: the pairwise pre-filter never drops a true equivalent.
    rng = np.random.default_rng(seed)
    X, _ = _tied(seed, m=25, n=60)
    X[:, 20:30] = X[:, [1]] + rng.integers(0, 2, size=(25, 10)) * (X[:, [1]] == 2)
    for size in (1, 2, 12, 24):
        fired = np.zeros(25, bool)
        fired[rng.choice(25, size, replace=False)] = True
        if seed % 2:
            fired = X[:, 1] > rng.integers(0, 3)
        for data in (X, X.astype(np.float32)):
            (got,) = equivalent_stumps(data, [fired])
            if fired.all() or not fired.any():
                assert got == ()
            else:
                assert got == _brute(X, fired, -1), size


@pytest.mark.parametrize("size", [1, 2, 15, 29])
def test_more_equivalents_than_the_row_filter_keeps(size):
    # 40 features ordered like the split each way (more than the rows-at-a-time filter
    # stops at: every row is read) beside near misses that tie across it and noise.
    rng = np.random.default_rng(size)
    m = 30
    fired = np.zeros(m, bool)
    fired[rng.choice(m, size, replace=False)] = True
    col = fired[:, None]
    above = np.where(col, rng.uniform(5, 6, (m, 40)), rng.uniform(0, 5, (m, 40)))
    below = -np.where(col, rng.uniform(5, 6, (m, 40)), rng.uniform(0, 5, (m, 40)))
    near = above[:, :10].copy()
    near[np.flatnonzero(~fired)[0]] = near[fired].min(axis=0)  # a tie across the split
    X = np.hstack([rng.uniform(0, 6, (m, 20)), above, near, below])
    (got,) = equivalent_stumps(X, [fired])
    assert got == _brute(X, fired, -1)
    found = {g for g, _ in got}
    assert found >= {*range(20, 60), *range(70, 110)} and not found & set(range(60, 70))
