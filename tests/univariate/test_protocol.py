"""The vectorized leave-one-out protocol against a per-round sklearn loop."""

import numpy as np
import pytest
from sklearn.naive_bayes import GaussianNB

from widefs._utils import spawn_seeds
from widefs.stats import expected_min_errors
from widefs.univariate import halves_masks, leave_one_out_threshold_curve, threshold_in_errors


def brute_force(X, y, rule, seed, errors_allowed=None, p_error="auto"):
    """Section 5.2 by hand: one GaussianNB per feature and round, then a final GaussianNB.

    ``p_error="auto"``: the majority-class error of the round's validation half, counted
    here from the labels.
    """
    n, F = X.shape
    seeds = spawn_seeds(seed, n)
    correct, n_sel = [], []
    for r in range(n):
        avail = np.ones(n, bool)
        avail[r] = False
        tr, va = halves_masks(y, 2, seeds[r], available=avail)
        errs = np.array(
            [
                (GaussianNB().fit(X[tr][:, [j]], y[tr]).predict(X[va][:, [j]]) != y[va]).sum()
                for j in range(F)
            ]
        )
        if errors_allowed is None:
            counts = np.bincount(y[va], minlength=2)
            p = 0.5 if p_error == "uniform" else (counts.sum() - counts.max()) / counts.sum()
            _, sel = threshold_in_errors(rule, errs, int(va.sum()), p)
        else:
            sel = errs <= errors_allowed
        n_sel.append(sel.sum())
        if sel.any():
            clf = GaussianNB(var_smoothing=1e-12).fit(X[avail][:, sel], y[avail])
            pred = clf.predict(X[[r]][:, sel])[0]
        else:
            pred = np.argmax(np.bincount(y[avail], minlength=2))  # prior only
        correct.append(pred == y[r])
    return np.array(correct), np.array(n_sel)


@pytest.fixture(scope="module")
def problem():
    rng = np.random.default_rng(3)
    y = np.repeat([0, 1], [13, 12])
    X = rng.normal(size=(25, 60))
    X[:, :4] += 1.5 * y[:, None]
    return X, y


@pytest.mark.parametrize(
    ("rule", "p_error"),
    [("all", "auto"), ("max_chance", "auto"), ("mgm", "auto"), ("mgm", "uniform"), ("fdr", "auto")],
)
def test_named_thresholds_match_per_round_loop(problem, rule, p_error):
    X, y = problem
    curve = leave_one_out_threshold_curve(
        X, y, random_state=11, var_smoothing=1e-12, p_error=p_error
    )
    correct, n_sel = brute_force(X, y, rule, 11, p_error=p_error)
    out = curve.outcomes[rule]
    np.testing.assert_array_equal(out.n_selected, n_sel)
    np.testing.assert_array_equal(out.correct, correct)


def test_errors_allowed_curve_matches_loop(problem):
    X, y = problem
    curve = leave_one_out_threshold_curve(
        X, y, random_state=5, var_smoothing=1e-12, p_error="uniform"
    )
    for e in [0, 3, 6, 12]:
        correct, _ = brute_force(X, y, None, 5, errors_allowed=e)
        assert curve.accuracy[e] == pytest.approx(correct.mean())
    assert curve.outcomes["oracle"].accuracy == curve.accuracy.max()
    assert curve.n_validation == 12  # 24 remaining examples -> 12 / 12
    assert curve.expected_min_errors == pytest.approx(expected_min_errors(60, 12))


def test_empty_selection_is_reported_not_hidden():
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1], 10)
    X = rng.normal(size=(20, 3))
    curve = leave_one_out_threshold_curve(X, y, thresholds=["fdr"], random_state=0)
    out = curve.outcomes["fdr"]
    assert out.empty_rounds == 20
    # Pitfall (b) of FORMULAS.md: the prior-only classifier is always wrong under LOO.
    assert out.accuracy == 0.0


