"""One measured run of ``bench_screen_huge.py`` in a fresh process (prints one JSON line).

``python _huge_child.py STORE MODE [N_WORKERS]``; MODE is ``read`` (the read floor: every
chunk of the store decoded once, nothing else), ``screen`` (``ClassDifferenceScreen()`` on
the zarr array), ``packed`` (the same on a store of packed bits, read through
``widefs.utils.PackedBits``; its attribute ``n_samples`` gives the samples) or ``dask`` (the same screen on ``da.from_zarr`` with a
``distributed.LocalCluster`` of N_WORKERS single-threaded worker processes). The
environment variable ``ZARR_THREADS`` caps zarr's decode thread pool.
Reports wall and CPU time (this process; for ``dask`` also the workers'), the peak resident
size and the resident size before the fit, a SHA-256 of ``pvalues_`` and the selected columns.
"""

from __future__ import annotations

import hashlib
import json
import os
import resource
import sys
import time
import warnings

import numpy as np


def rss() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def labels(n: int) -> np.ndarray:
    return np.repeat([0, 1], [n // 2, n - n // 2])


def read_floor(z) -> dict:
    width = z.chunks[1]
    base = rss()
    t0, c0 = time.perf_counter(), time.process_time()
    total = 0.0
    for start in range(0, z.shape[1], width):
        block = z[:, start : start + width]
        total += float(block[0, 0])  # touch: the chunk is decoded
    return {
        "wall": time.perf_counter() - t0,
        "cpu": time.process_time() - c0,
        "base": base,
    }


def worker_cpu(client) -> float:
    def cpu():
        import resource as r

        u = r.getrusage(r.RUSAGE_SELF)
        return u.ru_utime + u.ru_stime

    return float(sum(client.run(cpu).values()))


def screen(X, y, client=None) -> dict:
    from widefs.univariate import ClassDifferenceScreen

    warnings.simplefilter("ignore")
    # Warm-up on 2,000 columns with the compiled kernels loaded (a fit that small alone would
    # run the numpy ones), so that the measured fit, as the read floor, holds no loading.
    import widefs.univariate._screen_numpy as screen_numpy
    from widefs.utils import load_columns

    screen_numpy.NUMBA_MIN_WORK, min_work = 0, screen_numpy.NUMBA_MIN_WORK
    ClassDifferenceScreen(random_state=0).fit(load_columns(X, slice(0, 2000)), y)
    screen_numpy.NUMBA_MIN_WORK = min_work
    base = rss()
    w0 = worker_cpu(client) if client is not None else 0.0
    t0, c0 = time.perf_counter(), time.process_time()
    sel = ClassDifferenceScreen(random_state=0).fit(X, y)
    out = {"wall": time.perf_counter() - t0, "cpu": time.process_time() - c0, "base": base}
    if client is not None:
        out["worker_cpu"] = worker_cpu(client) - w0
    # Hashed through a memoryview: a bytes copy would add 8 bytes per feature to the peak.
    out["sha256"] = hashlib.sha256(memoryview(np.ascontiguousarray(sel.pvalues_))).hexdigest()
    out["selected"] = np.flatnonzero(sel.get_support()).tolist()
    out["kinds"] = sel.kind_counts_
    return out


def main() -> None:
    import zarr

    path, mode = sys.argv[1], sys.argv[2]
    threads = os.environ.get("ZARR_THREADS")  # zarr's decode thread pool, when capped
    if threads:
        zarr.config.set({"threading.max_workers": int(threads)})
    z = zarr.open_array(path, mode="r")
    y = labels(int(z.attrs.get("n_samples", z.shape[0])))
    if mode == "read":
        out = read_floor(z)
    elif mode == "screen":
        out = screen(z, y)
    elif mode == "packed":
        from widefs.utils import PackedBits

        out = screen(PackedBits(z, y.size), y)
    else:
        import dask.array as da
        from distributed import Client, LocalCluster

        workers = int(sys.argv[3]) if len(sys.argv) > 3 else 2
        cluster = LocalCluster(
            n_workers=workers,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
        )
        with Client(cluster) as client:
            out = screen(da.from_zarr(z), y, client)
        cluster.close()
    out["peak"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    out["n_features"] = int(z.shape[1])
    print(json.dumps(out))


if __name__ == "__main__":
    main()
