"""Group-aware splits: no group on both sides, stratified, deterministic for a seed."""

import numpy as np
import pytest
from sklearn.model_selection import GroupKFold, KFold

from widefs.model_selection import DesignKFold, GroupCheckedCV, check_group_splits


def _designs(rng):
    # repeated samples per patient (unequal counts), pairs, and blocks of mixed classes
    sizes = rng.integers(1, 5, size=14)
    patient = np.repeat(np.arange(14), sizes)
    y_patient = np.repeat(rng.permutation(np.repeat([0, 1], 7)), sizes)
    pairs = np.repeat(np.arange(10), 2)
    y_pairs = np.tile([0, 1], 10)
    blocks = np.repeat(np.arange(6), 4)
    y_blocks = rng.integers(0, 3, size=24)
    return [(y_patient, patient), (y_pairs, pairs), (y_blocks, blocks)]


@pytest.mark.parametrize("seed", range(5))
def test_no_group_on_both_sides_and_every_sample_tested_once_per_repeat(seed):
    rng = np.random.default_rng(seed)
    for y, groups in _designs(rng):
        cv = DesignKFold(n_splits=3, n_repeats=2, random_state=seed)
        splits = list(cv.split(np.zeros((y.size, 2)), y, groups))
        assert len(splits) == cv.get_n_splits() == 6
        for train, test in splits:
            assert set(groups[train]).isdisjoint(groups[test])
            assert np.union1d(train, test).size == y.size
        for r in range(2):
            tested = np.concatenate([te for _, te in splits[3 * r : 3 * r + 3]])
            assert np.array_equal(np.sort(tested), np.arange(y.size))


def test_deterministic_for_a_seed_and_repeats_differ():
    y = np.repeat([0, 1], 12)
    g = np.repeat(np.arange(8), 3)
    a = [te.tolist() for _, te in DesignKFold(4, 2, random_state=7).split(y, y, g)]
    b = [te.tolist() for _, te in DesignKFold(4, 2, random_state=7).split(y, y, g)]
    c = [te.tolist() for _, te in DesignKFold(4, 2, random_state=8).split(y, y, g)]
    assert a == b and a != c
    assert a[:4] != a[4:]  # the second repeat is reshuffled


def test_stratified_where_groups_allow():
    y = np.repeat([0, 1], 18)
    patient = np.repeat(np.arange(12), 3)  # 6 patients per class
    for _, test in DesignKFold(3, random_state=0).split(y, y, patient):
        assert np.bincount(y[test], minlength=2).tolist() == [6, 6]
    y = np.repeat([0, 1], [10, 20])
    for _, test in DesignKFold(5, random_state=0).split(y, y):  # no groups: stratified k-fold
        assert np.bincount(y[test]).tolist() == [2, 4]


def test_errors():
    y = np.array([0, 1] * 4)
    with pytest.raises(ValueError, match="3 distinct groups, fewer than n_splits=5"):
        list(DesignKFold(5).split(y, y, [0, 0, 1, 1, 2, 2, 2, 2]))
    with pytest.raises(ValueError, match="n_splits must be an int >= 2"):
        list(DesignKFold(1).split(y, y))
    with pytest.raises(ValueError, match="group 'a' is on both sides of split 1"):
        check_group_splits([([0, 1], [2, 3]), ([0, 2], [1, 3])], ["a", "a", "b", "c"])


@pytest.mark.filterwarnings("ignore:The groups parameter is ignored")
def test_group_checked_cv_passes_group_splitters_and_stops_leaks():
    y = np.array([0, 1] * 6)
    g = np.repeat(np.arange(4), 3)
    ok = list(GroupCheckedCV(GroupKFold(2)).split(y[:, None], y, g))
    assert len(ok) == GroupCheckedCV(GroupKFold(2)).get_n_splits(y, y, g) == 2
    with pytest.raises(ValueError, match="is on both sides of split 0"):
        list(GroupCheckedCV(KFold(3)).split(y[:, None], y, g))
    with pytest.raises(ValueError, match="needs groups"):
        list(GroupCheckedCV(KFold(4)).split(y[:, None], y))
