"""The README's Python examples run as written."""

import re
import warnings
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_readme_python_block_runs(index, capsys):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(compile(BLOCKS[index], f"README.md block {index}", "exec"), {})


def test_readme_chance_number_is_right():
    from widefs.stats import highest_chance_accuracy

    assert f"{highest_chance_accuracy(2000, 31, p_error=11 / 31):.3f}" == "0.912"
    assert "0.912: 91% by chance alone" in README.read_text()
