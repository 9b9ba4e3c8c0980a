"""One side of the SCM benchmark, run in its own process (widefs or pyscm-ml).

Two modes, each printing one JSON line:

- ``--mode time``: load the data, fit once on a slice (warm-up: imports, any JIT), then
  time ``--repeat`` fits of the full data (wall clock and CPU time of this process). The
  first timed fit also gives the fit's own memory: ``VmHWM`` (peak resident set) is reset
  just before it (``echo 5 > /proc/self/clear_refs``), and ``fit_extra_mb`` is the peak
  during the fit minus the resident set before it.
- ``--mode memory``: what a user pays in a fresh process: import the library, load the
  data, fit once. ``process_peak_mb`` is the process's peak resident set (VmHWM, which
  includes the interpreter, the libraries, the data and the fit); ``import_mb`` and
  ``loaded_mb`` are the resident sets after the imports and after loading the data;
  ``first_wall`` and ``first_cpu`` time that first fit, ``import_cpu`` the import.

- ``--mode jit`` (widefs only): fit the three Set Covering Machines of widefs on the colon
  data in this fresh process and print the CPU time of each fit (with an empty
  ``NUMBA_CACHE_DIR`` the numba kernels compile; with a filled one they load).

This file must run with numpy 1.x and without widefs installed (the pyscm-ml venv).
"""

import argparse
import json
import statistics
import time


def _status_mb(key):
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(key + ":"):
                return int(line.split()[1]) / 1024.0
    return float("nan")


def _reset_peak():
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
        return True
    except OSError:
        return False


def _import(lib):
    if lib == "widefs":
        from widefs.scm import SampleCompressionSCM

        return SampleCompressionSCM
    from pyscm import SetCoveringMachineClassifier

    return SetCoveringMachineClassifier


def _timed(fn, *args):
    """``(fn(*args), wall seconds, CPU seconds)``."""
    t0, c0 = time.perf_counter(), time.process_time()
    out = fn(*args)
    return out, time.perf_counter() - t0, time.process_time() - c0


def _fit(lib, cls, X, y, p, max_rules):
    if lib == "widefs":
        # feature_reuse=True: pyscm-ml may put several stumps on one feature.
        clf = cls(p=p, max_rules=max_rules, select="none", feature_reuse=True).fit(X, y)
        kinds = {">": "greater", "<=": "less_equal"}
        return [(int(r.feature), kinds[r.direction], float(r.threshold)) for r in clf.rules_]
    clf = cls(p=p, max_rules=max_rules).fit(X, y)
    return [(int(r.feature_idx), str(r.kind), float(r.threshold)) for r in clf.model_.rules]


def _jit():
    """CPU seconds of fitting each widefs Set Covering Machine once on colon."""
    import warnings

    import numpy as np

    from widefs.datasets import load_dataset
    from widefs.scm import OccamSCM, PACBayesSCM, SampleCompressionSCM

    X, y = load_dataset("colon", return_X_y=True)
    X, y = np.asarray(X, dtype=float), np.asarray(y)
    rng = (X.min(axis=0), X.max(axis=0))
    out = {}
    for est in (
        SampleCompressionSCM(),
        OccamSCM(feature_range=rng),
        PACBayesSCM(feature_range=rng),
    ):
        c0 = time.process_time()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est.fit(X, y)
        out[type(est).__name__] = time.process_time() - c0
    print(json.dumps(out))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", choices=["widefs", "pyscm"], required=True)
    ap.add_argument("--mode", choices=["time", "memory", "jit"], default="time")
    ap.add_argument("--data")
    ap.add_argument("--p", type=float, default=1.0)
    ap.add_argument("--max-rules", type=int, default=10)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    if args.mode == "jit":
        _jit()
        return
    import numpy as np

    cls, _, import_cpu = _timed(_import, args.lib)
    import_mb = _status_mb("VmRSS")
    X = np.load(f"{args.data}/X.npy")
    y = np.load(f"{args.data}/y.npy")
    loaded_mb = _status_mb("VmRSS")
    out = {"lib": args.lib, "mode": args.mode}
    if args.mode == "memory":
        # The first call in a fresh process: what one fit costs a user, any start-up included.
        rules, first_wall, first_cpu = _timed(_fit, args.lib, cls, X, y, args.p, args.max_rules)
        out.update(
            rules=rules,
            first_wall=first_wall,
            first_cpu=first_cpu,
            import_cpu=import_cpu,
            import_mb=import_mb,
            loaded_mb=loaded_mb,
            process_peak_mb=_status_mb("VmHWM"),
            numba_loaded=__import__("sys").modules.get("numba") is not None,
        )
        print(json.dumps(out))
        return
    _fit(args.lib, cls, X[:20, :50], y[:20], args.p, 2)  # warm-up: imports, any JIT
    before = _status_mb("VmRSS")
    reset = _reset_peak()
    times, cpu = [], []
    rules = None
    for i in range(args.repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        got = _fit(args.lib, cls, X, y, args.p, args.max_rules)
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
        if i == 0:
            rules = got
            peak = _status_mb("VmHWM") if reset else float("nan")
    out.update(
        times=times,
        cpus=cpu,
        median=statistics.median(times),
        cpu_median=statistics.median(cpu),
        rules=rules,
        rss_before_mb=before,
        fit_peak_mb=peak,
        fit_extra_mb=peak - before,
    )
    print(json.dumps(out))


if __name__ == "__main__":
    main()
