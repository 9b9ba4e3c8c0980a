"""The out-of-core screen with its fits spilled to a temporary file: the same fit, bit for bit.

A large out-of-core matrix's gaussian fits wait for limma's priors in a temporary file
(``widefs._utils._spill``) instead of memory, and its fitted arrays but ``pvalues_`` stay in
another, mapped read-only. Forced here on small matrices (``SPILL_MIN_BYTES = 0``): every
fitted attribute equals the in-memory fit's, the files are read back and closed, and closed
too when the fit stops on an error or an interrupt; the fitted arrays cannot be written,
pickle gives plain arrays, and the file's space goes with the last view.
"""

import contextlib
import gc
import os
import pickle
import tempfile

import numpy as np
import pytest

import widefs._utils._spill as spill_module
import widefs.univariate._screen as screen_module
import widefs.univariate._screen_moderated as moderated_module
import widefs.univariate._screen_select as select_module
from widefs._utils._spill import SpilledArray, SpillFile, spill_file
from widefs.stats import fit_f_dist
from widefs.univariate import ClassDifferenceScreen

pytestmark = pytest.mark.filterwarnings("ignore")

#: The fitted arrays a spilled fit keeps in its file (all but pvalues_).
SPILLED = (
    "kinds_",
    "location_statistics_",
    "spread_statistics_",
    "constant_features_",
    "testable_",
    "support_",
)


def _mixed(seed, classes):
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(len(classes)), classes)
    n = y.size
    X = np.column_stack(
        [
            rng.normal(size=(n, 1500)),
            rng.lognormal(size=(n, 80)),
            rng.poisson(0.7, size=(n, 60)).astype(float),
            (rng.random((n, 50)) < 0.3).astype(float),
            np.full((n, 3), 2.0),
        ]
    ).astype(np.float32)
    X[:, :15] += np.float32(3.0) * (y[:, None] == 1)
    X[:, 1400:1410] *= np.where(y == 0, 3.0, 1.0).astype(np.float32)[:, None]
    return X[:, rng.permutation(X.shape[1])], y


class _Recorder:
    """Every SpillFile a fit opens (and whether it was closed)."""

    def __init__(self, monkeypatch):
        self.files = []
        init = SpillFile.__init__

        def recorded(this):
            init(this)
            self.files.append(this)

        monkeypatch.setattr(SpillFile, "__init__", recorded)


@pytest.fixture
def forced(monkeypatch):
    monkeypatch.setattr(spill_module, "SPILL_MIN_BYTES", 0)
    # Several blocks of the first pass and of the moderated branch.
    monkeypatch.setattr("widefs.univariate._kinds._BLOCK_BYTES", 8 * 30 * 256)
    monkeypatch.setattr(moderated_module, "_BLOCK_BYTES", 128 * 97)
    monkeypatch.setattr("widefs.stats._moderated._BLOCK", 211)
    return _Recorder(monkeypatch)


def _assert_same_fit(got, ref):
    """Every fitted attribute of ``got`` (spilled) equals ``ref``'s (in memory), bit for bit,
    with the same dtype and shape; the spilled arrays are read-only maps."""
    names = [k for k in vars(ref) if k.endswith("_") and not k.startswith("_")]
    names += ["scores_", "min_pvalues_", "spread_weights_"]
    for name in names:
        a, b = getattr(got, name), getattr(ref, name)
        if isinstance(b, np.ndarray):
            assert a.dtype == b.dtype and a.shape == b.shape, name
            np.testing.assert_array_equal(a, b, err_msg=name)
        else:
            assert a == b, name
    for name in SPILLED:
        a = getattr(got, name)
        assert isinstance(a, np.memmap) and not a.flags.writeable, name
        assert not isinstance(getattr(ref, name), np.memmap), name
    assert isinstance(got.pvalues_, np.ndarray) and not isinstance(got.pvalues_, np.memmap)


def _memmap(tmp_path, X):
    mm = np.lib.format.open_memmap(tmp_path / "x.npy", mode="w+", dtype=X.dtype, shape=X.shape)
    mm[:] = X
    mm.flush()
    return np.load(tmp_path / "x.npy", mmap_mode="r")


