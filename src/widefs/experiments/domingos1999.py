"""Reproduce Table 1 of Domingos (IJCAI 1999): CN2 vs CN2-POE1 vs CN2-POE2.

Usage::

    nice python experiments/domingos1999/run.py            # full run, writes docs/results/
    python experiments/domingos1999/run.py --quick         # seconds; used by the test suite

Protocol (Sec. 4, after Clark & Boswell 1991): each dataset is split at random into 67%
training and 33% test, 20 times; error rate and theory size (total number of conditions)
are reported as mean +- standard error over the 20 splits. All methods see the same
splits. CN2-POE2 ranks rule versions by Laplace, as CN2 does, and stops each rule's beam
search with Eq. 13 (m-estimate with m = 2, m' = max(1, log2 m), prior = default error of
the examples not yet covered); CN2-POE1 uses the earlier POE1 integral in the same
rounds. Because the paper does not say which CN2 mode and significance setting "default
CN2" used, every method is run in ordered and unordered mode, and CN2 with and without
the likelihood-ratio test (alpha = 0.05).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split

from widefs.datasets import load_dataset
from widefs.rules import CN2Classifier
from widefs.utils import spawn_seeds

# Results go to docs/results under the working directory (the repository root when run
# from a checkout, as `widefs reproduce` and experiments/*/run.py are).
RESULTS = Path("docs") / "results"
DATASETS = [
    ("breast_cancer_ljubljana", "Breast"),
    ("echocardiogram", "Echocardio"),
    ("glass", "Glass"),
    ("heart_c", "HeartC"),
    ("heart_h", "HeartH"),
    ("hepatitis", "Hepatitis"),
    ("lymphography", "Lympho"),
    ("soybean", "Soybean"),
    ("thyroid_hypothyroid", "Thyroid"),
    ("primary_tumor", "Tumor"),
    ("congressional_voting", "Voting"),
]
# Table 1 of Domingos (1999), read from the paper text: (error %, se), (theory size, se)
# for CN2, CN2-POE1, CN2-POE2.
PAPER = {
    "Breast": [(30.0, 1.4), (29.7, 1.4), (30.3, 1.3), (114.5, 2.4), (58.7, 2.6), (104.9, 2.6)],
    "Echocardio": [(32.7, 1.2), (32.3, 1.3), (31.2, 1.1), (42.9, 1.2), (35.4, 2.1), (39.2, 1.3)],
    "Glass": [(39.0, 1.5), (38.3, 1.7), (39.1, 1.4), (51.8, 1.0), (54.7, 1.1), (45.2, 1.0)],
    "HeartC": [(20.8, 0.8), (22.5, 0.8), (22.4, 0.8), (57.8, 0.9), (52.0, 1.0), (52.6, 1.0)],
    "HeartH": [(22.4, 1.1), (21.8, 1.3), (21.9, 1.1), (69.2, 1.5), (60.3, 1.4), (58.9, 1.1)],
    "Hepatitis": [(21.2, 0.9), (19.2, 1.3), (18.8, 1.1), (40.2, 1.7), (34.0, 1.3), (34.4, 1.1)],
    "Lympho": [(21.4, 1.1), (24.1, 1.1), (23.4, 1.2), (39.5, 0.7), (38.7, 1.0), (32.8, 1.1)],
    "Soybean": [(19.5, 1.0), (19.4, 1.0), (22.9, 1.2), (116.7, 2.3), (110.9, 3.1), (97.7, 1.7)],
    "Thyroid": [(4.1, 0.2), (3.8, 0.2), (4.0, 0.2), (97.5, 2.0), (104.8, 2.0), (83.4, 2.6)],
    "Tumor": [(60.1, 1.0), (65.1, 1.3), (60.0, 1.2), (302.8, 4.6), (273.9, 4.4), (241.6, 3.9)],
    "Voting": [(4.8, 0.4), (4.3, 0.3), (4.3, 0.3), (61.7, 2.9), (49.6, 2.5), (33.2, 1.7)],
}
PAPER_METHODS = ["CN2", "CN2-POE1", "CN2-POE2"]
# Columns dropped before learning. In echocardiogram the class (alive-at-1) is a function
# of survival and still-alive (UCI notes), which makes it trivial (about 2% error); the
# paper's 32.7% says those were not used. 'name' is a constant and 'group' meaningless.
DROP = {"echocardiogram": ["survival", "still-alive", "name", "group"]}


def methods(modes):
    """(name, mode, estimator params) of every method run on each split."""
    out = []
    for mode in modes:
        out += [
            ("CN2", mode, dict(stopping="significance", alpha=None)),
            ("CN2-LRS", mode, dict(stopping="significance", alpha=0.05)),
            ("CN2-POE1", mode, dict(stopping="poe1")),
            ("CN2-POE2", mode, dict(stopping="poe")),
            ("CN2-POE(m'=m)", mode, dict(stopping="poe", poe_effective="identity")),
        ]
    return out


def run(datasets, n_splits, modes, seed=0):
    """One row per (dataset, split, method, mode): test error, theory size, CPU seconds."""
    rows = []
    for name, label in datasets:
        bunch = load_dataset(name, as_frame=True)
        X = bunch.data.drop(columns=DROP.get(name, []))
        y = bunch.target.to_numpy(dtype=object)
        for split, s in enumerate(spawn_seeds(seed, n_splits)):
            X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.33, random_state=int(s))
            for method, mode, params in methods(modes):
                t0 = time.process_time()
                model = CN2Classifier(mode=mode, beam_width=5, **params).fit(X_tr, y_tr)
                cpu = time.process_time() - t0
                rows.append(
                    dict(
                        dataset=label,
                        split=split,
                        method=method,
                        mode=mode,
                        error=100.0 * float(np.mean(model.predict(X_te) != y_te)),
                        size=model.theory_size_,
                        rules=len(model.rules_),
                        cpu=cpu,
                    )
                )
        print(f"  {label}: done", file=sys.stderr, flush=True)
    return pd.DataFrame(rows)


def _mse(values) -> str:
    values = np.asarray(values, dtype=float)
    se = values.std(ddof=1) / np.sqrt(values.size) if values.size > 1 else float("nan")
    return f"{values.mean():.1f}±{se:.1f}"


def _paper(value) -> str:
    return f"{value[0]:.1f}±{value[1]:.1f}"


def table_for_mode(results: pd.DataFrame, mode: str) -> str:
    """Ours beside the paper, error and size, for CN2 (no test), POE1 and POE2."""
    sub = results[results["mode"] == mode]
    head = (
        "| Dataset | CN2 paper | CN2 ours | POE1 paper | POE1 ours | POE2 paper | POE2 ours "
        "| CN2 size paper | CN2 size ours | POE1 size paper | POE1 size ours "
        "| POE2 size paper | POE2 size ours |"
    )
    lines = [head, "|" + "---|" * 13]
    for label in sub["dataset"].unique():
        d = sub[sub["dataset"] == label]
        paper = PAPER[label]
        cells = [label]
        for i, method in enumerate(PAPER_METHODS):
            cells += [_paper(paper[i]), _mse(d[d["method"] == method]["error"])]
        for i, method in enumerate(PAPER_METHODS):
            cells += [_paper(paper[3 + i]), _mse(d[d["method"] == method]["size"])]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def summary_table(results: pd.DataFrame) -> str:
    """Averages over datasets, and how often POE2 beats CN2 on size, like the paper's count."""
    per = results.groupby(["mode", "method", "dataset"])[["error", "size", "cpu"]].mean()
    labels = results["dataset"].unique()
    lines = [
        "| Mode | Method | mean error % | mean theory size | datasets where size < CN2 "
        "| datasets where error <= CN2 | mean CPU s per fit |",
        "|---|---|---|---|---|---|---|",
    ]
    paper = np.array([PAPER[lab] for lab in labels])
    for i, method in enumerate(PAPER_METHODS):
        smaller = int(np.sum(paper[:, 3 + i, 0] < paper[:, 3, 0]))
        not_worse = int(np.sum(paper[:, i, 0] <= paper[:, 0, 0]))
        lines.append(
            f"| paper | {method} | {paper[:, i, 0].mean():.1f} | {paper[:, 3 + i, 0].mean():.1f} "
            f"| {smaller if i else '-'} of {len(labels)} | {not_worse if i else '-'} of "
            f"{len(labels)} | - |"
        )
    for mode in results["mode"].unique():
        base = per.loc[(mode, "CN2")]
        for method in ["CN2", "CN2-LRS", "CN2-POE1", "CN2-POE2", "CN2-POE(m'=m)"]:
            d = per.loc[(mode, method)]
            smaller = int(np.sum(d["size"].to_numpy() < base["size"].to_numpy()))
            not_worse = int(np.sum(d["error"].to_numpy() <= base["error"].to_numpy()))
            lines.append(
                f"| {mode} | {method} | {d['error'].mean():.1f} | {d['size'].mean():.1f} "
                f"| {smaller if method != 'CN2' else '-'} of {len(d)} "
                f"| {not_worse if method != 'CN2' else '-'} of {len(d)} | {d['cpu'].mean():.3f} |"
            )
    return "\n".join(lines)


