"""Reproduce Tables I-V of Shah, Marchand & Corbeil (2010) on the bundled microarray data.

Protocol (Section VII): repeated 5-fold cross-validation (a random permutation of the data
per repetition, the same folds for every algorithm); every learning parameter (and gene
subset size) is chosen by a nested 5-fold CV on the training part only. Errors are the
number of misclassified examples over the 5 test folds, mean +- sd over repetitions.

Algorithms: linear SVM; SVM on the top 2^i genes of Golub's signal-to-noise ranking
(SVM+gs); SVM with recursive feature elimination inside the folds (SVM+rfe, halving);
AdaBoost with decision stumps; the Occam, sample-compression (SC) and PAC-Bayes Set
Covering Machines of widefs.scm, each also with *bound-based* selection (the parameters
and number of stumps minimising the risk bound on the training part; no nested CV);
the PAC-Bayes fixed-margin heuristic (Table IV) and the bound illustration (Table V) on
one repetition.

Usage::

    nice widefs reproduce shah2010 --jobs 1 --out DIR   # 20 repetitions, resumable
    widefs reproduce shah2010 --render-only --out DIR   # the page from what has finished
    widefs reproduce shah2010 --quick --out DIR         # a small run (tests)

Each finished task (data set x repetition, colon variant x repetition) is stored as one JSON
file under ``DIR/shah2010/`` and reused by later runs while its key (settings and the SCM
engine's probe fingerprint) is unchanged.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass

from widefs_reproduce import _store
from widefs_reproduce._common import add_out_argument, command_line, output_paths
from widefs_reproduce.shah2010._commentary import commentary
from widefs_reproduce.shah2010._compare_page import (
    conjunction_findings,
    conjunction_section,
    disjunction_shares,
)
from widefs_reproduce.shah2010._data import DATASETS, PAPER_NAME, grids
from widefs_reproduce.shah2010._page import APPENDIX, RunInfo, render_appendix, render_page
from widefs_reproduce.shah2010._runs import one_conjunction, one_repetition
from widefs_reproduce.shah2010._scm import engine_fingerprint
from widefs_reproduce.shah2010._summary import summarize
from widefs_reproduce.shah2010._variants import (
    HYPOTHESES,
    one_hypothesis,
    protocol_as_variant,
    summarize_hypotheses,
)

__all__ = ["main"]

# Largest data sets first, so that two workers finish together.
_COST = {"leukemia": 0, "medulloblastoma_c": 1, "breast_er": 2, "colon": 3}


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--quick",
        action="store_true",
        help="tiny grids, 2 data sets truncated to 150 genes, 1 repetition",
    )
    ap.add_argument("--reps", type=int, default=None, help="repetitions of 5-fold CV (20)")
    ap.add_argument(
        "--hypothesis-reps",
        type=int,
        default=None,
        help="repetitions of the colon Occam/SC variants (5; 0 skips them)",
    )
    ap.add_argument(
        "--conjunction-reps",
        type=int,
        default=None,
        help="repetitions of the conjunction-only SCMs on every data set (5; 0 skips them)",
    )
    ap.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    ap.add_argument("--datasets", default=",".join(DATASETS))
    ap.add_argument("--seed", type=int, default=2010)
    ap.add_argument(
        "--fresh",
        action="store_true",
        help="discard stored task results instead of resuming (results are reused only when "
        "data set, repetition, seed, grids and the SCM engine's results on a probe are unchanged)",
    )
    ap.add_argument(
        "--render-only",
        action="store_true",
        help="compute nothing: render the page from the stored tasks of the first repetitions "
        "that are complete (the page says how many of --reps), e.g. while a run is going on",
    )
    add_out_argument(ap, PAPER_NAME)
    return ap


@dataclass
class Settings:
    """The run's settings, derived from the command line."""

    quick: bool
    reps: int
    h_reps: int
    c_reps: int
    names: list
    max_features: int | None
    variants: list
    grids: dict
    seed: int
    algorithms: tuple = ("baselines", "sc", "occam", "pb")


def _settings(args) -> Settings:
    if args.render_only and args.fresh:
        raise ValueError("--render-only renders the stored tasks; --fresh would discard them")
    quick = args.quick
    names = args.datasets.split(",")
    unknown = sorted(set(names) - set(DATASETS))
    if unknown:
        raise ValueError(f"unknown --datasets {', '.join(unknown)}; choose among {DATASETS}")
    variants = list(HYPOTHESES)
    if quick:
        names = [n for n in names if n in ("colon", "medulloblastoma_b")][:2] or names[:1]
        variants = ["protocol", "conjunction", "bound"]
    return Settings(
        quick=quick,
        reps=args.reps or (1 if quick else 20),
        h_reps=args.hypothesis_reps if args.hypothesis_reps is not None else (1 if quick else 5),
        c_reps=args.conjunction_reps if args.conjunction_reps is not None else (1 if quick else 5),
        names=sorted(names, key=lambda n: _COST.get(n, 9)),
        max_features=150 if quick else None,
        variants=variants,
        grids=grids(quick),
        seed=args.seed,
    )


def _task(s: Settings, kind, path, fn, args, engine, seeds, r, **parts):
    """``(path, key, fn, args)``; the key holds everything the result depends on."""
    key = _store.key(
        task=kind,
        engine=engine,
        rep=r,
        seed=seeds[r],
        grids=s.grids,
        max_features=s.max_features,
        **parts,
    )
    return (path, key, fn, args)


def _protocol_task(s: Settings, runs_dir, engine, seeds, name, r):
    algorithms = list(s.algorithms)
    args = (name, r, seeds[r], s.grids, algorithms, s.max_features, r == 0)
    path = runs_dir / f"{name}-rep{r:02d}.json"
    extra = {"dataset": name, "algorithms": algorithms, "tables45": r == 0}
    return _task(s, "protocol", path, one_repetition, args, engine, seeds, r, **extra)


