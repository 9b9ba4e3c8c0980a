"""The oldest-dependencies job tests the floors pyproject.toml states, not other versions."""

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Extras whose packages widefs itself imports (the others are tools of tests, docs, benches).
RUNTIME_EXTRAS = ("dask", "formats", "anndata")


def _floors(requirements):
    out = {}
    for req in requirements:
        m = re.fullmatch(
            r"([A-Za-z0-9_.-]+)(?:\[[^\]]*\])?\s*>=\s*([0-9][0-9A-Za-z.]*)(?:,.*)?", req
        )
        assert m, f"{req!r} has no floor (>=)"
        out.setdefault(m[1].lower(), []).append(m[2])
    return out


def _version(text):
    """The release numbers, trailing zeros dropped ("3.1.0" == "3.1"; "2.0.0b7" -> (2,))."""
    parts = [int(p) for p in re.match(r"[0-9.]*[0-9]", text)[0].split(".")]
    while parts and parts[-1] == 0:
        parts.pop()
    return tuple(parts)


def _pins(text):
    return {
        m[1].lower(): m[2]
        for m in re.finditer(r"(?m)^([A-Za-z0-9_.-]+)==([0-9][0-9A-Za-z.]*)\s*$", text)
    }


def test_the_oldest_environment_pins_every_floor():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    runtime = _floors(
        project["dependencies"] + [r for e in RUNTIME_EXTRAS for r in extras.get(e, [])]
    )
    pins = _pins((ROOT / ".ci" / "oldest-constraints.txt").read_text())
    script = (ROOT / ".ci" / "oldest").read_text()
    later = dict(re.findall(r"\b(zarr|numcodecs)==([0-9.]+)", script))  # the zarr 2 step
    for name, floors in runtime.items():
        installed = {pins.get(name), later.get(name)} - {None}
        for floor in floors:
            assert any(_version(v) == _version(floor) for v in installed), (name, floor, installed)
    # The test extra's own floors are met by the pinned set (they may be above them).
    for name, floors in _floors(extras["test"]).items():
        assert name in pins, name
        assert all(_version(pins[name]) >= _version(f) for f in floors), (name, pins[name])


def test_ci_runs_the_oldest_job():
    run = (ROOT / ".ci" / "run").read_text()
    assert re.search(r"(?m)^step oldest .*\.ci/oldest", run)
    assert "-c .ci/oldest-constraints.txt" in (ROOT / ".ci" / "oldest").read_text()