def closeness(results: pd.DataFrame) -> str:
    """Mean absolute difference from the paper's CN2 / POE2 numbers, per mode and method."""
    lines = [
        "| Mode | Method | vs paper's | mean abs. error diff (points) | mean abs. size diff |",
        "|---|---|---|---|---|",
    ]
    labels = results["dataset"].unique()
    pairs = [("CN2", 0), ("CN2-LRS", 0), ("CN2-POE1", 1), ("CN2-POE2", 2)]
    for mode in results["mode"].unique():
        per = results[results["mode"] == mode].groupby(["method", "dataset"])[["error", "size"]]
        per = per.mean()
        for method, i in pairs:
            err = [abs(per.loc[(method, lab), "error"] - PAPER[lab][i][0]) for lab in labels]
            size = [abs(per.loc[(method, lab), "size"] - PAPER[lab][3 + i][0]) for lab in labels]
            lines.append(
                f"| {mode} | {method} | {PAPER_METHODS[i]} | {np.mean(err):.1f} "
                f"| {np.mean(size):.1f} |"
            )
    return "\n".join(lines)


COMMENTARY = """\
## How the options were chosen and what they change

- **Rounds and m.** As the paper describes, round 1 is the empty rule (m_1 = 1); each
  round generates every one-condition specialization of the beam members and m_k counts
  all rule versions generated so far for this rule (versions that cover no example, or
  exactly the examples of their parent, are not generated). The best rule so far
  (Laplace ranking) gets E_k = eps_hat / m'_k + (1 - 1/m'_k) eps_prior with eps_hat the
  m-estimate (m = 2) and eps_prior the default error of the examples not yet covered;
  the search stops at the first round with E_k >= E_{k-1}.
- **What Eq. 13 does in CN2.** E_1 is the m-estimate of the empty rule, which is about
  the prior, so E_2 < E_1 whenever the best one-condition rule has any apparent gain: POE
  essentially never refuses a first condition. Later rounds are accepted only when the gain
  over the prior grows faster than m': (prior - eps_k) / (prior - eps_{k-1}) >
  m'_k / m'_{k-1}, about 1.2 per round with log2 (and about 6 with the unmodified m).
  POE2 therefore shortens rules rather than removing them, which is what the paper's
  modest size reductions (for example 114.5 to 104.9 conditions on Breast) suggest.
- **POE1** is our reading of Domingos (1998): the POE1 integral (a common error rate
  for all m' hypotheses, uniform prior) evaluated on the best rule's training errors in
  the same rounds, with m' = max(1, log2 m). The 1998 paper's exact use may differ.
- **m' = m.** The unmodified Eq. 13 is listed as CN2-POE(m'=m). It prunes much harder
  (one condition per rule on pure noise) and costs accuracy on some datasets, which is the
  paper's argument for the slower-growing m' = log m.
- **Unordered POE.** Rules for each class are searched with the same prior (default
  error of the current examples). For a minority class the rule's error can exceed that
  prior; a growing m' then *lowers* E_k, so POE prunes little there. The paper does not
  say how it handled this; we kept its definition of the prior.
- **Mode and test.** The paper does not say which CN2 mode or significance setting
  its "default CN2" used. The tables below report both modes; CN2-LRS adds the
  likelihood-ratio test at alpha = 0.05 to classic CN2. The closeness table says which
  combination is nearest to the paper's numbers.
- **Data.** The bundled UCI files are the current repository versions; the paper used
  the 1998 versions with Clark & Boswell's preprocessing (e.g. the paper's thyroid set
  may be a different thyroid file), so dataset sizes, and hence theory sizes, need not
  match exactly. Our thyroid errors (1-2%) and theory sizes are about half the paper's,
  and our soybean errors well below its 19-23%: both files, or their preprocessing,
  probably differ from the 1998 ones. Numeric attributes give conditions a <= t / a > t at every observed
  value; missing values satisfy no condition. In echocardiogram the class (alive-at-1)
  is determined by the survival and still-alive attributes, which would give about 2%
  error; they are dropped (with the constant 'name' and the meaningless 'group'), since
  the paper's 32.7% shows it did not learn from them.
"""


