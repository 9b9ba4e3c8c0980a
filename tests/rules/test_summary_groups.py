"""rules_summary(groups=): the held-out part never shares a group with the training part."""

import numpy as np
import pytest

from widefs.rules import rules_summary


def _repeated(n_patients=12, per_patient=3, seed=0):
    rng = np.random.default_rng(seed)
    groups = np.repeat(np.arange(n_patients), per_patient)
    y = np.repeat(np.arange(n_patients) % 2, per_patient)
    # A patient effect and no class effect: a split that separates a patient's samples lets the
    # rules learn the patient.
    X = rng.normal(size=(n_patients, 6))[groups] + 0.1 * rng.normal(size=(groups.size, 6))
    return X, y, groups


@pytest.mark.parametrize("seed", range(5))
def test_no_group_on_both_sides(seed, monkeypatch):
    X, y, groups = _repeated(seed=seed)
    seen = {}
    import widefs.rules._summary as summary_module

    split = summary_module._split

    def spy(*args):
        parts = split(*args)
        seen["parts"] = parts
        return parts

    monkeypatch.setattr(summary_module, "_split", spy)
    summary = rules_summary(X, y, random_state=seed, groups=groups)
    train_rows, test_rows = seen["parts"]  # the row indices of the two parts
    y_te = y[test_rows]
    assert np.union1d(train_rows, test_rows).tolist() == list(range(y.size))
    assert set(groups[train_rows]).isdisjoint(groups[test_rows])
    assert train_rows.size + test_rows.size == y.size
    # About a third held out (one fold of three), both classes in it.
    assert summary.n_test == test_rows.size and 9 <= test_rows.size <= 15
    assert set(y_te) == {0, 1}


def test_without_groups_the_split_is_unchanged():
    X, y, _ = _repeated()
    a = rules_summary(X, y, random_state=4)
    b = rules_summary(X, y, random_state=4, groups=None)
    assert (a.n_train, a.n_test, a.test_error) == (b.n_train, b.n_test, b.test_error)
    assert a.n_test == 12  # train_test_split's ceil(0.33 * 36)


def test_groups_of_the_wrong_length_or_one_group_are_refused():
    X, y, groups = _repeated()
    with pytest.raises(ValueError, match="groups holds 35 labels for 36 samples"):
        rules_summary(X, y, groups=groups[:-1])
    with pytest.raises(ValueError, match="at least two groups"):
        rules_summary(X, y, groups=np.zeros(y.size))


def test_ignoring_the_patients_leaks():
    """Held-out error on patient noise: near chance with groups, lower without (the leak)."""
    with_groups, without = [], []
    for seed in range(6):
        X, y, groups = _repeated(seed=seed)
        with_groups.append(rules_summary(X, y, random_state=seed, groups=groups).test_error)
        without.append(rules_summary(X, y, random_state=seed).test_error)
    assert np.mean(with_groups) > np.mean(without) + 0.1
    assert np.mean(with_groups) >= 0.3
