"""Smoke test of the Palatucci & Carlson reproduction in --quick mode."""

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def load_script(relative):
    spec = importlib.util.spec_from_file_location(
        "exp_" + relative.replace("/", "_")[:-3], ROOT / relative
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_quick_run_writes_tables_and_figures(tmp_path):
    script = load_script("experiments/palatucci2008/run.py")
    assert script.main(["--quick", "--out", str(tmp_path)]) == 0
    text = (tmp_path / "palatucci2008.md").read_text()
    assert "widefs **0.7975**" in text
    assert "| 20 | 50.00 | 67.03 | 74.63 | 77.32 | 79.75 |" in text
    assert "| colon | 62 x 500 |" in text
    for png in ["figure1.png", "figure2_colon.png", "figure3_colon.png", "figure3_synthetic1.png"]:
        assert (tmp_path / "palatucci2008" / png).stat().st_size > 1000
