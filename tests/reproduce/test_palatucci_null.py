"""The calibrated-null section of the Palatucci & Carlson page, against direct calls."""

import re
import warnings

import numpy as np

from widefs.datasets import load_dataset
from widefs.exceptions import NothingSelectedWarning
from widefs.stats import expected_min_errors
from widefs.univariate import DiscriminativeSelector, leave_one_out_threshold_curve
from widefs_reproduce.palatucci2008._null import null_section, null_task, sets_task


def test_quick_section_numbers():
    runs = [null_task("colon", null, [0], 30, 300) for null in ("paper", "analytic", "permutation")]
    sets = [sets_task("colon", 200, 300)]
    text = "\n".join(null_section(runs, sets, n_permutations=30, n_full=200))
    # Colon, first 300 genes: the paper's null is Theorem 4.1 at p = 1/2, N = 31.
    paper = expected_min_errors(300, 31, 0.5)
    assert f"| colon | 40/22 | paper | {paper:.2f} / 15.50 |" in text
    # The permutation row is the library's curve with the same seed and permutations.
    X, y = load_dataset("colon", return_X_y=True)
    X = X[:, :300]
    curve = leave_one_out_threshold_curve(
        X,
        y,
        thresholds=("max_chance", "fdr", "mgm"),
        random_state=0,
        n_permutations=30,
        p_error="auto",
        null="permutation",
    )
    acc = 100 * curve.outcomes["mgm"].accuracy
    sel = np.median(curve.outcomes["mgm"].n_selected)
    row = next(
        line for line in text.splitlines() if line.startswith("| colon | 40/22 | permutation")
    )
    assert f"{acc:.1f} ± 0.0 ({sel:.0f})" == row.split("|")[7].strip()
    # The selected-set table: sizes of direct fits under the paper's and the auto null.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NothingSelectedWarning)
        a = DiscriminativeSelector("mgm", p_error="uniform", null="analytic", random_state=0).fit(
            X, y
        )
        b = DiscriminativeSelector("mgm", null="analytic", random_state=0).fit(X, y)
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
