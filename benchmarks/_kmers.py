"""A synthetic k-mer task: presence/absence of 10^7 k-mers in 200 genomes, written chunk-wise.

The genome of each sample is a presence/absence vector over k-mers. Neighbouring k-mers of
one locus are present together, so the matrix is made of *runs* of identical columns (run
lengths 1 to 8): blocks of features that no training set can tell apart. Two genes are
planted, each a run of ``GENE_KMERS`` identical k-mers at fixed places; the phenotype is
"resistant" where gene A is present and gene B absent, with 5% of the labels flipped.
Presence frequencies vary by locus (1/2, 1/4 or 1/8: bits of one, two or three random
words ANDed), and the store is written one chunk of columns at a time, so the full matrix
(2 GB as booleans) never exists in memory.

Store layout (what ``widefs run`` reads, see ``src/widefs/cli/_store.py``): a zarr group with
``X`` (samples x k-mers, bool, chunks of 65,536 k-mers) and ``class`` (the labels).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

N_SAMPLES = 200
N_KMERS = 10_000_000
CHUNK = 1 << 16
GENE_KMERS = 31  # the k-mers of one gene (k = 31), all present together
GENES = {"A": 0.1234567, "B": 0.7654321}  # where each planted gene starts (share of the k-mers)
LABEL_NOISE = 0.05


def _bits(rng, n_rows: int, n_cols: int, level: np.ndarray) -> np.ndarray:
    """``(n_rows, n_cols)`` presence bits; column ``j`` present with probability 2^-level[j]."""
    out = np.ones((n_rows, n_cols), dtype=bool)
    for k in range(int(level.max())):
        raw = np.frombuffer(rng.bytes(-(-n_rows * n_cols // 8)), dtype=np.uint8)
        draw = np.unpackbits(raw, count=n_rows * n_cols).reshape(n_rows, n_cols).astype(bool)
        out &= draw | (level <= k)[None, :]
    return out


def gene_patterns(seed: int = 0, n_samples: int = N_SAMPLES) -> dict[str, np.ndarray]:
    """Presence of each planted gene in each sample."""
    rng = np.random.default_rng([seed, 1])
    return {g: rng.random(n_samples) < 0.5 for g in GENES}


def labels(seed: int = 0, n_samples: int = N_SAMPLES) -> np.ndarray:
    """The phenotype: resistant where gene A is present and gene B absent, 5% flipped."""
    genes = gene_patterns(seed, n_samples)
    rng = np.random.default_rng([seed, 2])
    resistant = (genes["A"] & ~genes["B"]) ^ (rng.random(n_samples) < LABEL_NOISE)
    return np.where(resistant, "resistant", "not resistant")  # conjunctions: classes_[1]


def gene_starts(n_kmers: int) -> dict[str, int]:
    """The first k-mer of each planted gene in a matrix of ``n_kmers`` k-mers."""
    return {g: int(share * n_kmers) for g, share in GENES.items()}


def chunk(seed: int, start: int, stop: int, n_kmers: int, n_samples: int = N_SAMPLES) -> np.ndarray:
    """Columns ``start..stop-1`` of the matrix (a deterministic function of the seed)."""
    rng = np.random.default_rng([seed, 3, start])
    n = stop - start
    runs = rng.integers(1, 9, size=n)  # loci of 1..8 k-mers
    ids = np.repeat(np.arange(n), runs)[:n]
    n_loci = int(ids[-1]) + 1
    block = _bits(rng, n_samples, n_loci, rng.integers(1, 4, size=n_loci))[:, ids]
    for name, first in gene_starts(n_kmers).items():
        lo, hi = max(first, start), min(first + GENE_KMERS, stop)
        if lo < hi:
            block[:, lo - start : hi - start] = gene_patterns(seed, n_samples)[name][:, None]
    return block


def write_store(path: Path, *, n_kmers: int = N_KMERS, seed: int = 0, n_samples: int = N_SAMPLES):
    """Write the zarr store (``X`` and ``class``) chunk by chunk; returns its path."""
    import zarr

    group = zarr.open_group(str(path), mode="w")
    X = group.create_array("X", shape=(n_samples, n_kmers), chunks=(n_samples, CHUNK), dtype=bool)
    for start in range(0, n_kmers, CHUNK):
        stop = min(start + CHUNK, n_kmers)
        X[:, start:stop] = chunk(seed, start, stop, n_kmers, n_samples)
    y = labels(seed, n_samples)
    group.create_array("class", shape=y.shape, dtype=str)[:] = y
    return path


def gene_of(feature: int, n_kmers: int) -> str | None:
    """The planted gene a k-mer belongs to, if any."""
    for name, first in gene_starts(n_kmers).items():
        if first <= feature < first + GENE_KMERS:
            return name
    return None
