"""Bounded: class counts that cannot give a meaningful analysis are refused up front in one line,
the terminal lists the largest classes and counts the rest, and the free disk space is checked
before the analysis."""

import collections
import time

import numpy as np
import pandas as pd
import pytest

from widefs.cli import main
from widefs.cli._main import _top_classes
from widefs.cli.io._checks import MAX_CLASSES, check_classes
from widefs.exceptions import DataError


def write(path, n_classes, per_class, p=3, seed=0):
    rng = np.random.default_rng(seed)
    n = n_classes * per_class
    frame = pd.DataFrame(rng.normal(size=(n, p)).round(3), columns=[f"g{j}" for j in range(p)])
    frame["class"] = [f"c{i // per_class}" for i in range(n)]
    frame.to_csv(path, index=False)
    return str(path)


def no_analysis(*args, **kwargs):
    raise AssertionError("the analysis started")


def test_ten_thousand_classes_of_two_are_refused_within_seconds(tmp_path, capsys, monkeypatch):
    data = write(tmp_path / "many.csv", 10_000, 2)
    monkeypatch.setattr("widefs.cli._main._analyse", no_analysis)
    t0 = time.perf_counter()
    assert main(["run", data, "--out", str(tmp_path / "out")]) == 2
    elapsed = time.perf_counter() - t0
    out, err = capsys.readouterr()
    assert err.count("\n") == 1
    assert "'class' has 10000 classes for 20000 samples (2.0 per class): too many classes" in err
    assert elapsed < 10, elapsed  # (about 1 s)
    assert len(out.splitlines()) <= 2  # no class listing on the terminal
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("n_classes", "per_class", "refused"),
    [
        (20, 2, False),  # up to 20 classes, 2 examples each are enough
        (21, 2, True),  # beyond 20, on average at least 3
        (21, 3, False),
        (30, 2, True),
        (MAX_CLASSES, 3, False),
        (MAX_CLASSES + 1, 3, True),
        (MAX_CLASSES + 1, 10, True),
    ],
)
def test_class_bounds_at_their_edges(n_classes, per_class, refused):
    y = np.repeat([f"c{i}" for i in range(n_classes)], per_class)
    if refused:
        with pytest.raises(DataError, match=f"has {n_classes} classes for {y.size} samples"):
            check_classes(y, "class")
    else:
        check_classes(y, "class")


def test_uneven_classes_count_on_average():
    """Beyond 20 classes the average class size counts, not the smallest class."""
    y = np.array(["big"] * 60 + [f"c{i}" for i in range(29) for _ in range(2)])
    check_classes(y, "class")  # 30 classes, 118 samples: 3.9 per class
    y = np.array(["big"] * 20 + [f"c{i}" for i in range(29) for _ in range(2)])
    with pytest.raises(DataError, match="30 classes for 78 samples"):
        check_classes(y, "class")


def test_the_terminal_lists_the_largest_classes_and_counts_the_rest():
    rng = np.random.default_rng(1)
    classes = np.array([f"c{i:03d}" for i in range(200)])
    counts = rng.integers(2, 50, size=200)
    names, shown = _top_classes(classes, counts)
    assert len(names) == len(shown) == 12
    assert names[-1] == "189 more classes" and sum(shown) == counts.sum()
    expected = collections.Counter(dict(zip(classes, counts, strict=True)))
    top = sorted(expected.items(), key=lambda kv: (-kv[1], kv[0]))[:11]
    assert list(zip(names[:11], shown[:11], strict=True)) == top
    few = (classes[:12], counts[:12])  # 12 or fewer: all listed, in their order
    assert _top_classes(*few) == (list(few[0]), list(few[1]))


def test_free_disk_space_is_checked_before_the_analysis(tmp_path, capsys, monkeypatch):
    data = write(tmp_path / "d.csv", 2, 10, p=50_000)
    monkeypatch.setattr("widefs.cli._main._analyse", no_analysis)
    usage = collections.namedtuple("usage", "total used free")
    monkeypatch.setattr(
        "widefs.cli._guard.shutil.disk_usage", lambda path: usage(10**9, 10**9 - 30e6, 30e6)
    )
    assert main(["run", data, "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "30 MB free on its disk, and the report may need 50 MB" in err
    assert not (tmp_path / "out").exists()
