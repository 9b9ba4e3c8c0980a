"""The compiled untied rank null draws and scores what the numpy path does, bit for bit.

The reference is the numpy path of ``_rank_null``: ``Generator.permuted`` on a matrix of
labellings, scored by ``_scores`` (itself checked against brute force in
test_rank_null_exact.py and test_screen_fast.py). The compiled pass must give the same
scores bit for bit and leave the generator in the same state, with and without a spread
part, from the smallest to the largest sample size it takes and from a generator holding half
of a 64-bit draw; a change of one random number in the draws must show. More than two
classes, or more ranks than its sums hold exactly, take the numpy path.
"""

import sys

import numpy as np
import pytest
from scipy import stats

import widefs.univariate._rank_null as rank_null
from widefs.univariate import ClassDifferenceScreen
from widefs.univariate._kinds import tie_factor
from widefs.univariate._screen_numpy import NUMBA_MIN_WORK


def _log_w(w):
    with np.errstate(divide="ignore"):
        return np.log([1.0 - w, w])


def _codes(n, C, seed):
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, C, n)
    codes[:C] = np.arange(C)  # every class present
    return codes.astype(np.min_scalar_type(C - 1))


def _generator(seed, half):
    gen = np.random.default_rng(seed)
    if half:  # an odd number of 32-bit draws: the next one is the buffered upper half
        gen.integers(0, 2**32, dtype=np.uint32)
    return gen


def _draw(codes, C, w, k, gen, fused, monkeypatch):
    counts = np.bincount(codes, minlength=C).astype(np.float64)
    with monkeypatch.context() as mp:
        mp.setattr(rank_null, "_fused", lambda n, n_classes, work: fused)
        return rank_null._untied_scores(codes, C, counts, _log_w(w), k, gen)


# (n = 2: no degree of freedom left; numpy's 0 / 0 warns, both paths give F = 0)
@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")
@pytest.mark.parametrize("half", [False, True])
@pytest.mark.parametrize("w", [0.0, 0.35, 1.0])
@pytest.mark.parametrize(("n", "seed"), [(2, 0), (3, 1), (7, 2), (12, 3), (62, 4), (101, 5)])
def test_the_compiled_draws_are_the_numpy_draws_bit_for_bit(monkeypatch, n, seed, w, half):
    codes = _codes(n, 2, seed=seed)
    numpy_gen, fused_gen = _generator(3, half), _generator(3, half)
    want = _draw(codes, 2, w, 3_000, numpy_gen, False, monkeypatch)
    got = _draw(codes, 2, w, 3_000, fused_gen, True, monkeypatch)
    assert got.dtype == want.dtype == np.float64
    np.testing.assert_array_equal(got, want)
    # The generator is left where permuted leaves it: the next draws agree too.
    assert fused_gen.bit_generator.state == numpy_gen.bit_generator.state
    np.testing.assert_array_equal(fused_gen.random(5), numpy_gen.random(5))


def test_the_largest_sample_size_it_takes_is_still_exact(monkeypatch):
    # At EXACT_RANKS ranks the class sums of e^2 are near 2**53: still exact integers.
    codes = _codes(rank_null.EXACT_RANKS, 2, seed=1)
    want = _draw(codes, 2, 0.5, 40, _generator(1, False), False, monkeypatch)
    got = _draw(codes, 2, 0.5, 40, _generator(1, False), True, monkeypatch)
    np.testing.assert_array_equal(got, want)


def test_a_planted_change_in_the_draws_fails_the_comparison(monkeypatch):
    # One 32-bit draw more before the shuffles: the scores and the state must differ.
    codes = _codes(62, 2, seed=0)
    want = _draw(codes, 2, 0.35, 2_000, _generator(3, False), False, monkeypatch)
    shifted = _generator(3, True)
    got = _draw(codes, 2, 0.35, 2_000, shifted, True, monkeypatch)
    assert not np.array_equal(got, want)


