"""Smoke test: the Table 1 reproduction runs in --quick mode and writes its page."""

import importlib.util
from pathlib import Path

import pandas as pd

SCRIPT = Path(__file__).resolve().parents[2] / "experiments" / "domingos1999" / "run.py"


def test_quick_mode_writes_table(tmp_path):
    spec = importlib.util.spec_from_file_location("domingos1999_run", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    out = tmp_path / "domingos1999.md"
    assert module.main(["--quick", "--out", str(out)]) == 0
    text = out.read_text()
    assert "python experiments/domingos1999/run.py --quick" in text
    assert "| Voting | 4.8±0.4 |" in text  # the paper's number beside ours
    raw = pd.read_csv(out.with_suffix(".csv"))
    # 2 datasets x 2 splits x 5 methods, ordered mode only
    assert len(raw) == 20
    assert set(raw["method"]) == {"CN2", "CN2-LRS", "CN2-POE1", "CN2-POE2", "CN2-POE(m'=m)"}
    assert "## Findings" in text
    assert raw["error"].between(0, 100).all() and (raw["size"] >= 0).all()