def test_permutation_null_per_round_matches_brute_force(problem):
    """Each round's permutation null, rebuilt from the round's split and its permutations."""
    from widefs.stats import benjamini_hochberg
    from widefs.univariate import gaussian_nb_split_errors, label_permutations, split_cells

    X, y = problem
    X, y = X[:16, :20], y[:16]
    B = 30
    curve = leave_one_out_threshold_curve(
        X, y, random_state=4, null="permutation", n_permutations=B, thresholds=["mgm", "fdr"]
    )
    assert curve.null == "permutation"
    n = y.size
    seeds = spawn_seeds(4, 2 * n)
    mgm_cuts, fdr_sizes = [], []
    for r in range(n):
        avail = np.ones(n, bool)
        avail[r] = False
        tr, va = halves_masks(y, 2, seeds[r], available=avail)
        perms = label_permutations(split_cells(tr[None], va[None]), B, seeds[n + r])
        assert perms[:, r].tolist() == [r] * B  # the held-out example never moves
        observed = gaussian_nb_split_errors(X, y, 2, tr[None], va[None])[0]
        null = np.stack(
            [gaussian_nb_split_errors(X, y[p], 2, tr[None], va[None])[0] for p in perms]
        )
        mgm_cuts.append(0.5 * (null.mean() + null.min(axis=1).mean()))
        pvalues = (1 + (null <= observed).sum(axis=0)) / (B + 1)
        fdr_sizes.append(int((benjamini_hochberg(pvalues) <= 0.05).sum()))
    np.testing.assert_allclose(curve.outcomes["mgm"].cut, mgm_cuts, rtol=1e-12)
    np.testing.assert_array_equal(curve.outcomes["fdr"].n_selected, fdr_sizes)


def _curve_fields(curve):
    outcomes = {k: (o.accuracy, o.correct, o.n_selected, o.cut) for k, o in curve.outcomes.items()}
    sums = (curve.accuracy, curve.mean_selected, curve.expected_errors, curve.expected_min_errors)
    return sums, outcomes


def _assert_same_curve(a, b):
    (sa, oa), (sb, ob) = _curve_fields(a), _curve_fields(b)
    for u, v in zip(sa, sb, strict=True):
        np.testing.assert_array_equal(u, v)
    assert oa.keys() == ob.keys()
    for key in oa:
        for u, v in zip(oa[key], ob[key], strict=True):
            np.testing.assert_array_equal(u, v, err_msg=key)


@pytest.mark.parametrize("null", ["permutation", "analytic"])
def test_chunked_rounds_equal_one_pass_and_float32_equals_float64(monkeypatch, null):
    """The rounds pass over the features in chunks (bounded memory); the bucket sums carry
    from chunk to chunk, so a curve in 1-feature or 7-feature chunks equals the one-chunk
    curve bit for bit, with FDR selections under the permutation null (scored on the
    recomputed terms of the selected features) and a constant column; a float32 matrix
    gives the curve of its float64 copy (its chunks are widened)."""
    import widefs.univariate._protocol as protocol

    rng = np.random.default_rng(1)
    y = np.repeat(["a", "b"], 20)
    X = np.round(rng.normal(size=(40, 60)), 4).astype(np.float32)
    X[y == "b", :12] += 1.5
    X[:, 5] = 2.0
    kw = dict(
        random_state=3,
        null=null,
        n_permutations=300,
        thresholds=("all", "mgm", "max_chance", "fdr", "bonferroni"),
    )
    whole = leave_one_out_threshold_curve(X.astype(float), y, **kw)
    assert whole.outcomes["fdr"].n_selected.sum() > 0  # the selected-terms path runs
    per_feature = 8 * (2 * 40 + 40 * 7)
    for width in (1, 7):
        monkeypatch.setattr(protocol, "_CHUNK_BYTES", width * per_feature)
        assert len(list(protocol._chunks((40, 59), 2))) == -(-59 // width)
        _assert_same_curve(whole, leave_one_out_threshold_curve(X.astype(float), y, **kw))
    monkeypatch.undo()
    _assert_same_curve(whole, leave_one_out_threshold_curve(X, y, **kw))


def test_permutation_pvalues_rebuilt_from_counts_exactly():
    """p = (1 + k) / (1 + B) kept as k and rebuilt: the same floats for every k, B."""
    from widefs.univariate._protocol import _PermutationPvalues

    for B in (1, 30, 999, 1000, 70000):
        k = np.arange(B + 1)
        p = (1.0 + k) / (1.0 + B)
        kept = _PermutationPvalues.of(p, B)
        assert kept.counts.itemsize <= (2 if B < 2**16 else 4)
        np.testing.assert_array_equal(kept.values(), p)