def test_the_screen_gives_the_same_p_values_on_either_path(monkeypatch):
    # Colon-like data: 62 examples (22 + 40), untied skewed features, a few shifted.
    rng = np.random.default_rng(5)
    y = np.repeat([0, 1], [22, 40])
    X = rng.lognormal(size=(62, 300))
    X[:, :6] *= np.exp(0.9 * y)[:, None]
    fits = []
    for fused in (False, True):
        with monkeypatch.context() as mp:
            mp.setattr(rank_null, "_fused", lambda n, n_classes, work, fused=fused: fused)
            fits.append(ClassDifferenceScreen("fdr", random_state=0).fit(X, y))
    numpy_fit, fused_fit = fits
    assert (numpy_fit.kinds_ == numpy_fit.kind_names_.index("ranked")).all()
    np.testing.assert_array_equal(fused_fit.pvalues_, numpy_fit.pvalues_)
    np.testing.assert_array_equal(fused_fit.min_pvalues_, numpy_fit.min_pvalues_)
    np.testing.assert_array_equal(fused_fit.get_support(), numpy_fit.get_support())
    assert numpy_fit.get_support().any()


def test_the_rank_branch_with_ties_gives_the_same_p_values_on_either_path(monkeypatch):
    # Tied strata draw first from the same generator: the untied draws follow theirs.
    rng = np.random.default_rng(2)
    y = np.repeat([0, 1], [13, 15])
    X = np.column_stack([rng.normal(size=(28, 20)), rng.poisson(1.0, size=(28, 60))])
    X[:, :3] += y[:, None]
    out = []
    for fused in (False, True):
        with monkeypatch.context() as mp:
            mp.setattr(rank_null, "_fused", lambda n, n_classes, work, fused=fused: fused)
            rng = np.random.RandomState(4)
            args = (X, np.arange(80), tie_factor(X), y, 2, 0.3, rng)
            out.append(rank_null.rank_branch(*args, draws=2_000, untied_draws=5_000))
    assert (out[0].strata == 0).sum() == 20 and out[0].strata.max() > 0
    np.testing.assert_array_equal(out[1].pvalues, out[0].pvalues)
    assert out[1].untied_drawn == out[0].untied_drawn == 5_000


def test_the_compiled_path_is_taken_only_where_it_is_exact_and_pays(monkeypatch):
    assert "numba" in sys.modules  # (the tests above compiled the kernel)
    assert rank_null._fused(rank_null.EXACT_RANKS, 2, 1.0)
    assert not rank_null._fused(rank_null.EXACT_RANKS + 1, 2, 1.0)
    assert not rank_null._fused(rank_null.EXACT_RANKS + 1, 2, 10 * NUMBA_MIN_WORK)
    assert not rank_null._fused(62, 3, 10 * NUMBA_MIN_WORK)  # (two classes only)
    # Without numba loaded, only work that pays for loading it takes the compiled path.
    monkeypatch.delitem(sys.modules, "numba")
    assert not rank_null._fused(62, 2, NUMBA_MIN_WORK - 1)
    assert rank_null._fused(62, 2, NUMBA_MIN_WORK)


def test_three_classes_draw_the_same_on_the_numpy_path(monkeypatch):
    # The rule sends them to the numpy path whatever is loaded.
    codes = _codes(40, 3, seed=0)
    counts = np.bincount(codes).astype(np.float64)
    gen = _generator(3, False)
    got = rank_null._untied_scores(codes, 3, counts, _log_w(0.35), 500, gen)
    labels = _generator(3, False).permuted(np.tile(codes, (500, 1)), axis=1)
    R = np.arange(1.0, 41.0)[:, None]
    want = rank_null._scores(R, labels, 3, counts, _log_w(0.35))[0].ravel()
    np.testing.assert_array_equal(got, want)


def test_the_f_tails_are_scipy_s_bit_for_bit():
    # Repeated, zero, infinite, tiny and huge statistics, on the degrees of freedom of the
    # rank branch: each value's log tail is scipy's own, whatever else is in the array.
    F = np.array([0.0, 3.5, np.inf, 1e-300, 3.5, 7e5, 0.25, 0.0, 42.0, 1.0])
    for d1, d2 in [(1, 60), (2, 24), (3, 5)]:
        got = rank_null._logsf_f(F.reshape(2, 5), d1, d2)
        want = np.array([stats.f.logsf(v, d1, d2) for v in F]).reshape(2, 5)
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(got, stats.f.logsf(F, d1, d2).reshape(2, 5))