def findings(results: pd.DataFrame) -> str:
    """Computed statements: which mode matches the paper, and what POE2 does to CN2."""
    labels = list(results["dataset"].unique())
    per = results.groupby(["mode", "method", "dataset"])[["error", "size", "cpu"]].mean()
    paper = np.array([PAPER[lab] for lab in labels])
    size_gap = {
        mode: float(np.mean(np.abs(per.loc[(mode, "CN2"), "size"].loc[labels] - paper[:, 3, 0])))
        for mode in results["mode"].unique()
    }
    mode = min(size_gap, key=size_gap.get)
    cn2, poe2 = per.loc[(mode, "CN2")].loc[labels], per.loc[(mode, "CN2-POE2")].loc[labels]
    smaller = int(np.sum(poe2["size"] < cn2["size"]))
    paper_cut = 100 * (1 - paper[:, 5, 0].mean() / paper[:, 3, 0].mean())
    our_cut = 100 * (1 - poe2["size"].mean() / cn2["size"].mean())
    biggest = (cn2["size"] - poe2["size"]).idxmax()
    others = ", ".join(f"{m}: {g:.1f}" for m, g in size_gap.items() if m != mode)
    others = f" (other mode: {others})" if others else ""
    paper_smaller = int(np.sum(paper[:, 5, 0] < paper[:, 3, 0]))
    lines = [
        "## Findings (computed from the tables below)",
        "",
        f"- **Closest mode: {mode}.** Mean absolute difference from the paper's CN2 theory "
        f"sizes: {size_gap[mode]:.1f} conditions{others}; the paper's 'default CN2' was "
        f"most likely {mode}, and the next point uses that mode.",
        f"- **CN2-POE2 against CN2 ({mode})**: theory smaller on "
        f"{smaller} of {len(labels)} datasets (paper: {paper_smaller} of {len(labels)}); mean size "
        f"{cn2['size'].mean():.1f} -> {poe2['size'].mean():.1f} conditions ({our_cut:.0f}% "
        f"fewer; paper {paper[:, 3, 0].mean():.1f} -> {paper[:, 5, 0].mean():.1f}, "
        f"{paper_cut:.0f}% fewer); mean error {cn2['error'].mean():.1f}% -> "
        f"{poe2['error'].mean():.1f}% (paper {paper[:, 0, 0].mean():.1f}% -> "
        f"{paper[:, 2, 0].mean():.1f}%). The largest cut is on {biggest} "
        f"({cn2.loc[biggest, 'size']:.1f} -> {poe2.loc[biggest, 'size']:.1f}).",
        f"- **CPU per fit ({mode})**: CN2-POE2 {poe2['cpu'].mean():.3f} s, CN2 "
        f"{cn2['cpu'].mean():.3f} s (classic CN2 stops a search once every beam member is "
        "pure; POE stops at the first round whose estimate does not improve).",
        "",
    ]
    return "\n".join(lines)


