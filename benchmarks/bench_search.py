"""Wrapper search: widefs vs scikit-learn and mlxtend SequentialFeatureSelector (LOO 3-NN).

Three workloads, each timed for widefs and its peers in the same run, with a check that
they choose the same features (or compute the same fitness):

1. Forward selection of 10 features with leave-one-out 3-NN on 62 x 2000 (synthetic
   and the bundled colon data, features divided by their maximum absolute value as in
   Soares 2010). widefs runs the full problem. The peers refit one
   ``KNeighborsClassifier`` per left-out example and candidate (19,955 candidates x 62
   folds here, about 40 minutes each), so they run the same search on the first 40
   columns (355 candidates; same features required) and their full-problem time is
   extrapolated linearly in the number of candidate evaluations (their cost per
   candidate does not depend on how many columns are *not* in the subset). To check the
   extrapolation, scikit-learn also runs the first step on all 2000 colon columns.
2. Backward selection from 30 colon columns down to 10 (410 candidates), all three full.
   mlxtend breaks ties between equal removal scores toward the highest column index
   (its candidate order), widefs and scikit-learn toward the lowest, so mlxtend gets the
   columns in reverse order, which makes the three rules coincide.
3. One genetic-algorithm generation on colon with the dissertation's colon settings
   (population 40): the fitness (LOO 3-NN accuracy) of 40 distinct subsets of 10-80% of
   the 2000 features, widefs vs ``cross_val_score(KNeighborsClassifier(3), LeaveOneOut())``
   per subset (what a scikit-learn based GA such as sklearn-genetic does per
   individual); same 40 fitness values required. Also the mean wall time per generation
   of a full 40-generation ``GeneticSelector`` run (repeated subsets are cached).

Usage::

    python benchmarks/bench_search.py [--quick]
    python benchmarks/bench_search.py --quick --write   # the small run, stored on the page

``--quick`` runs small peer problems (forward on the first 14 columns, backward from 14 to 10,
the GA for 2 generations on the first 200 colon genes, no extrapolation check): about ten
minutes of peer refits instead of two hours on a shared machine. With ``--write`` its
section is stored on the page, which says it is the small run.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import sys  # noqa: E402
import warnings  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
from sklearn.feature_selection import SequentialFeatureSelector  # noqa: E402
from sklearn.model_selection import LeaveOneOut, cross_val_score  # noqa: E402
from sklearn.neighbors import KNeighborsClassifier  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _report import machine_note, median_time, write_section  # noqa: E402

from widefs.datasets import load_dataset  # noqa: E402
from widefs.search import (  # noqa: E402
    Criterion,
    GeneticSelector,
    KNNEvaluator,
    SequentialSelector,
)

K = 3


def colon():
    X, y = load_dataset("colon", return_X_y=True)
    return X / np.abs(X).max(axis=0), y


def synthetic(n=62, p=2000, seed=0):
    """Two classes, 10 weakly informative columns among noise (continuous: no ties)."""
    rng = np.random.default_rng(seed)
    y = np.repeat(["a", "b"], [n // 2, n - n // 2])
    X = rng.normal(size=(n, p))
    X[:, :10] += 0.8 * (y == "b")[:, None]
    return X / np.abs(X).max(axis=0), y


def n_candidates(p, steps):
    """Subsets scored by ``steps`` forward (or backward) steps starting from p candidates."""
    return sum(p - s for s in range(steps))


def ours_sequential(X, y, n_features, direction="forward"):
    sel = SequentialSelector(direction, n_features=n_features, evaluator=KNNEvaluator(K))
    return sel.fit(X, y)


def sklearn_sfs(X, y, n_features, direction="forward"):
    sel = SequentialFeatureSelector(
        KNeighborsClassifier(K), n_features_to_select=n_features, direction=direction,
        cv=LeaveOneOut(),
    )  # fmt: skip
    return np.flatnonzero(sel.fit(X, y).get_support())


def mlxtend_sfs(X, y, n_features, forward=True):
    from mlxtend.feature_selection import SequentialFeatureSelector as MlxSFS

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sel = MlxSFS(
            KNeighborsClassifier(K), k_features=n_features, forward=forward, floating=False,
            scoring="accuracy", cv=LeaveOneOut(), n_jobs=1,
        ).fit(X, y)  # fmt: skip
    return np.array(sorted(sel.k_feature_idx_))


def fmt_s(t):
    return f"{t:.3g} s" if t < 100 else f"{t:,.0f} s ({t / 60:.0f} min)"


def forward_rows(name, X, y, p_small, repeat, run_mlxtend):
    steps = 10
    t_ours, sel = median_time(lambda: ours_sequential(X, y, steps), repeat)
    ours_full = np.flatnonzero(sel.support_)
    Xs = X[:, :p_small]
    t_ours_small, sel_small = median_time(lambda: ours_sequential(Xs, y, steps), repeat)
    ours_small = np.flatnonzero(sel_small.support_)
    cand_full, cand_small = n_candidates(X.shape[1], steps), n_candidates(p_small, steps)
    rows, answers = [], {}
    t_sk, sk = median_time(lambda: sklearn_sfs(Xs, y, steps), 1)
    answers["scikit-learn"] = sk
    rows.append(("scikit-learn", t_sk, t_sk * cand_full / cand_small))
    if run_mlxtend:
        t_ml, ml = median_time(lambda: mlxtend_sfs(Xs, y, steps), 1)
        answers["mlxtend"] = ml
        rows.append(("mlxtend", t_ml, t_ml * cand_full / cand_small))
    same = {peer: bool(np.array_equal(ans, ours_small)) for peer, ans in answers.items()}
    print(f"[forward {name}] widefs {X.shape}: {t_ours:.3f} s, features {ours_full.tolist()}")
    print(
        f"[forward {name}] widefs first {p_small} columns: {t_ours_small:.4f} s {ours_small.tolist()}"
    )
    for peer, t_small, t_extra in rows:
        print(
            f"[forward {name}] {peer} first {p_small} columns: {t_small:.1f} s, same features: "
            f"{same[peer]}; extrapolated to {X.shape[1]}: {t_extra:.0f} s "
            f"= {t_extra / t_ours:,.0f}x widefs"
        )
    return {
        "name": name,
        "shape": X.shape,
        "t_ours": t_ours,
        "t_ours_small": t_ours_small,
        "p_small": p_small,
        "rows": rows,
        "same": same,
        "features": ours_full.tolist(),
        "cand": (cand_small, cand_full),
    }


def first_step_check(X, y, repeat):
    """scikit-learn's first forward step on all columns: direct check of the extrapolation."""
    t_ours, sel = median_time(lambda: ours_sequential(X, y, 1), repeat)
    t_sk, sk = median_time(lambda: sklearn_sfs(X, y, 1), 1)
    same = bool(np.array_equal(sk, np.flatnonzero(sel.support_)))
    print(f"[first step] widefs {t_ours:.4f} s; scikit-learn {t_sk:.1f} s; same feature: {same}")
    return t_ours, t_sk, same


