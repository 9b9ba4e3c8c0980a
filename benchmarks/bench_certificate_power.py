"""Power and calibration of CN2's certificates: the search score against the cross-validated one.

CN2's search score is the training accuracy of its rules, which reaches its maximum on almost
any relabelling of wide data, so its certificate cannot reject. ``score="cv"`` certifies the
5-fold cross-validated accuracy instead (balanced accuracy on imbalanced classes). This script
measures both, for CN2 with the significance stopping rule and with POE stopping:

- **power**: 30 datasets of 40 x 200 standard normal features, 20 + 20 labels in random order,
  features 0-2 shifted by 2 SD in the second class; the share of datasets with p <= 0.05
  (acceptance: at least 80 % for the cross-validated certificate);
- **null**: 200 datasets of the same shape with labels independent of the features (and 100
  with 30 + 10 labels, certified by balanced accuracy); the number of datasets with p <= 0.05
  must lie inside the binomial 99 % band around 5 %, and the tie-broken p-value must pass a
  KS test of uniformity.

Every certificate uses 99 permutations (smallest p-value 0.01). The results replace the
section "certificate-power" of ``docs/certificates.md``. The test suite runs small versions
(``tests/model_selection/test_certificate_cv.py``).

Usage::

    nice -n 10 python benchmarks/bench_certificate_power.py [--quick]
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
from scipy import stats  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _report import ROOT, write_section  # noqa: E402

from widefs.model_selection import search_certificate  # noqa: E402
from widefs.rules import CN2Classifier  # noqa: E402

PAGE = ROOT / "docs" / "certificates.md"
ESTIMATORS = {
    "CN2 (significance)": CN2Classifier(),
    "CN2-POE": CN2Classifier(stopping="poe"),
}


def dataset(seed: int, counts=(20, 20), shift: float = 0.0, n_features: int = 200):
    """Standard normal features, labels in random order, features 0-2 shifted in class 1."""
    rng = np.random.default_rng(seed)
    y = rng.permutation(np.repeat([0, 1], counts))
    X = rng.normal(size=(y.size, n_features))
    X[:, :3] += shift * y[:, None]
    return X, y


def certify(est, X, y, score, scoring, n_permutations, seed):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return search_certificate(
            est,
            X,
            y,
            score=score,
            scoring=scoring,
            n_permutations=n_permutations,
            random_state=seed,
            stop_after=None,  # the tie-broken p-value needs the whole null
        )


def power_row(name, est, n_datasets, B):
    """Share of planted-signal datasets with p <= 0.05, search score against cross-validated."""
    out = {}
    for score in ("search", "cv"):
        t0 = time.process_time()
        certs = [
            certify(est, *dataset(d, shift=2.0), score, "accuracy", B, d) for d in range(n_datasets)
        ]
        p = np.array([c.pvalue for c in certs])
        out[score] = (
            np.mean(p <= 0.05),
            np.mean(p),
            sum(c.uninformative is not None for c in certs),
            np.mean([c.observed for c in certs]),
            np.mean([c.null_mean for c in certs]),
            time.process_time() - t0,
        )
    s, c = out["search"], out["cv"]
    print(f"power {name}: search {s}, cv {c}", flush=True)
    return (
        f"| {name} | {s[0]:.0%} ({s[2]} of {n_datasets} uninformative) | {c[0]:.0%} | "
        f"{c[1]:.3f} | {c[3]:.3f} | {c[4]:.3f} | {c[5] / n_datasets:.1f} s |"
    )


def null_row(name, est, n_datasets, B, counts, scoring):
    """Rejections at 0.05 on null datasets against the binomial 99 % band; KS of tie-broken p."""
    t0 = time.process_time()
    rng = np.random.default_rng(99)
    reported, randomized = [], []
    for d in range(n_datasets):
        cert = certify(est, *dataset(1000 + d, counts=counts), "cv", scoring, B, d)
        reported.append(cert.pvalue)
        randomized.append(cert.randomized_pvalue(rng))
    reported, randomized = np.array(reported), np.array(randomized)
    lo, hi = stats.binom.ppf([0.005, 0.995], n_datasets, 0.05)
    k, k_tb = np.count_nonzero(reported <= 0.05), np.count_nonzero(randomized <= 0.05)
    ks = stats.kstest(randomized, "uniform").pvalue
    cpu = time.process_time() - t0
    print(f"null {name} {counts} {scoring}: {k}/{n_datasets} [{lo}, {hi}], tb {k_tb}, KS {ks:.3f}")
    return (
        f"| {name} | {counts[0]} + {counts[1]}, {scoring.replace('_', ' ')} | {k} / {n_datasets} "
        f"| {k_tb} / {n_datasets} | {int(lo)}-{int(hi)} | {ks:.3f} | {reported.mean():.3f} | "
        f"{cpu / n_datasets:.1f} s |"
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="3 + 10 datasets, 19 permutations")
    args = parser.parse_args(argv)
    n_power, n_null, n_imbalanced, B = (3, 10, 5, 19) if args.quick else (30, 200, 100, 99)
    power = [power_row(name, est, n_power, B) for name, est in ESTIMATORS.items()]
    null = [
        null_row(name, est, n_null, B, (20, 20), "accuracy") for name, est in ESTIMATORS.items()
    ]
    null.append(
        null_row(
            "CN2 (significance)",
            ESTIMATORS["CN2 (significance)"],
            n_imbalanced,
            B,
            (30, 10),
            "balanced_accuracy",
        )
    )
    if args.quick:
        return 0
    write_section("certificate-power", _page(power, null, n_power, B), path=PAGE)
    return 0


def _page(power, null, n_power, B) -> str:
    return "\n".join(
        [
            "Measured by `nice -n 10 python benchmarks/bench_certificate_power.py` (CPU time per"
            f" certificate, one core; {B} permutations each, smallest p-value {1 / (B + 1):.2f}).",
            "",
            f"Power, {n_power} datasets of 40 x 200, 20 + 20 examples, 3 features shifted by 2 SD:"
            " share of datasets with p <= 0.05.",
            "",
            "| CN2 | search score (training accuracy) | cross-validated accuracy | mean p (cv) |"
            " mean observed (cv) | mean null (cv) | CPU per cv certificate |",
            "|---|---|---|---|---|---|---|",
            *power,
            "",
            "Null: labels independent of the features (40 x 200), cross-validated certificates;"
            " the count of p <= 0.05 must lie in the binomial 99 % band, and the tie-broken"
            " p-value (`randomized_pvalue`) must pass the KS test of uniformity.",
            "",
            "| CN2 | classes, score | p <= 0.05 | tie-broken p <= 0.05 | 99 % band | KS p"
            " (tie-broken) | mean p | CPU per certificate |",
            "|---|---|---|---|---|---|---|---|",
            *null,
        ]
    )


if __name__ == "__main__":
    raise SystemExit(main())
