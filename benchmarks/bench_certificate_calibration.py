"""Calibration and power of search certificates at full size.

Null: ``n_datasets`` datasets whose labels are a random permutation of balanced classes,
independent of the standard normal features. For each of forward selection (SFS, 1-NN,
one feature), the genetic algorithm and the sample-compression SCM, a certificate with
``n_permutations`` permutations per dataset; the p-values must be uniform:

- the KS test of the reported p-values against U(0, 1) (the reported p-value lives on
  ``{1/(B+1), ..., 1}``; with ``B + 1`` levels a KS statistic up to ``1/(B+1)`` is the
  discreteness alone), and of the tie-broken, jittered p-value (exactly uniform under the
  null for any B);
- the number of datasets with p <= 0.05 inside the binomial 99 % band around
  ``0.05 * n_datasets``, for both p-values.

Power: 60 examples, 20 standard normal features, the class the sign of the sum of three of
them; SFS of 3 features with 3-NN, 199 permutations: p <= 0.01 is required.

The test suite runs a small version of both (``tests/model_selection/test_certificate.py``).

Usage::

    python benchmarks/bench_certificate_calibration.py [--quick]
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
from scipy import stats  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _report import machine_note, write_section  # noqa: E402

from widefs.model_selection import search_certificate  # noqa: E402
from widefs.scm import SampleCompressionSCM  # noqa: E402
from widefs.search import GeneticSelector, KNNEvaluator, SequentialSelector  # noqa: E402

ESTIMATORS = {
    "SFS (1 feature, 1-NN)": SequentialSelector(n_features=1, evaluator=KNNEvaluator(1)),
    "GA (population 4, 2 generations, 1-NN)": GeneticSelector(
        population_size=4,
        n_generations=2,
        initial_fractions=(0.3,),
        random_state=0,
        evaluator=KNNEvaluator(1),
    ),
    "sample-compression SCM (2 stumps)": SampleCompressionSCM(max_rules=2, select="none"),
}


def calibration(est, *, n_datasets, n_permutations, n_samples, n_features, seed=11):
    """Reported and tie-broken p-values over null datasets."""
    rng = np.random.default_rng(seed)
    reported, randomized = [], []
    half = n_samples // 2
    for d in range(n_datasets):
        X = rng.normal(size=(n_samples, n_features))
        y = rng.permutation(np.repeat([0, 1], [half, n_samples - half]))
        cert = search_certificate(
            est,
            X,
            y,
            score="search",
            n_permutations=n_permutations,
            random_state=d,
            stop_after=None,
        )
        reported.append(cert.pvalue)
        randomized.append(cert.randomized_pvalue(rng))
    return np.array(reported), np.array(randomized)


def summary(p, n_datasets):
    lo, hi = stats.binom.ppf([0.005, 0.995], n_datasets, 0.05)
    k = int(np.count_nonzero(p <= 0.05))
    return stats.kstest(p, "uniform").pvalue, k, int(lo), int(hi)


def power(n_permutations=199):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(60, 20))
    y = (X[:, 4] + X[:, 11] + X[:, 15] > 0).astype(int)
    sfs = SequentialSelector(n_features=3, evaluator=KNNEvaluator(3))
    cert = search_certificate(
        sfs, X, y, n_permutations=n_permutations, random_state=0, stop_after=None
    )
    noise = search_certificate(
        sfs, X, rng.permutation(y), n_permutations=n_permutations, random_state=0, stop_after=None
    )
    return cert, noise


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="20 datasets, 19 permutations")
    args = parser.parse_args(argv)
    n_datasets, B = (20, 19) if args.quick else (200, 199)
    n_samples, n_features = 30, 6
    rows = []
    for name, est in ESTIMATORS.items():
        t0 = time.process_time()
        rep, ran = calibration(
            est, n_datasets=n_datasets, n_permutations=B, n_samples=n_samples, n_features=n_features
        )
        ks_rep, k_rep, lo, hi = summary(rep, n_datasets)
        ks_ran, k_ran, _, _ = summary(ran, n_datasets)
        cpu = time.process_time() - t0
        print(
            f"{name}: reported KS p = {ks_rep:.3f}, {k_rep}/{n_datasets} at 0.05; tie-broken "
            f"KS p = {ks_ran:.3f}, {k_ran}/{n_datasets}; band [{lo}, {hi}]; "
            f"mean p {rep.mean():.3f}; {cpu:.0f} s CPU",
            flush=True,
        )
        rows.append(
            f"| {name} | {ks_rep:.3f} | {k_rep} | {ks_ran:.3f} | {k_ran} | {lo}-{hi} | "
            f"{rep.mean():.3f} |"
        )
    cert, noise = power(B)
    print(
        f"power: planted p = {cert.pvalue:.4f} (observed {cert.observed:.3f}, null mean "
        f"{cert.null_mean:.3f}); same data, permuted labels: p = {noise.pvalue:.3f}"
    )
    if args.quick:
        return 0
    write_section(
        "certificate-calibration",
        f"""
## Search certificates: calibration and power

Command: `nice python benchmarks/bench_certificate_calibration.py`. {machine_note()}

{n_datasets} null datasets ({n_samples} examples, {n_features} standard normal features,
labels in random order), {B} permutations each. KS: p-value of the Kolmogorov-Smirnov test
against U(0, 1); "at 0.05": datasets with p <= 0.05, which must lie in the binomial 99 %
band. "Reported" is `SearchCertificate.pvalue`; "tie-broken" breaks ties between observed
and null scores at random.

| search | KS p (reported) | at 0.05 (reported) | KS p (tie-broken) | at 0.05 (tie-broken) | 99 % band | mean reported p |
|---|---|---|---|---|---|---|
{chr(10).join(rows)}

Power: 60 examples, 20 features, the class the sign of the sum of three: SFS of 3 features
(3-NN) with {B} permutations gives p = {cert.pvalue:.4f} (observed LOO accuracy
{cert.observed:.3f}, null mean {cert.null_mean:.3f}); the same data with permuted labels
gives p = {noise.pvalue:.3f}.
""",
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
