"""The calibrated-null section of the Palatucci & Carlson page, against direct calls."""

import re
import warnings

import numpy as np

from widefs.datasets import load_dataset
from widefs.exceptions import NothingSelectedWarning
from widefs.stats import expected_min_errors
from widefs.univariate import DiscriminativeSelector
from widefs_reproduce.palatucci2008._null import calibrated_null_section


def test_quick_section_numbers():
    lines = calibrated_null_section([0], quick=True)
    text = "\n".join(lines)
    # Colon, first 300 genes: the paper's null is Theorem 4.1 at p = 1/2, N = 31.
    paper = expected_min_errors(300, 31, 0.5)
    assert f"| colon | 40/22 | paper | {paper:.2f} / 15.50 |" in text
    # The selected-set table: sizes of direct fits under the paper's and the auto null.
    X, y = load_dataset("colon", return_X_y=True)
    X = X[:, :300]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NothingSelectedWarning)
        a = DiscriminativeSelector("mgm", p_error="uniform", random_state=0).fit(X, y)
        b = DiscriminativeSelector("mgm", random_state=0).fit(X, y)
        c = DiscriminativeSelector(
            "mgm", null="permutation", n_permutations=200, random_state=0
        ).fit(X, y)
    sa, sb, sc = a.get_support(), b.get_support(), c.get_support()
    row = re.search(
        r"\| colon \| MGM \| (\d+) \| (\d+) \((\d+) shared.*\| (\d+) \((\d+) shared", text
    )
    assert row is not None
    got = [int(g) for g in row.groups()]
    assert got == [sa.sum(), sb.sum(), (sa & sb).sum(), sc.sum(), (sa & sc).sum()]
    # The calibrated analytic null is stricter than the paper's on imbalanced colon.
    assert sb.sum() <= sa.sum() and np.all(sb <= sa)
