"""Reproduce Palatucci & Carlson (2008): Example 4.1, Figures 1-3.

Usage::

    python experiments/palatucci2008/run.py            # full run, writes docs/results/
    python experiments/palatucci2008/run.py --quick    # seconds; used by the test suite

Protocol (Section 5.2): leave-one-out over all examples; in each round the remaining
examples are split into stratified equal halves (the odd one goes to validation), one
Gaussian naive Bayes per feature is trained on one half and its errors counted on the
other, features are selected by the threshold, and a Gaussian naive Bayes on the
selected features, retrained on both halves, tests the held-out example. The random
halves make the result vary with the seed, so every dataset is run with several seeds
and we report mean +- standard deviation over seeds.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from widefs.datasets import load_dataset, make_wide_classification
from widefs.experiments._palatucci_null import calibrated_null_section
from widefs.plotting import plot_chance_curves, plot_errors_allowed, plot_threshold_accuracies
from widefs.stats import highest_chance_accuracy
from widefs.univariate import leave_one_out_threshold_curve

# Results go to docs/results under the working directory (the repository root when run
# from a checkout, as `widefs reproduce` and experiments/*/run.py are).
RESULTS = Path("docs") / "results"
RULES = ["all", "max_chance", "fdr", "mgm", "oracle"]
LABELS = {
    "all": "No selection",
    "max_chance": "E[X(1)]",
    "fdr": "Binomial + FDR 5%",
    "mgm": "MGM",
    "oracle": "Oracle",
}
MICROARRAYS = [
    "colon",
    "leukemia",
    "lymphoma",
    "medulloblastoma_b",
    "medulloblastoma_c",
    "breast_er",
]
FIGURE1_M = [1, 10, 50, 100, 200, 300, 400, 500]
FIGURE1_PAPER = {
    10: [50.00, 73.82, 84.05, 87.50, 90.62, 92.15, 93.10, 93.82],
    20: [50.00, 67.03, 74.63, 77.32, 79.75, 81.07, 81.97, 82.65],
    30: [50.00, 63.95, 70.25, 72.51, 74.56, 75.68, 76.45, 77.03],
    40: [50.00, 62.10, 67.60, 69.58, 71.38, 72.37, 73.05, 73.56],
}


def run_dataset(X, y, seeds):
    """Run the protocol once per seed; summarize every rule over seeds.

    The paper's chance rate ``1 - 1/C`` (``p_error="uniform"``): this reproduces the paper;
    the calibrated nulls are the separate section of :mod:`._palatucci_null`.
    """
    curves = [leave_one_out_threshold_curve(X, y, random_state=s, p_error="uniform") for s in seeds]
    summary = {}
    for rule in RULES:
        acc = np.array([c.outcomes[rule].accuracy for c in curves])
        sel = np.array([np.median(c.outcomes[rule].n_selected) for c in curves])
        empty = np.array([c.outcomes[rule].empty_rounds for c in curves])
        summary[rule] = {
            "acc": acc.mean(),
            "sd": acc.std(ddof=1) if acc.size > 1 else 0.0,
            "selected": np.median(sel),
            "empty": empty.mean(),
        }
    oracle_e = np.array([int(np.ceil(c.outcomes["oracle"].cut[0]) - 1) for c in curves])
    first = curves[0]
    inside = (oracle_e >= first.expected_min_errors) & (oracle_e <= first.expected_errors)
    return curves, summary, oracle_e, inside


def fmt_rule_row(name, shape, summary, oracle_e, inside, curve):
    cells = [
        name,
        shape,
        f"{curve.n_features_scored} / {curve.n_validation}",
        f"{curve.expected_min_errors:.2f} / {curve.mgm:.2f} / {curve.expected_errors:.1f}",
    ]
    for rule in RULES:
        s = summary[rule]
        cells.append(f"{100 * s['acc']:.1f} ± {100 * s['sd']:.1f} ({s['selected']:.0f})")
    cells.append(f"{np.median(oracle_e):.0f} ({inside.mean():.0%})")
    return "| " + " | ".join(cells) + " |"


def table_header():
    cols = ["dataset", "n x p", "M / N", "E[X(1)] / MGM / E[X]"] + [LABELS[r] for r in RULES]
    cols.append("oracle errors allowed (in gap)")
    return "| " + " | ".join(cols) + " |\n|" + "---|" * len(cols)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small, fast run (smoke test)")
    parser.add_argument(
        "--out",
        type=Path,
        default=RESULTS,
        help="directory for palatucci2008.md and its figures",
    )
    parser.add_argument("--seeds", type=int, default=None, help="protocol repetitions per dataset")
    args = parser.parse_args(argv)
    quick = args.quick
    n_seeds = args.seeds or (2 if quick else 20)
    seeds = list(range(n_seeds))
    out: Path = args.out
    fig_dir = out / "palatucci2008"
    fig_dir.mkdir(parents=True, exist_ok=True)
    t_start = time.perf_counter()
    command = "python experiments/palatucci2008/run.py" + (" --quick" if quick else "")
    if args.seeds:
        command += f" --seeds {args.seeds}"

    lines = [
        "# Palatucci & Carlson (2008): chance accuracies and multiplicity-gap selection",
        "",
        f"Command: `{command}` (seeds 0..{n_seeds - 1}; finished in TIME).",
        "",
        "## Example 4.1 and Figure 1",
        "",
        f'Example 4.1 (M = 200, N = 20, p_err = 0.5): paper 0.7975 ("80%"), widefs '
        f"**{highest_chance_accuracy(200, 20):.4f}**.",
        "",
        "Figure 1, E[A_H] in %: widefs (paper value in parentheses where it differs "
        "beyond rounding; the values below the figure are exact evaluations of Theorem 4.1 "
        "and agree with Monte Carlo in `tests/stats/test_chance.py`).",
        "",
        "| N \\ M | " + " | ".join(map(str, FIGURE1_M)) + " |",
        "|---|" + "---|" * len(FIGURE1_M),
    ]
    for n, paper in FIGURE1_PAPER.items():
        ours = 100 * highest_chance_accuracy(np.array(FIGURE1_M), n)
        cells = [
            f"{o:.2f}" if abs(o - p) < 0.006 else f"{o:.2f} ({p:.2f})"
            for o, p in zip(ours, paper, strict=True)
        ]
        lines.append(f"| {n} | " + " | ".join(cells) + " |")
    ax = plot_chance_curves()
    ax.figure.savefig(fig_dir / "figure1.png", dpi=110)
    lines += ["", "![Figure 1](palatucci2008/figure1.png)", ""]

    # Figures 2 and 3 on colon and the other microarrays.
    datasets = ["colon"] if quick else MICROARRAYS
    lines += [
        "## Figure 2: accuracy by threshold (leave-one-out, Gaussian naive Bayes)",
        "",
        "Each cell: leave-one-out accuracy in %, mean ± sd over seeds, and the median "
        "number of features selected per round in parentheses. M / N: features scored / "
        "validation examples per round. The oracle column uses the test labels to pick "
        "the single best errors-allowed value (an upper reference, not a method); the last "
        "column gives that value and how often (over seeds) it fell inside the "
        "multiplicity gap [E[X(1)], E[X]].",
        "",
        table_header(),
    ]
    colon_summary = None
    for name in datasets:
        X, y = load_dataset(name, return_X_y=True)
        if quick:
            X = X[:, :500]
        curves, summary, oracle_e, inside = run_dataset(X, y, seeds)
        shape = f"{X.shape[0]} x {X.shape[1]}"
        lines.append(fmt_rule_row(name, shape, summary, oracle_e, inside, curves[0]))
        if name == "colon":
            colon_summary = summary
            ax = plot_errors_allowed(curves[0], title=f"colon ({shape}), seed 0")
            ax.figure.savefig(fig_dir / "figure3_colon.png", dpi=110)
            acc = {LABELS[r]: summary[r]["acc"] for r in RULES}
            sd = {LABELS[r]: summary[r]["sd"] for r in RULES}
            ax = plot_threshold_accuracies(acc, errors=sd, title="colon: accuracy by threshold")
            ax.figure.savefig(fig_dir / "figure2_colon.png", dpi=110)

    # The fMRI data are not available: synthetic subjects of the same size.
    n_subjects = 2 if quick else 13
    n_feat = 5_000 if quick else 80_000
    n_inf = 30 if quick else 300
    fmri_rows, fmri_curves = [], []
    for subject in range(n_subjects):
        X, y = make_wide_classification(
            40, n_feat, n_informative=n_inf, effect_size=1.2, random_state=1000 + subject
        )
        curves, summary, oracle_e, inside = run_dataset(X, y, seeds[:1])
        fmri_curves.append(curves[0])
        fmri_rows.append((subject, summary, oracle_e, inside, curves[0]))
    lines += [
        f"| synthetic fMRI-sized (mean of {n_subjects} subjects) | 40 x {n_feat} | "
        f"{fmri_rows[0][4].n_features_scored} / {fmri_rows[0][4].n_validation} | "
        f"{fmri_rows[0][4].expected_min_errors:.2f} / {fmri_rows[0][4].mgm:.2f} / {fmri_rows[0][4].expected_errors:.1f} | "
        + " | ".join(
            f"{100 * np.mean([r[1][rule]['acc'] for r in fmri_rows]):.1f} ± "
            f"{100 * np.std([r[1][rule]['acc'] for r in fmri_rows], ddof=1):.1f} "
            f"({np.median([r[1][rule]['selected'] for r in fmri_rows]):.0f})"
            for rule in RULES
        )
        + f" | {np.median([r[2][0] for r in fmri_rows]):.0f} "
        f"({np.mean([r[3][0] for r in fmri_rows]):.0%}) |",
    ]
    for k, curve in enumerate(fmri_curves[:3]):
        ax = plot_errors_allowed(curve, title=f"synthetic subject {k + 1} (40 x {n_feat})")
        ax.figure.savefig(fig_dir / f"figure3_synthetic{k + 1}.png", dpi=110)
    fdr_empty = np.mean([r[1]["fdr"]["empty"] for r in fmri_rows]) / 40

    lines += [
        "",
        "![Figure 2, colon](palatucci2008/figure2_colon.png)",
        "",
        "## Figure 3: accuracy against errors allowed",
        "",
        "![Figure 3, colon](palatucci2008/figure3_colon.png)",
        "![Figure 3, synthetic subject 1](palatucci2008/figure3_synthetic1.png)",
        "",
        "## What the paper reports, and what we measured",
        "",
        "The paper gives Figure 2 as a bar chart without numbers, so we compare findings:",
        "",
        "| paper's finding | ours |",
        "|---|---|",
    ]
    cs = colon_summary
    lines += [
        f"| E[X(1)] improves on no selection, but is conservative (few features) | colon: "
        f"{100 * cs['all']['acc']:.1f}% -> {100 * cs['max_chance']['acc']:.1f}% with a median of "
        f"{cs['max_chance']['selected']:.0f} features |",
        f"| MGM comes closest to the oracle | colon: MGM {100 * cs['mgm']['acc']:.1f}%, oracle "
        f"{100 * cs['oracle']['acc']:.1f}%, E[X(1)] {100 * cs['max_chance']['acc']:.1f}% (see commentary) |",
        f"| FDR 5% selects fewer than ten features on colon | median {cs['fdr']['selected']:.0f} features, "
        f"{100 * cs['fdr']['acc']:.1f}% |",
        f"| FDR selects no feature on fMRI | synthetic 40 x {n_feat}: no feature in "
        f"{100 * fdr_empty:.0f}% of the rounds |",
        "| The oracle threshold falls inside the multiplicity gap on every subject and on colon | "
        "see the last column of the table |",
        "",
    ]
    lines += calibrated_null_section(seeds[:1] if quick else seeds[:2], quick=quick)
    elapsed = time.perf_counter() - t_start
    text = "\n".join(lines).replace("TIME", f"{elapsed:.0f} s")
    text += COMMENTARY
    (out / "palatucci2008.md").write_text(text)
    print(text)
    return 0


COMMENTARY = """
## Commentary

