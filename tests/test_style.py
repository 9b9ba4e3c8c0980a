"""ruff (lint + format) is part of the test suite so CI enforces it."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# Prefer the ruff installed beside this interpreter (the [test] extra), then PATH.
RUFF = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")


@pytest.mark.skipif(RUFF is None, reason="ruff is not installed (it is in the [test] extra)")
@pytest.mark.parametrize(
    "args", [["check", "--no-cache", "."], ["format", "--no-cache", "--check", "."]]
)
def test_ruff_clean(args):
    proc = subprocess.run([RUFF, *args], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
