"""Boundary checks of the screen's numpy twins and stored shape limits, written for their
mutants: every row of a written table, the rule's threshold, chunks and the table's reader."""

import math
import warnings

import numpy as np

import widefs.univariate._shape_table as table


def test_write_table_writes_every_row_with_its_n_and_draws(tmp_path):
    path = tmp_path / "limits.csv"

    def simulate(n):
        return np.arange(1.0, 11.0) * n, np.arange(10.0) + n

    table.write_table(path, [3, 4, 9], (0.01, 0.1), 0.02, 10, simulate)
    lines = path.read_text(encoding="ascii").splitlines()
    assert lines[0] == table._HEADER and len(lines) == 4
    for line, n in zip(lines[1:], (3, 4, 9), strict=True):
        fields = line.split(",")
        assert fields[:2] == [str(n), "10"]
        values = [float.fromhex(v) for v in fields[2:]]
        skews, kurts = simulate(n)
        want = [0.01, np.quantile(skews, 0.995), 0.1, np.quantile(skews, 0.95)]
        want += [0.02, np.quantile(kurts, 0.99)]
        assert values == want


def _f_ratio_scalar(between, within, d1, d2):
    # The compiled kernel's scalar rule (its helper has no Python entry point): den = 0 gives
    # 0 when num is 0 or NaN, else an infinity of num's sign; NaN ratios give 0.
    num, den = between / d1, within / d2
    if den == 0.0:
        return 0.0 if num == 0.0 or math.isnan(num) else math.copysign(math.inf, num)
    out = num / den
    return 0.0 if math.isnan(out) else out


def test_f_ratio_equals_the_kernels_rule_on_every_special_value():
    from widefs.univariate._screen_numpy import _f_ratio

    values = [0.0, 1.0, 2.0, 2.5, -3.0, np.nan, np.inf, -np.inf]
    for d1, d2 in ((1.0, 4.0), (2.0, 9.0)):
        between, within = (a.ravel() for a in np.meshgrid(values, values))
        between = between * d1  # num = between / d1 takes each value exactly, 1.0 included
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # the division by zero is expected, not warned
            got = _f_ratio(between.copy(), within.copy(), d1, d2)
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = [_f_ratio_scalar(b, w, d1, d2) for b, w in zip(between, within, strict=True)]
        np.testing.assert_array_equal(got, want)


def test_first_pass_warns_of_nothing_on_infinite_nan_and_huge_columns():
    from widefs.univariate._screen_numpy import first_pass_block_numpy

    codes = np.repeat([0, 1], 4)
    X = np.random.default_rng(0).normal(size=(8, 4))
    X[1, 0] = np.inf  # inf - inf: invalid
    X[2, 1] = np.nan
    X[:, 2] = 7.0  # no variance
    X[:, 3] *= 1e200  # squares and fourth powers overflow
    counts = np.bincount(codes).astype(np.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = first_pass_block_numpy(X, codes, counts, True)
    assert out[12].tolist() == [False, False, True, True]


def test_rank_statistics_run_each_labelling_once_in_chunks_of_the_budget(monkeypatch):
    # Chunks of max(1, budget // (n g)) labellings, each labelling in exactly one chunk, in
    # order: the work is B labellings, not more (and the results are the unchunked ones).
    import widefs.univariate._screen_numpy as screen_numpy

    rng = np.random.default_rng(4)
    codes = np.repeat([0, 1, 2], [7, 9, 5])
    R = np.argsort(np.argsort(rng.normal(size=(21, 3)), axis=0), axis=0) + 1.0
    labels = np.stack([rng.permutation(codes) for _ in range(7)])
    counts = np.bincount(codes).astype(float)
    whole = screen_numpy.rank_f_scores_numpy(R, labels, counts, True)
    original = screen_numpy._rank_f_chunk
    seen = []

    def spy(R, Rc, tot, labels, counts, spread):
        seen.append(labels.copy())
        return original(R, Rc, tot, labels, counts, spread)

    monkeypatch.setattr(screen_numpy, "_rank_f_chunk", spy)
    for budget, sizes in ((200, [3, 3, 1]), (50, [1] * 7)):  # n g = 63 entries per labelling
        monkeypatch.setattr(screen_numpy, "_CHUNK_ENTRIES", budget)
        seen.clear()
        got = screen_numpy.rank_f_scores_numpy(R, labels, counts, True)
        assert [len(s) for s in seen] == sizes
        np.testing.assert_array_equal(np.concatenate(seen), labels)
        np.testing.assert_array_equal(got[0], whole[0])
        np.testing.assert_array_equal(got[1], whole[1])