- **Data.** Colon is the paper's dataset (62 x 2000, same shape and class counts). The fMRI
  StarPlus data are not available (see the datasets README), so the fMRI row is a
  synthetic stand-in of the same size: 40 examples x 80,000 independent Gaussian features,
  of which 300 are weakly informative (class means 1.2 standard deviations apart), 13
  "subjects" with different seeds, one protocol seed each. It reproduces the paper's
  *arithmetic* (M = 80,000, N = 20: BH at 5% needs at least 2 features with 0 errors,
  33 with at most 1, or 322 with at most 2 before it rejects anything), not brain data.
- **Where the paper's picture holds.** On the fMRI-sized task every finding of the paper
  reappears: no selection is useless, E[X(1)] helps but admits a couple of features, FDR
  selects nothing in almost every round, MGM is the best threshold-based rule and the
  closest to the oracle, and the oracle's errors-allowed value lies inside the
  multiplicity gap for every subject. On colon, E[X(1)] improves on no selection by 25
  points and FDR selects fewer than ten genes, as reported.
- **Where it does not.** On colon MGM (79.8%) is not closer to the oracle (84.0%) than
  E[X(1)] (81.5%); the difference is within one standard deviation over seeds. The paper
  reports one run of a randomized protocol; our seed-to-seed spread (2-5 points) is as
  large as the differences it draws conclusions from. MGM admits about 170 genes on colon,
  of which about 70 are expected to be noise (a random gene passes its cut of 10 errors
  out of 31 with probability P(X <= 10) = 3.5%); naive Bayes tolerates them only up to a
  point. With very few validation examples (medulloblastoma_b, N = 17) MGM's cut of 4.95
  errors admits hundreds of noise genes and accuracy collapses, while E[X(1)] does well.