def backward_rows(X, y, p_small, target, repeat):
    Xs = X[:, :p_small]
    t_ours, sel = median_time(lambda: ours_sequential(Xs, y, target, "backward"), repeat)
    ours = np.flatnonzero(sel.support_)
    t_sk, sk = median_time(lambda: sklearn_sfs(Xs, y, target, "backward"), 1)
    rev = Xs[:, ::-1]
    t_ml, ml_rev = median_time(lambda: mlxtend_sfs(rev, y, target, forward=False), 1)
    ml = np.sort(p_small - 1 - ml_rev)
    out = {
        "t_ours": t_ours,
        "rows": [("scikit-learn", t_sk), ("mlxtend", t_ml)],
        "same": {
            "scikit-learn": bool(np.array_equal(sk, ours)),
            "mlxtend": bool(np.array_equal(ml, ours)),
        },
        "features": ours.tolist(),
        "cand": n_candidates(p_small, p_small - target),
        "p_back": p_small,
    }
    print(f"[backward] widefs {t_ours:.4f} s {ours.tolist()}; sklearn {t_sk:.1f} s {sk.tolist()}; "
          f"mlxtend {t_ml:.1f} s {ml.tolist()}")  # fmt: skip
    return out


def initial_population(rng, size, n_features, fractions):
    """The GA's initial population (Soares 2010): equal parts of about ``fractions`` of the
    features, drawn as ``GeneticSelector`` draws them."""
    pop = np.zeros((size, n_features), dtype=bool)
    for i in range(size):
        frac = fractions[i * len(fractions) // size]
        pop[
            i,
            rng.choice(
                n_features, min(n_features, max(1, round(frac * n_features))), replace=False
            ),
        ] = True
    return pop


def genetic_generation(X, y, repeat, n_generations):
    codes = np.unique(y, return_inverse=True)[1]
    pop = initial_population(np.random.RandomState(0), 40, X.shape[1], (0.1, 0.2, 0.4, 0.6, 0.8))
    crit = Criterion(codes)
    ev = KNNEvaluator(K).leave_one_out(X, codes, n_classes=2)
    t_ours, ours = median_time(lambda: crit.score(ev.predict_masks(pop)), repeat)

    def peer():
        return np.array(
            [
                cross_val_score(KNeighborsClassifier(K), X[:, m], y, cv=LeaveOneOut()).mean()
                for m in pop
            ]
        )

    t_sk, sk = median_time(peer, 1)
    same = bool(np.array_equal(ours, sk))

    def run_ga():
        return GeneticSelector(
            population_size=40,
            n_generations=n_generations,
            elitism=0.9,
            evaluator=KNNEvaluator(K),
            random_state=0,
        ).fit(X, y)

    t_ga, ga = median_time(run_ga, repeat)
    per_gen = t_ga / (n_generations + 1)
    new_per_gen = ga.n_evaluations_ / (n_generations + 1)
    # A scikit-learn GA that also skips subsets it has scored before pays its per-subset
    # cost (measured above on subsets of the same sizes) for the same new subsets.
    peer_per_gen = new_per_gen * t_sk / len(pop)
    print(f"[GA] 40 subsets: widefs {t_ours:.3f} s, sklearn {t_sk:.1f} s, same fitness {same}; "
          f"full GA {t_ga:.2f} s = {per_gen:.4f} s/generation, {ga.n_evaluations_} evaluations; "
          f"peer {peer_per_gen:.2f} s/generation = {peer_per_gen / per_gen:,.0f}x")  # fmt: skip
    return {
        "t_ours": t_ours,
        "t_sk": t_sk,
        "same": same,
        "t_ga": t_ga,
        "per_gen": per_gen,
        "peer_per_gen": peer_per_gen,
        "new_per_gen": new_per_gen,
        "n_eval": ga.n_evaluations_,
        "n_generations": n_generations,
        "n_columns": X.shape[1],
        "sizes": (int(pop.sum(1).min()), int(pop.sum(1).max())),
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small peer problems, no report")
    parser.add_argument(
        "--write", action="store_true", help="with --quick: store the small run on the page"
    )
    args = parser.parse_args(argv)
    repeat = 1 if args.quick else 3
    p_small = 14 if args.quick else 40
    datasets = {"synthetic": synthetic(), "colon": colon()}
    # Warm up the compiled kernels so that compilation is not timed (in --quick every
    # widefs workload is timed once: after a kernel's source changes, numba's on-disk cache
    # is stale and the first GA fit would time the compilation of its distance update).
    small = synthetic(20, 30)
    ours_sequential(*small, 2)
    ours_sequential(*small, 28, "backward")
    GeneticSelector(
        population_size=6, n_generations=1, random_state=0, evaluator=KNNEvaluator(K)
    ).fit(*small)
    fwd = [forward_rows(n, X, y, p_small, repeat, True) for n, (X, y) in datasets.items()]
    if args.quick:
        back = backward_rows(*datasets["colon"], 14, 10, repeat)
        gen = genetic_generation(datasets["colon"][0][:, :200], datasets["colon"][1], 1, 2)
        if not args.write:
            return 0
        first = None
    else:
        first = first_step_check(*datasets["colon"], repeat)
        back = backward_rows(*datasets["colon"], 30, 10, repeat)
        gen = genetic_generation(*datasets["colon"], repeat, 40)
    ratios = [t_extra / f["t_ours"] for f in fwd for _, _, t_extra in f["rows"]]
    ratios += [t / back["t_ours"] for _, t in back["rows"]]
    ratios += [gen["peer_per_gen"] / gen["per_gen"], gen["t_sk"] / gen["t_ours"]]
    same = all(all(f["same"].values()) for f in fwd) and all(back["same"].values())
    headline = (
        "wrapper searches with leave-one-out 3-NN pick "
        + ("the same features as" if same and gen["same"] else "NOT always the features of")
        + f" scikit-learn and mlxtend {min(ratios):,.0f}x to {max(ratios):,.0f}x faster"
        + (" (small run)" if first is None else "")
    )
    write_section("search", report(fwd, first, back, gen), headline=headline)
    return 0


def report(fwd, first, back, gen):
    quick = first is None  # the small run (--quick --write)
    command = "bench_search.py --quick --write" if quick else "bench_search.py"
    p_small, p_back = fwd[0]["p_small"], back["p_back"]
    n_cols = gen["n_columns"]
    lines = [
        "## Wrapper search (leave-one-out 3-NN): `widefs.search` vs scikit-learn and mlxtend",
        "",
        f"Command: `OMP_NUM_THREADS=1 nice python benchmarks/{command}` (single thread).",
        machine_note(),
        "",
    ]
    if quick:
        lines += [
            "The small run: the full one refits the peers' classifiers for about two hours of "
            f"one idle core, more than a shared machine gives; here the peers search the first "
            f"{p_small} columns, the backward search starts from {p_back} columns, the genetic "
            f"algorithm runs {gen['n_generations']} generations on the first {n_cols} genes, and "
            "the extrapolation check is not run. Other jobs ran on the machine (load above), "
            "which slows the long peer runs more than the short widefs ones: the ratios are "
            "not those of an idle machine; the answers (same features, same fitness) are.",
            "",
        ]
    lines += [
        "### Forward selection of 10 features, 62 x 2000",
        "",
        "widefs runs the full problem. scikit-learn `SequentialFeatureSelector("
        "KNeighborsClassifier(3), cv=LeaveOneOut())` and mlxtend's equivalent refit one "
        "classifier per candidate and left-out example, so they ran the same search on the "
        f"first {p_small} columns and their 2000-column time is extrapolated by the "
        f'candidate count ({fwd[0]["cand"][0]} -> {fwd[0]["cand"][1]:,}); "same" compares '
        "the features chosen on the small problem.",
        "",
        f"| data | widefs, 2000 columns | widefs, first {p_small} | peer | peer, first {p_small} "
        "| same features | "
        "peer, 2000 columns (extrapolated) | ratio |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for f in fwd:
        for peer, t_small, t_extra in f["rows"]:
            lines.append(
                f"| {f['name']} | {fmt_s(f['t_ours'])} | {fmt_s(f['t_ours_small'])} | {peer} | "
                f"{fmt_s(t_small)} | {'yes' if f['same'][peer] else 'NO'} | {fmt_s(t_extra)} | "
                f"{t_extra / f['t_ours']:,.0f}x |"
            )
    if first is not None:
        t_ours1, t_sk1, same1 = first
        per_eval_direct = t_sk1 / 2000
        small = next(r for r in fwd[1]["rows"] if r[0] == "scikit-learn")
        per_eval_small = small[1] / fwd[1]["cand"][0]
        lines += [
            "",
            f"Extrapolation check (colon): scikit-learn's first forward step on all 2000 columns "
            f"took {fmt_s(t_sk1)} ({1000 * per_eval_direct:.1f} ms per candidate; the "
            f"{p_small}-column run gave {1000 * per_eval_small:.1f} ms per candidate); widefs "
            f"{fmt_s(t_ours1)} for the same step ({t_sk1 / t_ours1:,.0f}x); same first feature: "
            f"{'yes' if same1 else 'NO'}.",
        ]
    lines += [
        "",
        f"### Backward selection, colon first {p_back} columns down to 10",
        "",
        f"{back['cand']} candidate subsets x 62 folds, all three run in full. mlxtend is given the "
        "columns in reverse order so that its tie rule (highest index first) coincides with "
        "widefs' and scikit-learn's (lowest index first).",
        "",
        "| widefs | peer | peer time | same features | ratio |",
        "|---|---|---|---|---|",
    ]
    for peer, t in back["rows"]:
        lines.append(
            f"| {fmt_s(back['t_ours'])} | {peer} | {fmt_s(t)} | "
            f"{'yes' if back['same'][peer] else 'NO'} | {t / back['t_ours']:,.0f}x |"
        )
    lines += [
        "",
        f"### Genetic algorithm on colon (population 40, {gen['n_generations']} generations, "
        "elitism 0.9: the dissertation's colon setting"
        + (")" if n_cols == 2000 else f", on the first {n_cols} genes)"),
        "",
        f"Per generation: a full `GeneticSelector` run took {fmt_s(gen['t_ga'])}, i.e. "
        f"{fmt_s(gen['per_gen'])} per generation, scoring {gen['new_per_gen']:.1f} new subsets "
        "per generation on average (subsets met before are cached). The peer is charged its "
        "measured cost per subset for the same new subsets.",
        "",
        "| widefs per generation | scikit-learn per generation | ratio |",
        "|---|---|---|",
        f"| {fmt_s(gen['per_gen'])} | {fmt_s(gen['peer_per_gen'])} | "
        f"{gen['peer_per_gen'] / gen['per_gen']:,.0f}x |",
        "",
        f"From scratch: fitness of 40 distinct random subsets of {gen['sizes'][0]}-"
        f"{gen['sizes'][1]} of the {n_cols} features, widefs "
        "`KNNLeaveOneOut.predict_masks` vs `cross_val_score(KNeighborsClassifier(3), "
        "X[:, subset], y, cv=LeaveOneOut())` per subset; widefs computes every distance matrix "
        "in full here, so the gap is smaller.",
        "",
        "| widefs | scikit-learn loop | same 40 fitness values | ratio |",
        "|---|---|---|---|",
        f"| {fmt_s(gen['t_ours'])} | {fmt_s(gen['t_sk'])} | {'yes' if gen['same'] else 'NO'} | "
        f"{gen['t_sk'] / gen['t_ours']:,.0f}x |",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
