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
    text = " ".join(README.read_text().split())
    assert "chance rate: 0.912, an upper # bound on imbalanced classes" in text
    # The permutation estimate quoted beside it, from the selector the README fits.
    from widefs.datasets import load_dataset
    from widefs.univariate import DiscriminativeSelector

    X, y = load_dataset("colon", return_X_y=True)
    sel = DiscriminativeSelector("mgm", random_state=0).fit(X, y)
    assert f"{1 - sel.expected_min_errors_ / sel.n_validation_:.2f}" == "0.78"
    assert "permutation null estimates 0.78" in text