def _variant_task(s: Settings, hyp_dir, engine, seeds, variant, r):
    path = hyp_dir / f"{variant.replace(' ', '_').replace('=', '')}-rep{r:02d}.json"
    args = (variant, r, seeds[r], s.grids, s.max_features)
    return _task(s, "hypothesis", path, one_hypothesis, args, engine, seeds, r, variant=variant)


def _conjunction_task(s: Settings, conj_dir, engine, seeds, name, r):
    path = conj_dir / f"{name}-rep{r:02d}.json"
    args = (name, r, seeds[r], s.grids, s.max_features)
    return _task(s, "conjunction", path, one_conjunction, args, engine, seeds, r, dataset=name)


def _tasks(s: Settings, data_dir, fresh):
    """Protocol and variant tasks, repetition by repetition (an interrupted run leaves whole
    repetitions behind). The "protocol" and "bound" variants are Table II's and the
    bound-selection table's own colon results on the same folds, taken from the protocol
    runs where those exist."""
    from widefs.utils import spawn_seeds

    runs_dir, hyp_dir, conj_dir = (data_dir / d for d in ("runs", "hypotheses", "conjunction"))
    for d in (runs_dir, hyp_dir, conj_dir):
        d.mkdir(exist_ok=True)
        if fresh:
            for f in d.glob("*.json"):
                f.unlink()
    # Seeds are drawn once in the parent; the first k of n are those of a k-repetition run.
    seeds = [int(x) for x in spawn_seeds(s.seed, max(s.reps, s.h_reps, s.c_reps))]
    engine = engine_fingerprint()
    reused = range(s.reps) if "colon" in s.names else range(0)
    protocol, variants, conj = [], [], []
    for r in range(max(s.reps, s.h_reps, s.c_reps)):
        if r < s.reps:
            protocol += [_protocol_task(s, runs_dir, engine, seeds, n, r) for n in s.names]
        for v in s.variants if r < s.h_reps else []:
            if not (r in reused and v in ("protocol", "bound")):
                variants.append(_variant_task(s, hyp_dir, engine, seeds, v, r))
        if r < s.c_reps:
            conj += [_conjunction_task(s, conj_dir, engine, seeds, n, r) for n in s.names]
    return protocol, variants, conj


def _stored_results(s: Settings, groups, data_dir):
    """The stored tasks of the first complete repetitions of each group: (results, reps)."""
    out = []
    for tasks, reps in zip(groups, (s.reps, s.h_reps, s.c_reps), strict=True):
        done = [_store.stored(path, key) for path, key, _, _ in tasks]
        n = _store.complete_prefix(tasks, done, reps)
        out.append(([r for r in done if r is not None and r["rep"] < n], n))
    if out[0][1] == 0:
        raise ValueError(f"--render-only: no complete repetition stored under {data_dir}")
    if "colon" in s.names:  # the variants' "protocol" and "bound" rows are the colon runs
        out[1] = (out[1][0], min(out[1][1], out[0][1]))
    return out


def _computed_results(s: Settings, groups, jobs):
    tasks = [t for g in groups for t in g]
    order = sorted(range(len(tasks)), key=lambda i: tasks[i][3][1])  # by repetition, stable
    done = [None] * len(tasks)
    ran = _store.run_tasks([tasks[i] for i in order], 1 if s.quick else jobs)
    for i, result in zip(order, ran, strict=True):
        done[i] = result
    out, i = [], 0
    for g, reps in zip(groups, (s.reps, s.h_reps, s.c_reps), strict=True):
        out.append((done[i : i + len(g)], reps))
        i += len(g)
    return out


def main(argv=None) -> int:
    """Run (or resume) the reproduction and write the page; returns the exit status."""
    args = _parser().parse_args(argv)
    s = _settings(args)
    page, data_dir = output_paths(PAPER_NAME, args.out)
    groups = _tasks(s, data_dir, args.fresh)
    t0 = time.perf_counter()
    if args.render_only:
        done = _stored_results(s, groups, data_dir)
    else:
        done = _computed_results(s, groups, args.jobs)
    (results, reps), (hyp, h_reps), (conj, c_reps) = done
    elapsed = time.perf_counter() - t0
    cpu = [r.get("cpu_seconds", r["seconds"]) / 60 for r in results]
    command = command_line(PAPER_NAME, argv if argv is not None else sys.argv[1:])
    info = RunInfo(
        command=command,
        reps=reps,
        reps_target=s.reps,
        h_reps=h_reps,
        h_planned=s.h_reps,
        cpu_minutes=sum(cpu) + sum(h.get("cpu_seconds", 0.0) / 60 for h in hyp + conj),
        cpu_per_rep=sum(cpu) / reps,
    )
    hyp += [
        protocol_as_variant(r, v)
        for r in results
        if r["dataset"] == "colon" and r["rep"] < h_reps
        for v in ("protocol", "bound")
        if v in s.variants
    ]
    S = summarize(results)
    parts = {
        "shares": disjunction_shares(results),
        "conjunction": conjunction_section(results, conj, c_reps, s.c_reps),
        "conj_findings": conjunction_findings(results, conj, c_reps),
        "commentary": commentary(S, results),
    }
    H = summarize_hypotheses(hyp) if hyp else {}
    page.write_text(render_page(S, H, info, s.grids, parts))
    page.with_name(APPENDIX).write_text(render_appendix(H, info))
    print(f"wrote {page} and {page.with_name(APPENDIX)} in {elapsed:.1f} s")
    return 0
