"""Write a synthetic wide CSV (samples x features, one ``class`` column) for CLI benchmarks.

Two balanced classes; the first ``--informative`` features are shifted by one standard
deviation in class "b", the rest are pure noise. Values are written with 4 decimals,
as expression/methylation exports usually are, or as whole numbers (``--integers``: 0, 1
or 2, the value plus one rounded and clipped, as genotype tables count minor alleles). ``--transpose`` writes the
features in rows (the first column names them, a row named ``class`` holds the labels), as
``widefs run --transpose`` reads it.

Usage::

    python benchmarks/make_wide_csv.py OUT.csv --samples 100 --features 200000 [--seed 0]
        [--integers] [--transpose]
"""

from __future__ import annotations

import argparse

import numpy as np

_BLOCK = 1 << 16  # features generated at once with --transpose


def _cells(values: np.ndarray, integers: bool) -> str:
    """One line's cells: ``"%.4f"`` numbers, or whole numbers."""
    if integers:
        return ",".join(map(str, values.tolist()))
    return ",".join(map("{:.4f}".format, values.tolist()))


def _matrix(rng, y, n_features: int, start: int, informative: int, integers: bool):
    """Features ``start`` to ``start + n_features`` of every sample (samples x features)."""
    X = rng.normal(size=(y.size, n_features)).astype(np.float32)
    shifted = max(min(informative - start, n_features), 0)
    X[y == "b", :shifted] += 1.0
    return np.clip(np.rint(X + 1), 0, 2).astype(np.int8) if integers else X


def write_wide_csv(
    path,
    n_samples: int,
    n_features: int,
    *,
    informative: int = 20,
    seed: int = 0,
    integers: bool = False,
    transpose: bool = False,
):
    """Write the CSV to ``path`` block by block (memory stays below one block of columns)."""
    rng = np.random.default_rng(seed)
    y = np.array(["a", "b"] * (n_samples // 2) + ["a"] * (n_samples % 2))
    width = len(str(n_features - 1))
    with open(path, "w", encoding="utf-8") as fh:
        if transpose:
            fh.write("feature," + ",".join(f"s{i}" for i in range(n_samples)) + "\n")
            fh.write("class," + ",".join(y) + "\n")
            for start in range(0, n_features, _BLOCK):
                stop = min(start + _BLOCK, n_features)
                X = _matrix(rng, y, stop - start, start, informative, integers)
                for j in range(stop - start):
                    fh.write(f"f{start + j:0{width}d}," + _cells(X[:, j], integers) + "\n")
            return
        X = _matrix(rng, y, n_features, 0, informative, integers)
        fh.write(",".join(f"f{j:0{width}d}" for j in range(n_features)) + ",class\n")
        for i in range(n_samples):
            fh.write(_cells(X[i], integers) + "," + y[i] + "\n")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("--samples", type=int, default=100)
    parser.add_argument("--features", type=int, default=200_000)
    parser.add_argument("--informative", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--integers", action="store_true", help="whole numbers 0, 1, 2")
    parser.add_argument("--transpose", action="store_true", help="features in rows")
    args = parser.parse_args(argv)
    write_wide_csv(
        args.out,
        args.samples,
        args.features,
        informative=args.informative,
        seed=args.seed,
        integers=args.integers,
        transpose=args.transpose,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
