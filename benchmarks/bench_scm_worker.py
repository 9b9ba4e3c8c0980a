"""One side of the SCM benchmark, run in its own process (widefs or pyscm-ml).

Prints one JSON line: fit times, the learned rules and memory. Memory is read from
/proc/self/status: ``VmHWM`` (peak resident set) is reset just before the measured fit
(``echo 5 > /proc/self/clear_refs``), so ``fit_peak_mb`` is the largest RSS reached during
the fit and ``fit_extra_mb`` that peak minus the RSS before it (data loaded, libraries
imported and compiled by a warm-up fit on a slice).

This file must run with numpy 1.x and without widefs installed (the pyscm-ml venv).
"""

import argparse
import json
import statistics
import time

import numpy as np


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


def _fit_widefs(X, y, p, max_rules):
    from widefs.scm import SampleCompressionSCM

    # feature_reuse=True: pyscm-ml may put several stumps on one feature.
    clf = SampleCompressionSCM(p=p, max_rules=max_rules, select="none", feature_reuse=True)
    clf.fit(X, y)
    kinds = {">": "greater", "<=": "less_equal"}
    return [(int(r.feature), kinds[r.direction], float(r.threshold)) for r in clf.rules_]


def _fit_pyscm(X, y, p, max_rules):
    from pyscm import SetCoveringMachineClassifier

    clf = SetCoveringMachineClassifier(p=p, max_rules=max_rules).fit(X, y)
    return [(int(r.feature_idx), str(r.kind), float(r.threshold)) for r in clf.model_.rules]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", choices=["widefs", "pyscm"], required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--p", type=float, default=1.0)
    ap.add_argument("--max-rules", type=int, default=10)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    fit = _fit_widefs if args.lib == "widefs" else _fit_pyscm
    X = np.load(f"{args.data}/X.npy")
    y = np.load(f"{args.data}/y.npy")
    fit(X[:20, :50], y[:20], args.p, 2)  # warm-up: imports, numba compilation
    before = _status_mb("VmRSS")
    reset = _reset_peak()
    times = []
    t0 = time.perf_counter()
    rules = fit(X, y, args.p, args.max_rules)
    times.append(time.perf_counter() - t0)
    peak = _status_mb("VmHWM") if reset else float("nan")
    for _ in range(args.repeat - 1):
        t0 = time.perf_counter()
        fit(X, y, args.p, args.max_rules)
        times.append(time.perf_counter() - t0)
    threads = 1
    if args.lib == "widefs":
        import numba

        threads = numba.get_num_threads()
    print(
        json.dumps(
            {
                "lib": args.lib,
                "threads": threads,
                "times": times,
                "median": statistics.median(times),
                "rules": rules,
                "rss_before_mb": before,
                "fit_peak_mb": peak,
                "fit_extra_mb": peak - before,
            }
        )
    )


if __name__ == "__main__":
    main()
