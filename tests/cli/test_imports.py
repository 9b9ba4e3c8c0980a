"""The command line starts fast: help, version and the dataset list load no heavy library."""

import json
import subprocess
import sys

import pytest

HEAVY = ("sklearn", "numba", "matplotlib")

PROBE = """
import json, sys
from widefs.cli import main
try:
    status = main({argv!r})
except SystemExit as exc:  # --help and --version exit through argparse
    status = exc.code
loaded = sorted({{m.split(".")[0] for m in sys.modules}} & {{"sklearn", "numba", "matplotlib", "pandas", "numpy", "scipy"}})
print(json.dumps({{"status": status, "loaded": loaded}}), file=sys.stderr)
"""


def run_probe(argv):
    proc = subprocess.run(
        [sys.executable, "-c", PROBE.format(argv=argv)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    return json.loads(proc.stderr.strip().splitlines()[-1]), proc.stdout


def test_import_widefs_cli_is_light():
    heavy = sorted({*HEAVY, "numpy", "pandas", "scipy", "rich"})
    code = f"import sys, widefs.cli; print(sorted(m for m in sys.modules if m.split('.')[0] in {heavy}))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr


@pytest.mark.parametrize(
    ("argv", "allowed"),
    [
        (["--help"], set()),
        (["--version"], set()),
        (["run", "--help"], set()),
        (["reproduce", "--help"], set()),
        (["run", "--seed", "-5"], set()),  # usage errors are answered before any import
        (["datasets"], {"pandas", "numpy"}),  # the manifest is a pandas table
    ],
)
def test_fast_commands_load_no_heavy_library(argv, allowed):
    result, stdout = run_probe(argv)
    assert result["status"] in (0, 2)
    assert set(result["loaded"]) <= allowed, result
    if argv == ["datasets"]:
        assert "colon" in stdout
    if argv == ["--help"]:
        assert "run" in stdout and "reproduce" in stdout
