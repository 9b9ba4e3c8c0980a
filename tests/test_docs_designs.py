"""``docs/results/designs.md`` is exactly what ``benchmarks/bench_designs.py --render-only``
renders from the stored data ``docs/results/designs.json``: no hand edits, and the command
at the top of the page is the one that wrote the data."""

import importlib.util
import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "results" / "designs.md"


def _bench():
    spec = importlib.util.spec_from_file_location(
        "bench_designs", ROOT / "benchmarks" / "bench_designs.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_page_is_the_rendering_of_its_stored_data():
    bench = _bench()
    data = json.loads(PAGE.with_suffix(".json").read_text(encoding="utf-8"))
    committed = PAGE.read_text(encoding="utf-8")
    assert committed == bench.render(data)
    command = re.search(r"Command: `([^`]+)`", committed).group(1)
    assert command == data["meta"]["command"]
    assert command.startswith("nice -n 10 python benchmarks/bench_designs.py")


def test_render_only_writes_the_same_page(tmp_path):
    bench = _bench()
    out = tmp_path / "designs.md"
    out.with_suffix(".json").write_text(PAGE.with_suffix(".json").read_text(encoding="utf-8"))
    assert bench.main(["--render-only", "--out", str(out)]) == 0
    assert out.read_text(encoding="utf-8") == PAGE.read_text(encoding="utf-8")


def test_page_is_short_and_opens_with_its_verdict():
    text = PAGE.read_text(encoding="utf-8")
    assert len(text.split()) <= 3500
    verdict = text.split("\n\n")[1].splitlines()
    assert 1 <= len(verdict) <= 5
    assert "FAIL" not in text.split("## Acceptance checks", 1)[1].split("## Setup", 1)[0]
