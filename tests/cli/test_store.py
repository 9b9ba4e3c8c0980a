"""``widefs run`` on a zarr store of presence/absence data (read where it lies, packed in bits).

The stores are made with the installed zarr's API (version 2 or 3): the oldest-dependencies
job runs these tests on zarr 2 too."""

import warnings

import numpy as np
import pytest

from widefs.cli import main
from widefs.scm import OccamSCM, SampleCompressionSCM, describe_model

zarr = pytest.importorskip("zarr")
ZARR_MAJOR = int(zarr.__version__.split(".")[0])


def _array(group, name, values, dtype, chunks=None):
    if ZARR_MAJOR >= 3:
        array = group.create_array(name, shape=values.shape, chunks=chunks or "auto", dtype=dtype)
        array[:] = values
    else:  # zarr 2: text as variable-length UTF-8 (dtype=str)
        data = values.astype(object) if dtype is str else values
        group.create_dataset(name, data=data, shape=values.shape, chunks=chunks, dtype=dtype)


def _store(path, *, n=80, p=400, dtype=bool, labels=None, names=True, target="class"):
    rng = np.random.default_rng(0)
    X = rng.random((n, p)) < 0.3
    X[:, 100:104] = X[:, [7]]  # a block of equivalent k-mers
    y = np.where(X[:, 7] | (rng.random(n) < 0.05), "resistant", "susceptible")
    group = zarr.open_group(str(path), mode="w")
    _array(group, "X", X.astype(dtype), dtype, chunks=(n, 64))
    lab = y if labels is None else labels
    _array(group, target, np.asarray(lab, dtype=str), str)
    feature_names = np.array([f"kmer_{j:04d}" for j in range(p)])
    if names:
        _array(group, "feature_names", feature_names, str)
    return X, y, feature_names


def test_run_on_a_store_reports_the_scms_and_their_equivalent_kmers(tmp_path, capsys):
    X, y, names = _store(tmp_path / "kmers.zarr")
    out = tmp_path / "out"
    assert main(["run", str(tmp_path / "kmers.zarr"), "--quick", "--out", str(out)]) == 0
    md = (out / "report.md").read_text()
    assert "zarr store: only the Set Covering Machines run" in md
    assert "## Method comparison" not in md and "## Chance analysis" not in md
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for cls in (SampleCompressionSCM, OccamSCM):
            model = cls().fit(X, y)
            text = describe_model(model, feature_names=names)
            assert text in md
            assert f"| {model.risk_bound_:.3f} |" in md
    assert "kmer_0007 <= " in md and "kmer_0100, kmer_0101, kmer_0102, kmer_0103" in md


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"dtype": np.float64}, "must hold booleans or integers"),
        ({"labels": ["a"] * 79}, "one label per sample"),
        ({"labels": ["a"] * 80}, "single class"),
        ({"labels": ["a"] * 79 + ["b"]}, "at least 2 examples"),
        ({"target": "status"}, "has no array 'class'"),
    ],
)
def test_bad_stores_fail_before_the_analysis(tmp_path, capsys, kwargs, message):
    _store(tmp_path / "bad.zarr", **kwargs)
    out = tmp_path / "out"
    assert main(["run", str(tmp_path / "bad.zarr"), "--out", str(out)]) == 2
    assert message in capsys.readouterr().err
    assert not out.exists()


def test_store_without_names_and_other_methods(tmp_path, capsys):
    _store(tmp_path / "k.zarr", names=False, target="status")
    store = str(tmp_path / "k.zarr")
    out = tmp_path / "out"
    argv = ["run", store, "--target", "status", "--methods", "chance", "--out", str(out)]
    assert main(argv) == 2
    assert "runs the scm part only" in capsys.readouterr().err
    argv = ["run", store, "--target", "status", "--methods", "scm", "--out", str(out)]
    assert main(argv) == 0
    assert "x7 <= " in (out / "report.md").read_text()


class _Payload:
    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (type(self.marker).touch, (self.marker,))


def test_a_pickled_label_array_is_refused_and_never_runs(tmp_path, capsys):
    import json
    import pickle

    store = tmp_path / "evil.zarr"
    _store(store, names=False)
    marker = tmp_path / "ran"
    for f in (store / "class").iterdir():
        f.unlink() if f.is_file() else None
    (store / "class" / ".zarray").write_text(
        json.dumps(
            {"zarr_format": 2, "shape": [80], "chunks": [80], "dtype": "|O",
             "compressor": None, "fill_value": None, "order": "C",
             "filters": [{"id": "pickle", "protocol": 4}]}
        )
    )  # fmt: skip
    (store / "class" / "0").write_bytes(pickle.dumps(_Payload(marker), protocol=4))
    out = tmp_path / "out"
    assert main(["run", str(store), "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert "refused codec 'pickle'" in err and "array 'class'" in err
    assert len(err.splitlines()) == 1 and not marker.exists() and not out.exists()


def test_a_damaged_feature_chunk_is_one_line(tmp_path, capsys):
    store = tmp_path / "k.zarr"
    _store(store)
    chunks = [
        f
        for f in (store / "X").rglob("*")
        if f.is_file() and f.name != "zarr.json" and not f.name.startswith(".")
    ]
    chunks[0].write_bytes(b"\x00garbage")
    out = tmp_path / "out"
    assert main(["run", str(store), "--quick", "--out", str(out)]) == 2
    # After the lines of the stages that ran (stderr is not a terminal), one line.
    lines = [x for x in capsys.readouterr().err.splitlines() if not x.startswith("widefs: [")]
    assert len(lines) == 1 and "cannot read its values" in lines[0]
