"""The run's matrix in one mapped file that joblib's worker processes open by name."""

import os
from types import SimpleNamespace

import numpy as np
from joblib import Parallel, delayed

import widefs.cli.io._shared as shared


def _backing(X):
    """(the file behind the array a worker received, its first row's sum)."""
    base = X
    while base is not None and not isinstance(base, np.memmap):
        base = base.base
    return (None if base is None else base.filename), float(X[0].sum())


def test_workers_open_the_runs_file_and_the_file_goes_at_the_end(monkeypatch, tmp_path):
    monkeypatch.setattr(shared, "SHARE_BYTES", 1024)
    monkeypatch.setenv("JOBLIB_TEMP_FOLDER", str(tmp_path))
    X = np.arange(4000, dtype=np.float32).reshape(40, 100)
    data = SimpleNamespace(X=X.copy())
    with shared.shared_matrix(data, jobs=2):
        assert type(data.X) is np.ndarray and data.X.dtype == np.float32  # in-memory paths
        np.testing.assert_array_equal(data.X, X)
        (path,) = [str(p) for p in tmp_path.iterdir()]
        assert _backing(data.X)[0] == path
        got = Parallel(n_jobs=2)(delayed(_backing)(data.X) for _ in range(2))
        # Handed on by name: no other file was written for the call.
        assert got == [(path, float(X[0].sum()))] * 2
        assert [str(p) for p in tmp_path.iterdir()] == [path]
        data.X[0, 0] = -1.0  # copy-on-write: writable, the file keeps its values
        assert np.fromfile(path, dtype=np.float32)[0] == 0.0
    assert not os.path.exists(path)
    assert data.X[0, 1] == 1.0  # still readable after the file is gone


def test_one_job_a_small_matrix_or_a_non_contiguous_one_is_left_as_it_is(monkeypatch):
    X = np.ones((10, 10))
    for jobs, limit, M in ((1, 0, X), (2, 10**9, X), (2, 0, np.asfortranarray(X[:, :5]))):
        monkeypatch.setattr(shared, "SHARE_BYTES", limit)
        data = SimpleNamespace(X=M)
        with shared.shared_matrix(data, jobs):
            assert data.X is M