- **Imbalanced and multi-class data.** The tables above use the paper's chance error rate
  1 - 1/c (0.5 for two classes), its assumption of balanced classes. On lymphoma (3
  classes, 42/11/9) a feature that only predicts the majority class already makes 1/3
  errors, far below the chance rate 2/3, so every threshold keeps almost every gene.
  widefs's default (`p_error="auto"`) is the majority-class error of the validation half,
  and `null="permutation"` calibrates the thresholds on relabelled data; the section
  "The calibrated null" shows what changes.
- **The calibrated null (section above).** On colon (40/22) a gene that predicts "tumour"
  everywhere makes 11 of 31 validation errors, well under the paper's E[X] = 15.5. The
  permutation null puts E[X] at 12.2 and E[X(1)] at 6.85 (the paper's 6.24 is close, because
  correlated genes and the imbalance push in opposite directions); its MGM keeps 87 genes per
  round instead of 172 at the same or better accuracy (84.7% vs 83.9%). On lymphoma
  (42/11/9) the paper's rate 2/3 lets every rule keep nearly all 4026 genes (93.5%); the
  permutation null keeps 770-1128 and reaches 99-100%. The analytic `p_error="auto"` bound
  is safe but strict: on colon its E[X(1)] rule selects nothing. On balanced breast_er the
  three nulls nearly agree. The permutation FDR rule with 100 permutations per round cannot
  reject on 2000-7000 genes (its smallest p-value is 1/101), and an empty selection under
  leave-one-out on balanced classes is always wrong (pitfall (b)): breast_er's 0%.
- **No selection on 80,000 noise features is worse than chance.** Under leave-one-out
  the held-out example's class has one training example fewer; summed over tens of
  thousands of noise features, the slightly wider predictive spread of that class makes
  naive Bayes vote against it (the same mechanism as pitfall (b) of FORMULAS.md). We
  report it rather than hide it.
- **Rounds where nothing is selected** use the class prior only, which under leave-one-out
  on balanced classes predicts the wrong class (pitfall (b)); the FDR accuracy on the
  synthetic task is therefore close to 0% by construction of the protocol. The paper
  reports FDR there as "selected no features" without an accuracy bar.
- **Leukemia** is easy for naive Bayes on all genes (98.6%); selection with any
  data-driven threshold costs about 3 points, and the oracle keeps nearly every gene.
"""