@pytest.mark.parametrize(
    "classes, params",
    [
        ((15, 15), {}),  # spread on, auto shares: the pooled variances spill too
        ((15, 15), {"spread_weight": 0.2}),
        ((14, 15, 13), {}),
        ((6, 7), {}),  # the spread off: the location fit only
        ((15, 15), {"threshold": "bonferroni", "alpha": 0.2}),
    ],
)
def test_spilled_fit_equals_the_in_memory_fit(classes, params, forced, tmp_path):
    X, y = _mixed(sum(classes), classes)
    ref = ClassDifferenceScreen(random_state=1, **params).fit(X, y)
    got = ClassDifferenceScreen(random_state=1, **params).fit(_memmap(tmp_path, X), y)
    # The fits' file, the kept mid-ranks', then the fitted arrays' (closed once mapped).
    assert len(forced.files) == 3 and all(f.closed for f in forced.files)
    _assert_same_fit(got, ref)
    assert got.prior_ == ref.prior_ and got.threshold_ == ref.threshold_
    assert ref.kind_counts_["gaussian"] > 1000 and ref.support_.any()


def test_spilled_fit_from_zarr_equals_the_in_memory_fit(forced):
    zarr = pytest.importorskip("zarr")
    X, y = _mixed(3, (15, 15))
    z = zarr.create_array(store={}, shape=X.shape, chunks=(X.shape[0], 200), dtype="f4")
    z[:] = X
    ref = ClassDifferenceScreen(random_state=0).fit(X, y)
    got = ClassDifferenceScreen(random_state=0).fit(z, y)
    assert len(forced.files) == 3 and all(f.closed for f in forced.files)
    _assert_same_fit(got, ref)


def test_no_spill_in_memory_or_below_the_threshold(monkeypatch, tmp_path):
    assert spill_file(False, 10**12) is None
    assert spill_file(True, spill_module.SPILL_MIN_BYTES) is None
    with spill_file(True, spill_module.SPILL_MIN_BYTES + 1) as f:
        assert isinstance(f, SpillFile)
    assert f.closed
    rec = _Recorder(monkeypatch)
    X, y = _mixed(0, (15, 15))
    ClassDifferenceScreen(random_state=0).fit(_memmap(tmp_path, X), y)  # 40 B x 1,700: kept
    assert rec.files == []


def test_the_file_is_closed_when_the_first_pass_fails(forced, tmp_path):
    X, y = _mixed(1, (15, 15))
    X[3, 1600] = np.nan  # in a late block: the file holds fits by then
    with pytest.raises(ValueError, match="NaN or infinity"):
        ClassDifferenceScreen(random_state=0).fit(_memmap(tmp_path, X), y)
    # The fits' file and the kept mid-ranks' (ranked features came before the NaN).
    assert len(forced.files) == 2 and all(f.closed for f in forced.files)


@pytest.mark.parametrize("error", [KeyboardInterrupt, RuntimeError])
def test_the_file_is_closed_when_the_moderated_tests_fail(error, forced, tmp_path, monkeypatch):
    calls = []

    def failing(*args, **kwargs):
        calls.append(1)
        if len(calls) == 3:  # after some blocks were read back
            raise error("stop")
        return moderated_f(*args, **kwargs)

    moderated_f = moderated_module.moderated_f
    monkeypatch.setattr(moderated_module, "moderated_f", failing)
    X, y = _mixed(2, (15, 15))
    with pytest.raises(error):
        ClassDifferenceScreen(random_state=0).fit(_memmap(tmp_path, X), y)
    assert len(forced.files) == 3 and all(f.closed for f in forced.files)


def test_the_file_leaves_nothing_in_the_temporary_directory(forced, tmp_path, monkeypatch):
    spills = tmp_path / "spills"
    spills.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(spills))
    X, y = _mixed(4, (15, 15))
    seen = []
    branch = moderated_module._branch

    def looking(screen, passed, spill=None):  # while the fits are in the file
        seen.append(sorted(p.name for p in spills.iterdir()))
        branch(screen, passed, spill)

    monkeypatch.setattr(moderated_module, "_branch", looking)
    ClassDifferenceScreen(random_state=0).fit(_memmap(tmp_path, X), y)
    assert len(forced.files) == 3 and all(f.closed for f in forced.files)
    assert list(spills.iterdir()) == []
    if os.name == "posix":  # unlinked at creation: no name at any time
        assert seen == [[]]


