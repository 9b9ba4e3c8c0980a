"""Bounded work on any input: the shape is checked against the memory budget before the numbers
are read, a decompression bomb is refused in one line while memory stays flat, headers of any
length are read whole, and parquet/feather hold the numbers once."""

import gzip
import os
import resource
import time
import tracemalloc
import zlib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from widefs.cli import main
from widefs.cli.io import _memory as memory
from widefs.cli.io._data import load_cli_data
from widefs.cli.io._memory import Budget, check_fits, memory_budget, numbers_need, parse_size
from widefs.exceptions import DataError

MB = 1 << 20


def test_sizes_parse_and_bad_ones_are_one_line():
    assert parse_size("8G") == 8 << 30 and parse_size("500m") == 500 << 20
    assert parse_size("1.5GB") == 3 << 29 and parse_size("2000000000") == 2_000_000_000
    assert parse_size(" 64 KiB ") == 64 << 10
    for bad in ("", "-1G", "0", "8X", "G", "1e9"):
        with pytest.raises(DataError, match="--max-memory must be a size such as 8G"):
            parse_size(bad)


def test_need_counts_the_copies_of_the_numbers():
    # 100 x 50,000 doubles (38 MB) four times over, plus a name per column and a label per row.
    assert numbers_need(100, 50_000) == 100 * 50_000 * 8 * 4 + 50_000 * 200 + 100 * 200
    assert numbers_need(0, 10) == 2000


def test_budget_is_the_smallest_limit(monkeypatch):
    monkeypatch.setattr(memory, "_meminfo_available", lambda: 8 << 30)
    monkeypatch.setattr(memory, "_cgroup_available", lambda: None)
    monkeypatch.setattr(memory, "_address_space_available", lambda: None)
    assert memory_budget().limit == 8 << 30 and "free memory" in memory_budget().source
    monkeypatch.setattr(memory, "_cgroup_available", lambda: 3 << 30)
    assert memory_budget().limit == 3 << 30 and "cgroup" in memory_budget().source
    monkeypatch.setattr(memory, "_address_space_available", lambda: 1 << 30)
    budget = memory_budget()
    assert budget.limit == 1 << 30 and "ulimit -v" in budget.source + budget.hint
    given = memory_budget(5 << 30)
    assert (given.limit, given.source) == (5 << 30, "set by --max-memory")


def test_each_limit_says_where_it_comes_from_and_how_to_raise_it(monkeypatch):
    sources = {
        "_address_space_available": (
            "of room under the address-space limit (ulimit -v)",
            "raise it with ulimit -v (widefs and its libraries take about 1 GB of it)",
        ),
        "_cgroup_available": (
            "of room under the container's memory limit (cgroup memory.max)",
            "raise the container's memory limit or use a larger machine",
        ),
        "_meminfo_available": (
            "of free memory on this machine",
            "free memory, use a larger machine, or pass --max-memory SIZE to try anyway",
        ),
    }
    for name in sources:
        for other in sources:
            monkeypatch.setattr(memory, other, lambda v=(1 << 30 if other == name else None): v)
        budget = memory_budget()
        assert (budget.limit, budget.source, budget.hint) == (1 << 30, *sources[name])
    given = memory_budget(5 << 30)
    assert (given.source, given.hint) == (
        "set by --max-memory",
        "raise --max-memory if the machine has more",
    )


def test_a_tie_between_limits_keeps_the_first_found(monkeypatch):
    # The container's limit and the free memory are equal: the container's is named (the
    # order checked), not the alphabetically first source.
    monkeypatch.setattr(memory, "_address_space_available", lambda: None)
    monkeypatch.setattr(memory, "_cgroup_available", lambda: 3 << 30)
    monkeypatch.setattr(memory, "_meminfo_available", lambda: 3 << 30)
    assert "cgroup" in memory_budget().source


def test_address_space_headroom_follows_ulimit(monkeypatch):
    status = Path("/proc/self/status").read_text()
    used = int(next(ln.split()[1] for ln in status.splitlines() if ln.startswith("VmSize"))) << 10
    limit = used + memory.ANALYSIS_RESERVE + 300 * MB
    monkeypatch.setattr(memory.resource, "getrlimit", lambda which: (limit, limit))
    headroom = memory._address_space_available()
    assert 250 * MB < headroom < 350 * MB  # what the process does not use yet, less the reserve


def test_refusal_says_the_limit_and_how_to_raise_it():
    budget = Budget(919 * MB, "of room under the address-space limit (ulimit -v)", "raise it")
    check_fits(900 * MB, budget, "x.csv")
    with pytest.raises(DataError) as info:
        check_fits(932 * MB, budget, "x.csv (101 columns, over 285,342 lines)")
    assert str(info.value) == (
        "x.csv (101 columns, over 285,342 lines) would need about 932 MB of memory, more than "
        "the 919 MB of room under the address-space limit (ulimit -v); raise it"
    )


