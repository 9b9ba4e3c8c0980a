"""Accuracy, balanced accuracy, per-class recall and their intervals, against independent code."""

import math
import statistics

import numpy as np
import pytest
from scipy import stats
from sklearn.metrics import balanced_accuracy_score, recall_score

from widefs.model_selection import MajorityBaseline, majority_baseline
from widefs.model_selection._metrics import (
    balanced_accuracy,
    corrected_t_interval,
    recall_counts,
    recall_interval,
)


def test_recall_interval_is_clopper_pearson():
    """Whole counts: scipy's exact binomial interval (a different implementation)."""
    cases = [(0, 6), (1, 6), (5, 6), (6, 6), (17, 40), (0, 1), (1, 1), (33, 34)]
    hits, support = np.array(cases).T
    for level in (0.95, 0.8):
        got = recall_interval(hits, support, level)
        for (k, n), (lo, hi) in zip(cases, got, strict=True):
            ref = stats.binomtest(int(k), int(n)).proportion_ci(level, method="exact")
            assert lo == pytest.approx(ref.low, rel=1e-10, abs=1e-14)
            assert hi == pytest.approx(ref.high, rel=1e-10, abs=1e-14)


def test_recall_interval_fractional_counts_and_empty_classes():
    # Averaged over repeats: between the intervals of the neighbouring whole counts.
    (lo, hi), (lo3, hi3), (lo4, hi4) = recall_interval([3.5, 3, 4], [10, 10, 10], 0.95)
    assert lo3 < lo < lo4 and hi3 < hi < hi4
    assert np.isnan(recall_interval([0], [0], 0.95)).all()


def test_recall_counts_and_balanced_accuracy_against_brute_force():
    rng = np.random.default_rng(0)
    classes = np.array(["a", "b", "c"])
    for _ in range(20):
        y_true = rng.choice(classes[:2] if rng.random() < 0.3 else classes, size=25)
        y_pred = rng.choice(classes, size=25)
        hits, support = recall_counts(y_true, y_pred, classes)
        for c, h, s in zip(classes, hits, support, strict=True):
            assert s == sum(t == c for t in y_true)
            assert h == sum(t == c and p == c for t, p in zip(y_true, y_pred, strict=True))
        present = np.unique(y_true)
        ref = np.mean(recall_score(y_true, y_pred, labels=present, average=None))
        assert balanced_accuracy(y_true, y_pred, classes) == pytest.approx(ref, rel=1e-12)
        if present.size == 3:
            assert balanced_accuracy(y_true, y_pred, classes) == pytest.approx(
                balanced_accuracy_score(y_true, y_pred), rel=1e-12
            )


def test_corrected_t_interval_by_hand():
    """Nadeau & Bengio: variance (1/k + n_test/n_train) s^2; sizes swapped give another one."""
    scores = [0.5, 0.7, 0.6, 0.8]
    mean, std, (lo, hi) = corrected_t_interval(scores, 80, 20, 0.95)
    s = statistics.stdev(scores)
    half = stats.t.ppf(0.975, 3) * math.sqrt((1 / 4 + 20 / 80) * s * s)
    assert mean == pytest.approx(0.65, rel=1e-12) and std == pytest.approx(s, rel=1e-12)
    assert (lo, hi) == (
        pytest.approx(0.65 - half, rel=1e-12),
        pytest.approx(0.65 + half, rel=1e-12),
    )
    assert (round(lo, 6), round(hi, 6)) == (0.359484, 0.940516)  # pinned
    swapped = corrected_t_interval(scores, 20, 80, 0.95)[2]
    assert swapped == (0.0, 1.0)  # n_test/n_train = 4: far wider, clipped
    narrower = corrected_t_interval(scores, 80, 20, 0.8)[2]
    assert lo < narrower[0] and narrower[1] < hi


def test_corrected_t_interval_clips_and_single_fold():
    mean, std, (lo, hi) = corrected_t_interval([1.0, 0.9, 1.0], 40, 10, 0.95)
    assert hi == 1.0 and 0 < lo < mean
    mean, std, (lo, hi) = corrected_t_interval([0.0, 0.1, 0.0], 40, 10, 0.95)
    assert lo == 0.0 and hi > mean
    mean, std, ci = corrected_t_interval([0.7], 40, 10, 0.95)
    assert (mean, std) == (0.7, 0.0) and np.isnan(ci).all()
    # Equal scores: a zero-width interval at the mean.
    assert corrected_t_interval([0.5, 0.5], 40, 10, 0.95)[2] == (0.5, 0.5)


def test_majority_baseline():
    base = majority_baseline(np.array(["sick"] * 6 + ["healthy"] * 50))
    assert base.classes.tolist() == ["healthy", "sick"] and base.counts.tolist() == [50, 6]
    assert base.accuracy == 50 / 56 and base.balanced_accuracy == 0.5 and base.imbalanced
    assert majority_baseline([0, 1, 2, 2]).balanced_accuracy == 1 / 3
    # The threshold: the smallest class below 0.8 times the largest (strictly).
    assert not MajorityBaseline(np.array([0, 1]), np.array([5, 4])).imbalanced
    assert MajorityBaseline(np.array([0, 1]), np.array([10, 7])).imbalanced
    assert not majority_baseline([0, 1] * 5).imbalanced
    with pytest.raises(ValueError, match="y is empty"):
        majority_baseline([])