def test_spilled_arrays_read_back_what_was_written():
    rng = np.random.default_rng(0)
    with SpillFile() as f:
        a, b = f.array((10, 2)), f.array(7)
        va, vb = rng.normal(size=(10, 2)), rng.normal(size=7)
        a[0:4] = va[:4]
        b[:] = vb
        a[4:10] = va[4:]
        np.testing.assert_array_equal(a[:], va)  # bits, not rounding: the same bytes
        np.testing.assert_array_equal(a[3:5], va[3:5])
        np.testing.assert_array_equal(b[2:], vb[2:])
        assert a[5:5].shape == (0, 2) and b[9:].shape == (0,)
        h = b.head(3)
        assert (h.shape, h.size, h.ndim, len(h)) == ((3,), 3, 1, 3)
        np.testing.assert_array_equal(h[:], vb[:3])
        np.testing.assert_array_equal(np.concatenate(list(b.blocks(3))), vb)
        assert [v.tolist() for v in b.blocks(1)] == [[v] for v in vb.tolist()]
        b[1:3] = 0.5  # broadcast
        assert b[:4].tolist() == [vb[0], 0.5, 0.5, vb[3]]
        with pytest.raises(TypeError, match=r"^a spilled array is read and written by ranges"):
            a[::2]
        with pytest.raises(TypeError, match="ranges of rows"):
            a[np.arange(2)] = 0.0
        # The regions follow each other: the file is as long as the values written.
        assert os.fstat(f._file.fileno()).st_size == 8 * (20 + 7)
        c = f.array(5)  # never written, at the end of the file
        with pytest.raises(ValueError, match=r"^read past the written values of a spill file\.$"):
            c[:]
        f.write(c.offset, np.arange(5))  # integers: stored as float64
        assert c[:].tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
        assert os.fstat(f._file.fileno()).st_size == 8 * (20 + 7 + 5)
    assert f.closed


def test_the_prior_from_a_spilled_array_equals_numpys(forced):
    rng = np.random.default_rng(1)
    s2 = 0.4 * rng.chisquare(5, 3001) / 5 / (rng.chisquare(8, 3001) / 8)
    s2[[3, 77]] = [0.0, np.inf]  # left out or floored, as in memory
    with SpillFile() as f:
        a = f.array(s2.size)
        a[:] = s2
        assert isinstance(a, SpilledArray)
        assert fit_f_dist(a, 5.0) == fit_f_dist(s2, 5.0)
        assert fit_f_dist(a, np.full(s2.size, 5.0)) == fit_f_dist(s2, 5.0)


needs_proc = pytest.mark.skipif(
    not os.path.isdir("/proc/self/fd"), reason="open files listed in /proc/self/fd"
)


@pytest.fixture
def spills(tmp_path, monkeypatch):
    """The temporary directory of the spill files: a new one, to see what points into it."""
    path = tmp_path / "spills"
    path.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(path))
    return path


def _open_in(path) -> int:
    """Descriptors and mappings of this process on files of ``path`` (unlinked ones too)."""
    found = 0
    for fd in os.listdir("/proc/self/fd"):
        with contextlib.suppress(OSError):  # the directory's own descriptor, closed by now
            found += os.readlink(f"/proc/self/fd/{fd}").startswith(str(path))
    with open("/proc/self/maps") as maps:
        found += sum(str(path) in line for line in maps)
    return found


def _fit(tmp_path, seed=4, **params):
    X, y = _mixed(seed, (15, 15))
    return ClassDifferenceScreen(random_state=0, **params).fit(_memmap(tmp_path, X), y), X, y


def test_the_spilled_arrays_are_read_only(forced, tmp_path):
    got, _, _ = _fit(tmp_path)
    for name in SPILLED:
        with pytest.raises(ValueError, match="read-only"):
            getattr(got, name)[0] = 0
    with pytest.raises(ValueError, match="read-only"):
        got._min_pvalues.codes[0] = 0
    got.pvalues_[0] = got.pvalues_[0]  # in memory, as in every fit


def test_a_pickled_spilled_fit_holds_plain_arrays_of_the_same_values(forced, tmp_path):
    got, X, _ = _fit(tmp_path)
    back = pickle.loads(pickle.dumps(got))
    for name in (*SPILLED, "min_pvalues_", "spread_weights_", "pvalues_"):
        a = getattr(back, name)
        assert type(a) is np.ndarray and a.flags.writeable, name
        b = getattr(got, name)
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_array_equal(a, b, err_msg=name)
    assert type(back._spread_weights.codes) is np.ndarray
    assert isinstance(got.kinds_, np.memmap)  # the fit itself keeps its maps
    np.testing.assert_array_equal(back.transform(X), got.transform(X))
    assert back.select_under("bonferroni")[0] == got.select_under("bonferroni")[0]


