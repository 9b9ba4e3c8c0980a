"""The Domingos (1999) reproduction: a small seeded run whose numbers are checked."""

import numpy as np
import pandas as pd
import pytest
from sklearn.model_selection import train_test_split

from widefs._utils import spawn_seeds
from widefs.datasets import load_dataset
from widefs.rules import CN2Classifier
from widefs_reproduce import domingos1999 as exp
from widefs_reproduce._common import paper_tables
from widefs_reproduce.domingos1999._findings import against_cn2
from widefs_reproduce.domingos1999._runs import POE2C
from widefs_reproduce.domingos1999._tables import split_counts


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    out = tmp_path_factory.mktemp("domingos")
    assert exp.main(["--quick", "--out", str(out)]) == 0
    raw = pd.read_csv(out / "domingos1999" / "runs.csv")
    # The readings are in the appendix the command writes beside the page.
    pages = [out / "domingos1999.md", out / "domingos1999_appendix.md"]
    return "\n".join(p.read_text() for p in pages), raw


def test_split_results_match_a_direct_fit(quick):
    # Recompute one split outside the experiment: same seed, same split, same estimator.
    _, raw = quick
    bunch = load_dataset("congressional_voting", as_frame=True)
    X, y = bunch.data, bunch.target.to_numpy(dtype=object)
    seed = int(spawn_seeds(0, 2)[1])
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.33, random_state=seed)
    for mode in ("ordered", "unordered"):
        model = CN2Classifier("poe", mode=mode, poe_prior="class").fit(X_tr, y_tr)
        row = raw[
            (raw["dataset"] == "Voting")
            & (raw["split"] == 1)
            & (raw["mode"] == mode)
            & (raw["method"] == POE2C)
        ].iloc[0]
        assert row["size"] == model.theory_size_
        assert row["error"] == pytest.approx(100 * np.mean(model.predict(X_te) != y_te), abs=1e-4)


def test_seeded_quick_numbers(quick):
    # Split 0 of congressional voting (seed spawn_seeds(0, 2)[0]): theory sizes and test
    # errors (out of 144 test examples) of this run, pinned.
    _, raw = quick
    v = raw[(raw["dataset"] == "Voting") & (raw["split"] == 0)].set_index(["mode", "method"])
    sizes = {k: int(v.loc[k, "size"]) for k in v.index}
    errors = {k: round(v.loc[k, "error"] * 144 / 100) for k in v.index}
    assert sizes[("ordered", "CN2")] == 28 and sizes[("ordered", "CN2-POE2")] == 12
    assert sizes[("unordered", "CN2")] == 51 and sizes[("unordered", "CN2-POE2")] == 22
    assert sizes[("unordered", POE2C)] == 12  # the class prior prunes the minority rules
    assert errors[("ordered", "CN2")] == 14 and errors[("unordered", POE2C)] == 8
    # In ordered mode the class prior is the paper's prior: identical on every split.
    ordered = raw[raw["mode"] == "ordered"].set_index(["dataset", "split"])
    cols = ["error", "size", "rules"]
    pd.testing.assert_frame_equal(
        ordered[ordered["method"] == POE2C][cols],
        ordered[ordered["method"] == "CN2-POE2"][cols],
    )


def test_page_is_made_of_the_run(quick):
    text, raw = quick
    c = against_cn2(raw, "unordered", POE2C)
    cn2 = raw[(raw["mode"] == "unordered") & (raw["method"] == "CN2")]
    poe = raw[(raw["mode"] == "unordered") & (raw["method"] == POE2C)]
    assert c["size"] == pytest.approx((cn2["size"].mean(), poe["size"].mean()))
    assert f"mean size {c['size'][0]:.1f} -> {c['size'][1]:.1f}" in text
    assert "widefs reproduce domingos1999 --quick --out" in text
    assert "identical to CN2-POE2 on every split" in text  # ordered mode, computed
    table = text.split("## Table 1, ordered rules")[1]
    row = next(line for line in table.splitlines() if line.startswith("| Voting |"))
    d = raw[(raw["dataset"] == "Voting") & (raw["mode"] == "ordered") & (raw["method"] == "CN2")]
    mean, se = d["error"].mean(), d["error"].std(ddof=1) / np.sqrt(len(d))
    assert row.split("|")[3].strip() == f"{mean:.1f}±{se:.1f}"


def test_paper_table_reproduces_the_papers_own_counts():
    # Sec. 4: "Compared to CN2-POE1, CN2-POE2 ... lower error in five datasets, higher in
    # five, same in one; 0.2% lower error on average ... lower [size] in seven, higher in
    # four, 4.5 fewer conditions on average": a check of the transcribed Table 1.
    data = paper_tables("domingos1999")["tables"]
    rows = data["table1"]
    assert len(rows) == 11
    for column, claim in (("error", "poe2_vs_poe1_error"), ("size", "poe2_vs_poe1_size")):
        d = np.array([r[column]["CN2-POE2"][0] - r[column]["CN2-POE1"][0] for r in rows])
        counts = data["claims"][claim]
        assert (int((d < 0).sum()), int((d > 0).sum()), int((d == 0).sum())) == (
            counts["lower"],
            counts["higher"],
            counts["same"],
        )
        assert d.mean() == pytest.approx(counts["mean_difference"], abs=0.05)


def test_split_counts_pair_the_same_splits(quick):
    # Per-split counts compare each split with CN2 on the same split (brute force).
    _, raw = quick
    got = split_counts(raw, "unordered", POE2C)
    for label in ("Voting", "Echocardio"):
        d = raw[(raw["dataset"] == label) & (raw["mode"] == "unordered")]
        poe = d[d["method"] == POE2C].sort_values("split")["size"].to_numpy()
        cn2 = d[d["method"] == "CN2"].sort_values("split")["size"].to_numpy()
        assert got.loc[label, "smaller"] == int(np.sum(poe < cn2))
        assert got.loc[label, "n"] == 2


def test_readings_section_is_made_of_direct_fits(quick):
    # The LRS 0.05 reading on hepatitis, split 1: CN2 and POE2c with the test, fitted directly.
    text, _ = quick
    X, y = exp._data.load("hepatitis")
    seed = int(spawn_seeds(0, 2)[1])
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.33, random_state=seed)
    cn2 = CN2Classifier(mode="unordered", alpha=0.05).fit(X_tr, y_tr)
    poe = CN2Classifier("poe", mode="unordered", alpha=0.05, poe_prior="class").fit(X_tr, y_tr)
    rows = exp._readings.reading_task("LRS 0.05", "hepatitis", "Hepatitis", 2)
    row = {r["method"]: r for r in rows if r["split"] == 1}
    assert row["CN2"]["size"] == cn2.theory_size_ and row[POE2C]["size"] == poe.theory_size_
    assert row[POE2C]["error"] == pytest.approx(100 * np.mean(poe.predict(X_te) != y_te))
    assert "## Unordered pruning: readings of the paper's setting" in text
    line = next(x for x in text.splitlines() if x.startswith("| LRS 0.05 |"))
    sizes = [r["size"] for r in rows if r["method"] == "CN2"]
    assert f"| {np.mean(sizes):.1f} |" in line  # Hepatitis CN2 size under the reading