def write_report(results: pd.DataFrame, out: Path, command: str, elapsed: float) -> None:
    modes = list(results["mode"].unique())
    n_splits = results["split"].nunique()
    parts = [
        "# Domingos (1999): process-oriented estimation in CN2 (Table 1)",
        "",
        "Produced by:",
        "",
        f"    {command}",
        "",
        f"{n_splits} random 67%/33% splits per dataset (split seeds from "
        "`widefs.utils.spawn_seeds(0, n)`), beam width 5, Laplace ranking; mean ± standard "
        "error over splits. Error rates in %, theory size = total conditions. Paper numbers "
        f"are Table 1 of the paper. Total run time {elapsed:.0f} s.",
        "",
        findings(results),
        COMMENTARY,
        "## Summary",
        "",
        summary_table(results),
        "",
        "## Distance from the paper",
        "",
        closeness(results),
        "",
    ]
    for mode in modes:
        parts += [
            f"## Table 1, {mode} rules (CN2 = no significance test)",
            "",
            table_for_mode(results, mode),
            "",
        ]
    lrs = results[results["method"] == "CN2-LRS"]
    if len(lrs):
        parts += ["## CN2 with the likelihood-ratio test (alpha = 0.05)", ""]
        parts += ["| Dataset | " + " | ".join(f"{m} error | {m} size" for m in modes) + " |"]
        parts += ["|---|" + "---|---|" * len(modes)]
        for label in lrs["dataset"].unique():
            cells = [label]
            for mode in modes:
                d = lrs[(lrs["dataset"] == label) & (lrs["mode"] == mode)]
                cells += [_mse(d["error"]), _mse(d["size"])]
            parts.append("| " + " | ".join(cells) + " |")
        parts.append("")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(parts))
    results.to_csv(out.with_suffix(".csv"), index=False, float_format="%.4f")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="2 small datasets, 2 splits")
    parser.add_argument("--splits", type=int, default=20)
    parser.add_argument("--out", type=Path, default=RESULTS / "domingos1999.md")
    args = parser.parse_args(argv)
    if args.quick:
        datasets = [DATASETS[1], DATASETS[10]]  # echocardiogram, congressional_voting
        n_splits, modes = 2, ["ordered"]
    else:
        datasets, n_splits, modes = DATASETS, args.splits, ["ordered", "unordered"]
    t0 = time.perf_counter()
    results = run(datasets, n_splits, modes)
    elapsed = time.perf_counter() - t0
    command = "python experiments/domingos1999/run.py" + (" --quick" if args.quick else "")
    if not args.quick and args.splits != 20:
        command += f" --splits {args.splits}"
    write_report(results, args.out, command, elapsed)
    print(f"wrote {args.out} ({elapsed:.1f} s)")
    return 0