def _bomb(path, megabytes):
    """A gzip file of valid numeric rows that expands ~300-fold (the issue's 1.5 MB -> 1 GB)."""
    rows = ("0.5," * 100 + "a\n" + "0.25," * 100 + "b\n").encode() * 2500
    z = zlib.compressobj(9, zlib.DEFLATED, 31)
    with open(path, "wb") as fh:
        fh.write(z.compress((",".join(f"g{j}" for j in range(100)) + ",class\n").encode()))
        for _ in range(megabytes):
            fh.write(z.compress(rows))
        fh.write(z.flush())
    return path


def test_a_gzip_bomb_is_refused_in_one_line_with_memory_flat(tmp_path, capsys):
    path = _bomb(tmp_path / "bomb.csv.gz", 200)  # 0.6 MB expanding to 200 MB of rows
    assert path.stat().st_size < 2 * MB
    tracemalloc.start()
    t0 = time.perf_counter()
    try:
        status = main(["run", str(path), "--max-memory", "64M", "--out", str(tmp_path / "o")])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert status == 2 and time.perf_counter() - t0 < 20
    err = capsys.readouterr().err
    assert err.startswith(f"widefs: error: {path} (101 columns, at least ") and err.count("\n") == 1
    assert "would need about" in err and "more than the 64 MB set by --max-memory" in err
    assert peak < 24 * MB, peak  # read in chunks: no copy of the file, no matrix
    assert not (tmp_path / "o").exists()


def test_the_address_space_limit_refuses_a_bomb(tmp_path, monkeypatch):
    path = _bomb(tmp_path / "bomb.csv.gz", 60)
    monkeypatch.setattr(memory, "_address_space_available", lambda: 16 * MB)
    with pytest.raises(DataError, match=r"ulimit -v\); raise it with ulimit -v"):
        load_cli_data(str(path))
    # The same file is read when the machine has room for it.
    monkeypatch.setattr(memory, "_address_space_available", lambda: 8 << 30)
    small = _bomb(tmp_path / "small.csv.gz", 1)
    data = load_cli_data(str(small))
    assert data.X.shape == (5000, 100) and set(data.y) == {"a", "b"}


def test_a_header_over_16_mib_is_read_whole(tmp_path):
    """5,000,001 columns as genotype files have, scaled to 1,700,001: the target is last."""
    rng = np.random.default_rng(0)
    p = 1_700_000
    header = ",".join(f"snp{j}" for j in range(p)) + ",class\n"
    assert len(header) > 16 * MB
    with open(tmp_path / "wide.csv", "w") as fh:
        fh.write(header)
        for i in range(4):
            g = (rng.integers(0, 3, size=p) + ord("0")).astype(np.uint8)
            line = np.full(2 * p, ord(","), np.uint8)
            line[0::2] = g
            fh.write(line.tobytes().decode() + ("a\n" if i % 2 else "b\n"))
    data = load_cli_data(str(tmp_path / "wide.csv"))
    assert data.X.shape == (4, p) and list(data.y) == ["b", "a", "b", "a"]
    assert data.feature_names[-1] == f"snp{p - 1}" and set(np.unique(data.X)) <= {0.0, 1.0, 2.0}
    with pytest.raises(DataError, match=r"\(a line of more than 1\d MB of text\) would need"):
        load_cli_data(str(tmp_path / "wide.csv"), max_memory=300 * MB)  # names take ~20x


def test_a_header_longer_than_a_read_chunk(tmp_path, monkeypatch):
    monkeypatch.setattr("widefs.cli.io._text._CHUNK", 64)
    frame = pd.DataFrame(np.arange(40 * 300, dtype=float).reshape(40, 300) % 7)
    frame.columns = [f"gene number {j}" for j in range(300)]
    frame["class"] = ["x", "y"] * 20
    frame.to_csv(tmp_path / "d.tsv", sep="\t", index=False)
    data = load_cli_data(str(tmp_path / "d.tsv"))
    np.testing.assert_array_equal(data.X, frame.drop(columns="class").to_numpy())
    assert list(data.feature_names) == list(frame.columns[:-1])


def test_a_line_without_end_is_refused_unread(tmp_path):
    path = tmp_path / "one.csv"
    path.write_text("a,class\n" + "1" * (3 * MB))
    with pytest.raises(DataError, match=r"line 2 is longer than 1\.0 MB of text"):
        load_cli_data(str(path))