@needs_proc
def test_the_file_goes_with_the_fit(forced, tmp_path, spills):
    got, _, _ = _fit(tmp_path)
    assert list(spills.iterdir()) == []  # unnamed: never listed
    assert _open_in(spills) > 0  # the map holds the unlinked file
    kinds = got.kinds_
    del got
    gc.collect()
    assert _open_in(spills) > 0  # a view kept by the caller keeps it
    del kinds
    gc.collect()
    assert _open_in(spills) == 0


@needs_proc
@pytest.mark.parametrize("error", [KeyboardInterrupt, RuntimeError])
@pytest.mark.parametrize("where", ["binary_exact_pvalues", "bh_cut", "rank_branch"])
def test_an_error_after_the_first_pass_leaves_no_file(forced, tmp_path, spills, error, where):
    def failing(*args, **kwargs):
        raise error("stop")

    monkeypatch = pytest.MonkeyPatch()
    monkeypatch.setattr(select_module if where == "bh_cut" else screen_module, where, failing)
    try:
        with pytest.raises(error):
            _fit(tmp_path)
    finally:
        monkeypatch.undo()
    gc.collect()
    assert len(forced.files) == 3 and all(f.closed for f in forced.files)
    assert _open_in(spills) == 0


@pytest.mark.parametrize("params", [{"threshold": 7}, {"threshold": "bonferroni"}, {}])
def test_the_rules_on_a_spilled_fit_equal_the_in_memory_ones(forced, tmp_path, params):
    X, y = _mixed(5, (15, 15))
    ref = ClassDifferenceScreen(random_state=2, **params).fit(X, y)
    got = ClassDifferenceScreen(random_state=2, **params).fit(_memmap(tmp_path, X), y)
    _assert_same_fit(got, ref)
    for rule, alpha in (("fdr", 0.2), ("bonferroni", 0.05), (3, None)):
        cut, support = got.select_under(rule, alpha)
        ref_cut, ref_support = ref.select_under(rule, alpha)
        assert cut == ref_cut
        np.testing.assert_array_equal(support, ref_support)


def test_below_the_threshold_the_fitted_arrays_stay_in_memory(tmp_path):
    got, _, _ = _fit(tmp_path)  # no spill forced: 1,700 features
    for name in SPILLED:
        assert type(getattr(got, name)) is np.ndarray, name


@pytest.fixture
def small_blocks(monkeypatch):
    """Blocks of every per-feature step far smaller than the features (the sizes below)."""
    import widefs._utils._streaming as streaming
    import widefs.stats._moderated as stats_moderated

    monkeypatch.setattr(spill_module, "SPILL_MIN_BYTES", 0)
    monkeypatch.setattr("widefs.univariate._kinds._BLOCK_BYTES", 2**18)
    for module in (moderated_module, screen_module, select_module):
        monkeypatch.setattr(module, "_BLOCK_BYTES", 2**16)
    monkeypatch.setattr(stats_moderated, "_BLOCK", 4096)
    monkeypatch.setattr(streaming, "_GATHER", 4096)


def _traced_fit(tmp_path, X, y, spill, monkeypatch):
    """Bytes a fit keeps (traced by tracemalloc) and the selection's extra peak."""
    import tracemalloc

    monkeypatch.setattr(spill_module, "SPILL_MIN_BYTES", 0 if spill else 2**62)
    summarize = screen_module.summarize
    extra = []

    def measured(screen, new):
        before = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        summarize(screen, new)
        extra.append(tracemalloc.get_traced_memory()[1] - before)

    monkeypatch.setattr(screen_module, "summarize", measured)
    Xm = _memmap(tmp_path, X)
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        screen = ClassDifferenceScreen(random_state=0).fit(Xm, y)
        kept = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    return screen, kept, extra[0]


def test_a_spilled_fit_keeps_the_pvalues_only(small_blocks, tmp_path, monkeypatch):
    # The slope of the memory kept between two sizes (fixed costs cancel): 8 bytes a feature
    # (pvalues_) spilled, the 30 of the fitted arrays in memory. Every p-value is small (a
    # shift in every feature): Benjamini-Hochberg's candidates are all of them, 8 bytes each.
    rng = np.random.default_rng(7)
    y = np.repeat([0, 1], 15)
    kept, extra = {}, {}
    for m in (2_000, 40_000, 80_000):  # the first: caches filled once per process
        X = rng.standard_normal((30, m)).astype(np.float32)
        X += np.float32(2.0) * y[:, None].astype(np.float32)
        for spill in (True, False):
            (tmp_path / f"{m}{spill}").mkdir()
            screen, kept[m, spill], extra[m, spill] = _traced_fit(
                tmp_path / f"{m}{spill}", X, y, spill, monkeypatch
            )
            assert screen.support_.mean() > 0.9  # nearly every p-value a candidate
    per_feature = {s: (kept[80_000, s] - kept[40_000, s]) / 40_000 for s in (True, False)}
    assert 7.5 <= per_feature[True] <= 8.5, per_feature
    assert per_feature[False] >= 29.0, per_feature
    # The selection's temporaries: the candidates (8 bytes each) and blocks.
    assert (extra[80_000, True] - 4 * 2**16) / 80_000 <= 8.5, extra


