"""Write a synthetic wide CSV (samples x features, one ``class`` column) for CLI benchmarks.

Two balanced classes; the first ``--informative`` features are shifted by one standard
deviation in class "b", the rest are pure noise. Values are written with 4 decimals,
as expression/methylation exports usually are.

Usage::

    python benchmarks/make_wide_csv.py OUT.csv --samples 100 --features 200000 [--seed 0]
"""

from __future__ import annotations

import argparse

import numpy as np


def write_wide_csv(path, n_samples: int, n_features: int, *, informative: int = 20, seed: int = 0):
    """Write the CSV to ``path`` block by block (memory stays below one block of columns)."""
    rng = np.random.default_rng(seed)
    y = np.array(["a", "b"] * (n_samples // 2) + ["a"] * (n_samples % 2))
    X = rng.normal(size=(n_samples, n_features)).astype(np.float32)
    X[y == "b", : min(informative, n_features)] += 1.0
    width = len(str(n_features - 1))
    header = ",".join(f"f{j:0{width}d}" for j in range(n_features)) + ",class\n"
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(header)
        for i in range(n_samples):
            fh.write(",".join(np.char.mod("%.4f", X[i])) + "," + y[i] + "\n")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("--samples", type=int, default=100)
    parser.add_argument("--features", type=int, default=200_000)
    parser.add_argument("--informative", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    write_wide_csv(
        args.out, args.samples, args.features, informative=args.informative, seed=args.seed
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
