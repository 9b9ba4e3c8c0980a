"""The page's tables: Tables 7-10, paired tests, hypotheses, subsets, members, variants."""

from __future__ import annotations

import numpy as np

from widefs.ensemble import subset_inclusiveness
from widefs_reproduce._paired import paired_tests
from widefs_reproduce.soares2010._data import (
    PAPER,
    PAPER_RUNS,
    PAPER_SIZES,
    TABLE,
    appendix_b_summary,
)
from widefs_reproduce.soares2010._runs import VARIANTS


def fmt_pm(values):
    values = np.asarray(values, dtype=float)
    sd = values.std(ddof=1) if values.size > 1 else 0.0
    return f"{values.mean():.2f} ± {sd:.2f}"


def accuracy_tables(results, n_splits):
    out = []
    for method, table in TABLE.items():
        rows = [(n, r) for (n, m), r in results.items() if m == method]
        if not rows:
            continue
        out += [
            f"### Table {table}: {method}",
            "",
            "| dataset | paper: no FS / trad. / CEFS | ours: no FS | ours: trad. FS | ours: CEFS | "
            "CEFS - trad. (ours) | splits CEFS >, =, < trad. | CPU time |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for name in list(PAPER[method]):
            paper = PAPER[method][name]
            paper_txt = " / ".join(f"{v:.2f}" for v in paper)
            hit = [r for n, r in rows if n == name]
            if not hit:
                why = "proprietary, unavailable" if "Alabama" in name else "not run"
                out.append(f"| {name} | {paper_txt} | {why} | | | | | |")
                continue
            r = hit[0]
            acc = 100 * np.array([x["acc"] for x in r["runs"]])
            diff = acc[:, 2] - acc[:, 1]
            n_win, n_loss = int((diff > 0).sum()), int((diff < 0).sum())
            wins = f"{n_win}, {(diff == 0).sum()}, {n_loss}"
            out.append(
                f"| {name} | {paper_txt} | {fmt_pm(acc[:, 0])} | {fmt_pm(acc[:, 1])} | "
                f"{fmt_pm(acc[:, 2])} | {diff.mean():+.2f} | {wins} | {r['time']:.0f} s |"
            )
        out.append("")
    return out


def inclusiveness_table(results):
    out = [
        "| dataset | method | overall size (App. B / ours) | class-specific sizes (App. B / ours) | "
        "union size (App. B / ours) | runs: union has features outside overall, part 3 (App. B / ours) | "
        "runs: overall has features outside union, part 4 (App. B / ours) |",
        "|---|---|---|---|---|---|---|",
    ]
    for (name, method), r in results.items():
        runs = r["runs"]
        n = len(runs)
        inc = [subset_inclusiveness(x["classes"], x["overall"]) for x in runs]
        ov = np.mean([len(x["overall"]) for x in runs])
        classes = list(runs[0]["classes"])
        cls = [np.mean([len(x["classes"][c]) for x in runs]) for c in classes]
        union = np.mean([len(i["union"]) for i in inc])
        p3 = sum(not i["overall_covers_union"] for i in inc)
        p4 = sum(not i["union_covers_overall"] for i in inc)
        paper = appendix_b_summary(name, method)
        ours_cls = ", ".join(f"{c}: {v:.1f}" for c, v in zip(classes, cls))
        if paper:
            pov, pcls, punion, pp3, pp4 = paper
            pcls_txt = ", ".join(f"{v:.1f}" for v in pcls)
            out.append(
                f"| {name} | {method} | {pov:.1f} / {ov:.1f} | {pcls_txt} / {ours_cls} | "
                f"{punion:.1f} / {union:.1f} | {pp3}/15 / {p3}/{n} | {pp4}/15 / {p4}/{n} |"
            )
        else:
            out.append(
                f"| {name} | {method} | n/a / {ov:.1f} | n/a / {ours_cls} | n/a / {union:.1f} | "
                f"n/a / {p3}/{n} | n/a / {p4}/{n} |"
            )
    return out


def members_table(results):
    out = [
        "| dataset | method | k overall (median) | k members (median) | test instances decided by "
        "members | CEFS acc. there | trad. acc. there | CEFS acc. on the rest (overall model) | "
        "splits with a recaller member |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for (name, method), r in results.items():
        runs = r["runs"]
        k_over = [x["k"][0] for x in runs if x["k"][0] is not None]
        k_mem = [k for x in runs for k in x["k"][1] if k is not None]
        kt = f"{np.median(k_over):.0f}" if k_over else "-"
        km = f"{np.median(k_mem):.0f}" if k_mem else "-"
        out.append(
            f"| {name} | {method} | {kt} | {km} | {100 * np.mean([x['decided'] for x in runs]):.1f}% | "
            f"{100 * np.nanmean([x['acc_decided'] for x in runs]):.1f} | "
            f"{100 * np.nanmean([x['trad_on_decided'] for x in runs]):.1f} | "
            f"{100 * np.nanmean([x['acc_fallback'] for x in runs]):.1f} | "
            f"{sum(bool(x['recallers']) for x in runs)}/{len(runs)} |"
        )
    return out


def table11(results):
    key = ("congressional voting", "kNN/SFS")
    if key not in results:
        return []
    r = results[key]
    run1 = r["runs"][0]
    names = r["names"]
    rows = [("Overall", run1["overall"]), *list(run1["classes"].items())]
    out = [
        "Our split 1 of voting, kNN/SFS, in the layout of the dissertation's Table 11 "
        "(paper, run 1: overall {4, 7, 12}, republican {4, 7}, democrat {4, 5, 11}; features "
        "numbered from 1):",
        "",
        "| subset | features (1-based) | names |",
        "|---|---|---|",
    ]
    for label, sub in rows:
        idx = sorted(sub)
        out.append(
            f"| {label} | {', '.join(str(i + 1) for i in idx)} | {', '.join(names[i] for i in idx)} |"
        )
    return out


def variants_table(results):
    out = [
        "| dataset | method | trad. FS | CEFS (the paper's design: recall members, unanimous) | recall members, "
        "specialist combiner | balanced members, unanimous | balanced members, specialist | "
        "splits with a recaller (recall / balanced members) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for (name, method), r in results.items():
        runs = r["runs"]
        acc = 100 * np.array([x["acc"] for x in runs])
        var = 100 * np.array([x["variants"] for x in runs])
        rec = sum(bool(x["recallers"]) for x in runs)
        bal = sum(bool(x["bal_recallers"]) for x in runs)
        out.append(
            f"| {name} | {method} | {acc[:, 1].mean():.2f} | {acc[:, 2].mean():.2f} | "
            f"{var[:, 0].mean():.2f} | {var[:, 1].mean():.2f} | {var[:, 2].mean():.2f} | "
            f"{rec} / {bal} of {len(runs)} |"
        )
    return out


def summary_counts(results):
    better = worse = equal = 0
    beat_nofs = 0
    for r in results.values():
        # Means compared as reported (two decimals of a percentage).
        acc = np.round(100 * np.array([x["acc"] for x in r["runs"]]).mean(0), 2)
        better += acc[2] > acc[1]
        worse += acc[2] < acc[1]
        equal += acc[2] == acc[1]
        beat_nofs += acc[2] > acc[0]
    return better, equal, worse, beat_nofs


def _fmt_p(p: float) -> str:
    return f"{p:.2g}" if p >= 0.001 else "<0.001"


def _pair_tests(r) -> dict:
    """Paired tests of CEFS against traditional selection over a pair's splits."""
    acc = 100 * np.array([x["acc"] for x in r["runs"]])
    return paired_tests(acc[:, 1], acc[:, 2], r["runs"][0]["n_train"], r["runs"][0]["n_test"])


def paired_summary_table(results):
    """CEFS - traditional per pair, ours beside the dissertation's Appendix A runs: the mean
    difference, wins / ties / losses and the two p-values a reader needs (the corrected
    resampled t-test, valid under overlapping training sets, and the exact Wilcoxon test)."""
    out = [
        "| dataset | method | ours: CEFS - trad. | W / T / L | corrected t p | Wilcoxon p "
        "| App. A: CEFS - trad. | W / T / L | corrected t p | Wilcoxon p |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, method in [(n, m) for m in TABLE for n in PAPER[m]]:
        r = results.get((name, method))
        cells = [name, method]
        cells += ["not run", "", "", ""] if r is None else _short_cells(_pair_tests(r))
        runs = PAPER_RUNS.get((name, method))
        if runs is None:
            cells += ["-"] * 4
        else:
            cells += _short_cells(paired_tests(runs[:, 1], runs[:, 2], *PAPER_SIZES[name]))
        out.append("| " + " | ".join(cells) + " |")
    return out


def _short_cells(t):
    return [
        f"{t['mean']:+.2f}",
        f"{t['wins']} / {t['ties']} / {t['losses']}",
        _fmt_p(t["corrected_p"]),
        _fmt_p(t["wilcoxon_p"]),
    ]


def significance_summary(results) -> str:
    """How many pairs each test calls significant (p < 0.05), ours and the dissertation's."""
    ours = [_pair_tests(r) for r in results.values()]
    theirs = [
        paired_tests(runs[:, 1], runs[:, 2], *PAPER_SIZES[name])
        for (name, _), runs in PAPER_RUNS.items()
    ]

    def count(tests, key):
        hits = [t for t in tests if t[key] < 0.05]
        gains = sum(t["mean"] > 0 for t in hits)
        return f"{len(hits)} ({gains} gains, {len(hits) - gains} losses)"

    parts = [
        f"{label}: ours {count(ours, key)} of {len(ours)}, the dissertation's "
        f"{count(theirs, key)} of {len(theirs)}"
        for label, key in (
            ("paired t", "t_p"),
            ("corrected t", "corrected_p"),
            ("exact Wilcoxon", "wilcoxon_p"),
        )
    ]
    smallest = (min(t["corrected_p"] for t in ours), min(t["corrected_p"] for t in theirs))
    return (
        "Pairs with p < 0.05, " + "; ".join(parts) + f". Smallest corrected-t p-value: ours "
        f"{smallest[0]:.2f}, the dissertation's {smallest[1]:.2f}."
    )


def dissertation_p_range():
    """Range of the two-tailed paired and two-sample t-test p-values over the dissertation's
    Appendix A pairs (its text: "p-values ranged from 0.04 to 0.91")."""
    from scipy import stats

    paired = [stats.ttest_rel(r[:, 2], r[:, 1]).pvalue for r in PAPER_RUNS.values()]
    unpaired = [stats.ttest_ind(r[:, 2], r[:, 1]).pvalue for r in PAPER_RUNS.values()]
    return (min(paired), max(paired)), (min(unpaired), max(unpaired))


def variant_counts(results):
    """Per variant: pairs where CEFS beats trad. (means to two decimals), the variant
    applied where it applies and the protocol's result elsewhere; and over applied pairs."""
    counts = {}
    for variant in ["protocol", *VARIANTS]:
        wins = applied = applied_wins = 0
        for r in results.values():
            acc = 100 * np.array([x["acc"] for x in r["runs"]])
            v = [x["variants_h"].get(variant) for x in r["runs"]]
            here = variant == "protocol" or v[0] is not None
            if variant != "protocol" and here:
                acc = 100 * np.array(v, dtype=float)
            means = np.round(acc.mean(0), 2)
            win = bool(means[2] > means[1])
            wins += win
            applied += here
            applied_wins += win and here
        counts[variant] = (wins, len(results), applied_wins, applied)
    return counts


def hypotheses_table(results):
    out = [
        "| dataset | method | variant | trad. FS | CEFS | CEFS - trad. | W / T / L "
        "| corrected t p | exact Wilcoxon p |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for (name, method), r in results.items():
        if method.startswith("NB"):
            continue
        rows = [("protocol", 100 * np.array([x["acc"] for x in r["runs"]]))]
        for variant in VARIANTS:
            v = [x["variants_h"].get(variant) for x in r["runs"]]
            if v[0] is not None:
                rows.append((variant, 100 * np.array(v, dtype=float)))
        for variant, acc in rows:
            t = paired_tests(acc[:, 1], acc[:, 2], r["runs"][0]["n_train"], r["runs"][0]["n_test"])
            out.append(
                f"| {name} | {method} | {variant} | {acc[:, 1].mean():.2f} | {acc[:, 2].mean():.2f} "
                f"| {t['mean']:+.2f} | {t['wins']} / {t['ties']} / {t['losses']} "
                f"| {_fmt_p(t['corrected_p'])} | {_fmt_p(t['wilcoxon_p'])} |"
            )
    return out