def test_spill_files_hold_any_dtype_aligned_and_map_read_only():
    f = SpillFile()
    assert f.map() is None and f.closed  # nothing to map
    f = SpillFile()
    a = f.array(3)
    a[:] = [1.5, 2.5, 3.5]
    b = f.zeros(5, np.int8)
    c = f.store(np.array([True, False, True]))
    d = f.zeros((2, 3))
    # Regions start at multiples of 8 bytes; sizes in their own dtype.
    assert [x.offset for x in (a, b, c, d)] == [0, 24, 32, 40]
    assert (b.dtype, b.nbytes, c.dtype, c.nbytes, d.nbytes) == (np.int8, 5, bool, 3, 48)
    assert b[:].dtype == np.int8 and b[:].tolist() == [0] * 5  # zeros before any write
    b.put([1, 3], [7, -9])
    b.put(np.array([0, 4]), [1, 2], span=2)  # two read-modify-writes of the rows
    assert b[:].tolist() == [1, 7, 0, -9, 2]
    assert os.fstat(f._file.fileno()).st_size == 88  # d's zeros: the file extended to them
    whole = f.map()
    assert f.closed and isinstance(whole, np.memmap)
    views = [x.mapped(whole) for x in (a, b, c, d)]
    assert [v.dtype for v in views] == [np.float64, np.int8, bool, np.float64]
    assert views[0].tolist() == [1.5, 2.5, 3.5] and views[1].tolist() == [1, 7, 0, -9, 2]
    assert views[2].tolist() == [True, False, True] and views[3].tolist() == [[0.0] * 3] * 2
    for v in views:
        assert isinstance(v, np.memmap) and not v.flags.writeable
        with pytest.raises(ValueError, match="read-only"):
            v[0] = 0


def test_put_writes_scattered_rows_as_ndarray_put():
    rng = np.random.default_rng(3)
    values = rng.normal(size=50)
    index = np.sort(rng.choice(50, size=17, replace=False))
    new = rng.normal(size=17)
    with SpillFile() as f:
        a = f.store(values)
        a.put(index, new, span=7)
        a.put(np.zeros(0, np.intp), [])  # nothing
        expected = values.copy()
        expected.put(index, new)
        np.testing.assert_array_equal(a[:], expected)


def test_put_reads_and_writes_runs_of_at_most_span_rows(monkeypatch):
    # The runs are the indices in each cell of a grid of span rows from the first index:
    # each is read and written back whole (its rows from its first to its last index).
    reads = []
    read = SpillFile.read

    def recorded(self, offset, out):
        reads.append((offset // 8, offset // 8 + out.size))
        return read(self, offset, out)

    with SpillFile() as f:
        a = f.store(np.arange(20.0))
        monkeypatch.setattr(SpillFile, "read", recorded)
        a.put([2, 3, 5, 6, 9], [-1.0] * 5, span=4)  # cells [2, 6), [6, 10)
        assert reads == [(2, 6), (6, 10)]
        reads.clear()
        a.put([0, 2, 4], [-2.0, -3.0, -4.0], span=4)  # the last index on a cut: its own run
        assert reads == [(0, 3), (4, 5)]
        reads.clear()
        a.put([11, 19], [-5.0, -6.0], span=4)  # empty cells between: two runs of one row
        assert reads == [(11, 12), (19, 20)]
        monkeypatch.undo()
        expected = np.arange(20.0)
        expected[[2, 3, 5, 6, 9]] = -1.0
        expected[[0, 2, 4, 11, 19]] = [-2.0, -3.0, -4.0, -5.0, -6.0]
        np.testing.assert_array_equal(a[:], expected)
        assert f.array(4, np.int8).head(2).dtype == np.int8
        g = f.array(3)
        g[:] = np.arange(3)  # integers into a float64 array: stored as float64
        assert g[:].tolist() == [0.0, 1.0, 2.0]