GROWTH = """
import resource, sys
import numpy, pandas, pyarrow, pyarrow.parquet, pyarrow.feather
from widefs.cli.io._data import load_cli_data
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
data = load_cli_data(sys.argv[1])
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base, data.X.nbytes, data.X[3, 7])
"""


@pytest.mark.parametrize("kind", ["parquet", "feather"])
def test_parquet_and_feather_hold_the_numbers_once(tmp_path, kind):
    """The peak memory of reading 100 x 10,000 (7.6 MB of numbers): the matrix and arrow's
    metadata (a few KB a column), no pandas frame beside it (which took 200 MB for parquet)."""
    pytest.importorskip("pyarrow")
    import subprocess
    import sys

    rng = np.random.default_rng(0)
    frame = pd.DataFrame(rng.normal(size=(100, 10_000)), columns=[f"g{j}" for j in range(10_000)])
    frame["class"] = ["a", "b"] * 50
    path = tmp_path / f"d.{kind}"
    getattr(frame, f"to_{kind}")(path)
    env = {**os.environ, "ARROW_DEFAULT_MEMORY_POOL": "system"}  # memory given back when freed
    out = subprocess.run(
        [sys.executable, "-c", GROWTH, str(path)],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        timeout=300,
    ).stdout.split()
    growth, nbytes = int(out[0]) << 10, int(out[1])
    assert float(out[2]) == frame.iloc[3, 7]
    assert growth < 2 * nbytes + 5_000 * 10_000 + 30 * MB, (growth >> 20, nbytes >> 20)
    with pytest.raises(DataError, match=r"\(100 x 10001\) would need about 32 MB"):
        load_cli_data(str(path), max_memory=10 * MB)


def test_run_under_an_address_space_limit_is_one_line(tmp_path):
    """A real ``ulimit -v`` in a child process: the refusal comes from the budget, no traceback."""
    import subprocess
    import sys

    path = _bomb(tmp_path / "bomb.csv.gz", 200)
    limit = 2_000_000 * 1024

    def limited():
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    proc = subprocess.run(
        [sys.executable, "-m", "widefs.cli", "run", str(path), "--out", str(tmp_path / "o")],
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=limited,
    )
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.count("\n") == 1 and "ulimit -v" in proc.stderr
    with gzip.open(path, "rt") as fh:
        assert fh.readline().startswith("g0,g1")


# --- the memory the machine has -----------------------------------------------------------


class _Files:
    """A stand-in for ``pathlib.Path`` serving the given texts (FileNotFoundError otherwise)."""

    texts: dict = {}

    def __init__(self, path):
        self.path = str(path)

    def read_text(self):
        if self.path not in self.texts:
            raise FileNotFoundError(self.path)
        return self.texts[self.path]


def _serve(monkeypatch, texts):
    monkeypatch.setattr(_Files, "texts", texts)
    monkeypatch.setattr(memory, "Path", _Files)
    return memory


@pytest.mark.parametrize(
    ("limit", "used", "expected"),
    [
        ("1000\n", "400\n", 600),
        ("1000", "1000", 0),
        ("1000", "1500", 0),  # more used than the limit: no room, never negative
        ("max\n", "400", None),
        ("12abc", "400", None),
    ],
)
def test_room_under_the_cgroup_limit(monkeypatch, limit, used, expected):
    memory = _serve(
        monkeypatch,
        {"/sys/fs/cgroup/memory.max": limit, "/sys/fs/cgroup/memory.current": used},
    )
    assert memory._cgroup_available() == expected


def test_free_memory_from_meminfo_in_kib(monkeypatch):
    text = "MemTotal:       16384 kB\nMemFree:  1024 kB\nMemAvailable:    2048 kB\n"
    memory = _serve(monkeypatch, {"/proc/meminfo": text})
    assert memory._meminfo_available() == 2048 * 1024


def test_no_limit_found_is_a_budget_of_two_to_the_62(monkeypatch):
    for name in ("_address_space_available", "_cgroup_available", "_meminfo_available"):
        monkeypatch.setattr(memory, name, lambda: None)
    budget = memory_budget()
    assert (budget.limit, budget.source, budget.hint) == (1 << 62, "unknown", "")


def test_free_memory_from_sysconf_without_meminfo(monkeypatch):
    # No /proc/meminfo (macOS, BSD): free pages times the page size.
    values = {"SC_AVPHYS_PAGES": 100, "SC_PAGE_SIZE": 4096}

    def sysconf(name):
        if name not in values:
            raise ValueError(f"unrecognized configuration name {name!r}")
        return values[name]

    memory = _serve(monkeypatch, {})
    monkeypatch.setattr(memory.os, "sysconf", sysconf)
    assert memory._meminfo_available() == 409_600
    values.clear()
    assert memory._meminfo_available() is None
