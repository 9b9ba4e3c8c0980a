"""The out-of-core screen with its fits spilled to a temporary file: the same fit, bit for bit.

A large out-of-core matrix's gaussian fits wait for limma's priors in a temporary file
(``widefs._utils._spill``) instead of memory. Forced here on small matrices
(``SPILL_MIN_BYTES = 0``): every fitted attribute equals the in-memory fit's, the file is
read back and closed, and closed too when the fit stops on an error or an interrupt.
"""

import os
import tempfile

import numpy as np
import pytest

import widefs._utils._spill as spill_module
import widefs.univariate._screen_moderated as moderated_module
from widefs._utils._spill import SpilledArray, SpillFile, spill_file
from widefs.stats import fit_f_dist
from widefs.univariate import ClassDifferenceScreen

pytestmark = pytest.mark.filterwarnings("ignore")

FITTED = (
    "pvalues_",
    "min_pvalues_",
    "kinds_",
    "location_statistics_",
    "spread_statistics_",
    "spread_weights_",
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
    assert len(forced.files) == 1 and forced.files[0].closed
    for name in FITTED:
        np.testing.assert_array_equal(getattr(got, name), getattr(ref, name), err_msg=name)
    assert got.prior_ == ref.prior_ and got.threshold_ == ref.threshold_
    assert ref.kind_counts_["gaussian"] > 1000 and ref.support_.any()


def test_spilled_fit_from_zarr_equals_the_in_memory_fit(forced):
    zarr = pytest.importorskip("zarr")
    X, y = _mixed(3, (15, 15))
    z = zarr.create_array(store={}, shape=X.shape, chunks=(X.shape[0], 200), dtype="f4")
    z[:] = X
    ref = ClassDifferenceScreen(random_state=0).fit(X, y)
    got = ClassDifferenceScreen(random_state=0).fit(z, y)
    assert forced.files and all(f.closed for f in forced.files)
    for name in FITTED:
        np.testing.assert_array_equal(getattr(got, name), getattr(ref, name), err_msg=name)


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
    assert len(forced.files) == 1 and forced.files[0].closed


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
    assert len(forced.files) == 1 and forced.files[0].closed


def test_the_file_leaves_nothing_in_the_temporary_directory(forced, tmp_path, monkeypatch):
    spills = tmp_path / "spills"
    spills.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(spills))
    X, y = _mixed(4, (15, 15))
    seen = []
    branch = moderated_module._branch

    def looking(screen, passed):  # while the fits are in the file
        seen.append(sorted(p.name for p in spills.iterdir()))
        branch(screen, passed)

    monkeypatch.setattr(moderated_module, "_branch", looking)
    ClassDifferenceScreen(random_state=0).fit(_memmap(tmp_path, X), y)
    assert forced.files and forced.files[0].closed
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
