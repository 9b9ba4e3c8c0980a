"""The page ``docs/results/fdr.md`` rendered from the stored results of ``bench_fdr.py``.

Pure functions from the stored data (``docs/results/fdr/``: ``cells.csv``, ``kinds.csv``,
``run.json``) to markdown: no number is computed here that is not a comparison of stored
numbers, so ``--render-only`` gives the same page as the run that stored them.
"""

from __future__ import annotations

import math

from _simulate_fdr import KINDS, REGIMES

QS = (0.05, 0.10)
DEFAULT, LIMMA, VOOM, FTEST = "widefs default", "limma", "limma-voom", "SelectFdr(f_classif)"
PAPER_A, PAPER_P = "paper protocol, analytic", "paper protocol, permutation"
METHODS = (DEFAULT, LIMMA, VOOM, FTEST, PAPER_A, PAPER_P)
NULL_METHODS = (DEFAULT, LIMMA, FTEST)
NULL_RATE, SPREAD_POWER, POWER_MARGIN = 1e-3, 0.3, 0.02


class Cells:
    """Stored rows looked up by (regime, method, q)."""

    def __init__(self, rows):
        self.rows = {(r["regime"], r["method"], r["q"]): r for r in rows}
        self.regimes = [g for g in REGIMES if any(k[0] == g.label for k in self.rows)]

    def get(self, regime, method, q):
        return self.rows.get((regime.label, method, q))

    def reference(self, regime):
        """The standard a mean-shift cell is held against: limma-voom on counts, else limma."""
        return VOOM if regime.kind == "rnaseq" else LIMMA


def _pm(value, se, digits=3):
    if value is None or math.isnan(value):
        return "-"
    return f"{value:.{digits}f}±{se:.{digits}f}"


def power_checks(cells: Cells) -> list[tuple]:
    """(regime, q, default's power, the reference's power) of every mean-shift cell."""
    out = []
    for regime in cells.regimes:
        if not regime.mean_shift:
            continue
        for q in QS:
            mine, ref = cells.get(regime, DEFAULT, q), cells.get(regime, cells.reference(regime), q)
            if mine and ref:
                out.append((regime, q, mine["power"], ref["power"]))
    return out


def fdr_checks(cells: Cells) -> list[tuple]:
    """(regime, q, FDR, SE) of the default in every cell."""
    return [
        (regime, q, row["fdr"], row["fdr_se"])
        for regime in cells.regimes
        for q in QS
        if (row := cells.get(regime, DEFAULT, q))
    ]


def kind_checks(kinds: list[dict]) -> list[dict]:
    return [r for r in kinds if r["method"] == DEFAULT]


def _kind_limit(r):
    return 2 * NULL_RATE + 2 * r["p001_se"]


def check_lines(cells: Cells, kinds: list[dict]) -> list[str]:
    """The acceptance checks, each a PASS/FAIL line naming the failing cells."""
    lines = []

    def add(ok, text, failing):
        tail = f" Failing: {'; '.join(failing)}." if failing else ""
        lines.append(f"- **{'PASS' if ok else 'FAIL'}** {text}{tail}")

    pc = power_checks(cells)
    bad = [c for c in pc if c[2] < c[3] - POWER_MARGIN]
    add(
        not bad,
        f"Power of the default >= the reference's - {POWER_MARGIN} in every mean-shift cell "
        f"(reference: limma-voom on counts, limma elsewhere): {len(pc) - len(bad)} of {len(pc)}.",
        [f"{r.label} q = {q:.2f}: {p:.3f} vs {ref:.3f} ({p - ref:+.3f})" for r, q, p, ref in bad],
    )
    spread = [(r, q, p) for r, q, p, _ in _spread_cells(cells) if r.classes[0] == 15]
    bad = [c for c in spread if c[2] < SPREAD_POWER]
    add(
        bool(spread) and not bad,
        f"Spread only at 15 per class, power >= {SPREAD_POWER}: "
        + ", ".join(f"q = {q:.2f}: {p:.3f}" for _, q, p in spread)
        + ".",
        [],
    )
    kc = kind_checks(kinds)
    bad = [r for r in kc if r["p001"] > _kind_limit(r)]
    worst = max(kc, key=lambda r: r["p001"] - _kind_limit(r)) if kc else None
    add(
        bool(kc) and not bad,
        f"Every kind's null rate of p <= 1e-3 <= 2e-3 + 2 SE: {len(kc) - len(bad)} of {len(kc)}"
        + (
            f" (closest to its limit: {worst['kind']}, {worst['regime']}, {worst['p001']:.2e})"
            if worst
            else ""
        )
        + ".",
        [f"{r['kind']}, {r['regime']}: {r['p001']:.2e} > {_kind_limit(r):.2e}" for r in bad],
    )
    fc = fdr_checks(cells)
    bad = [c for c in fc if c[2] > c[1] + 2 * c[3]]
    add(
        not bad,
        f"Realized FDR of the default <= q + 2 SE: {len(fc) - len(bad)} of {len(fc)} cells.",
        [f"{r.label} q = {q:.2f}: {f:.3f} > {q + 2 * s:.3f}" for r, q, f, s in bad],
    )
    return lines


def _spread_cells(cells):
    return [
        (r, q, cells.get(r, DEFAULT, q)["power"], None)
        for r in cells.regimes
        if r.group == "spread"
        for q in QS
        if cells.get(r, DEFAULT, q)
    ]


def verdict(cells: Cells, kinds: list[dict], checks: list[str]) -> list[str]:
    """At most five lines: where the default wins and loses against limma, from the tables."""
    lines = []
    pc = [c for c in power_checks(cells) if c[1] == 0.05]
    if pc:
        within = sum(p >= ref - POWER_MARGIN for _, _, p, ref in pc)
        lo = min(pc, key=lambda c: c[2] - c[3])
        hi = max(pc, key=lambda c: c[2] - c[3])
        lines.append(
            f"**Verdict.** Mean shifts (q = 0.05): power within {POWER_MARGIN} of limma "
            f"(limma-voom on counts) or above in {within} of {len(pc)} regimes; worst "
            f"{lo[0].label} ({lo[2]:.2f} vs {lo[3]:.2f}), best {hi[0].label} "
            f"({hi[2]:.2f} vs {hi[3]:.2f})."
        )
    spread = [c for c in _spread_cells(cells) if c[1] == 0.05]
    if spread:
        others = max(cells.get(r, m, 0.05)["power"] for r, *_ in spread for m in (LIMMA, FTEST))
        lines.append(
            "Spread only: "
            + ", ".join(f"{p:.2f} at {r.classes[0]}/class" for r, _, p, _ in spread)
            + f"; limma and the F-test <= {others:.3f}."
        )
    kc = kind_checks(kinds)
    if kc:
        worst = max(kc, key=lambda r: r["p001"])
        lim = max((r for r in kinds if r["method"] == LIMMA), key=lambda r: r["p001"])
        lines.append(
            f"Mixed nulls: highest rate of p <= 1e-3 {worst['p001']:.1e} ({worst['kind']}, "
            f"{worst['regime']}); limma's {lim['p001']:.1e} ({lim['kind']})."
        )
    passed = sum("**PASS**" in c for c in checks)
    lines.append(f"Acceptance checks: {passed} of {len(checks)} pass.")
    if not lines[0].startswith("**Verdict.**"):
        lines[0] = "**Verdict.** " + lines[0]
    return lines


def power_table(cells: Cells, q: float) -> list[str]:
    methods = [m for m in METHODS if any(k[1] == m for k in cells.rows)]
    lines = [
        f"### Power at q = {q:.2f}",
        "",
        "| regime | " + " | ".join(methods) + " |",
        "|---|" + "---|" * len(methods),
    ]
    for r in cells.regimes:
        if r.n_true == 0 and r.kind not in ("microarray", "rnaseq"):
            continue
        row = [_pm(*_get(cells, r, m, q, "power")) for m in methods]
        lines.append(f"| {r.label} | " + " | ".join(row) + " |")
    return [*lines, ""]


def fdr_table(cells: Cells) -> list[str]:
    methods = [m for m in METHODS if any(k[1] == m for k in cells.rows)]
    lines = [
        "### Realized FDR (q = 0.05 / q = 0.10)",
        "",
        "| regime | " + " | ".join(methods) + " |",
        "|---|" + "---|" * len(methods),
    ]
    for r in cells.regimes:
        row = []
        for m in methods:
            pair = [_get(cells, r, m, q, "fdr") for q in QS]
            row.append(" / ".join(_pm(v, s, 2) for v, s in pair) if pair[0][0] is not None else "-")
        lines.append(f"| {r.label} | " + " | ".join(row) + " |")
    return [*lines, ""]


def _get(cells, regime, method, q, what):
    row = cells.get(regime, method, q)
    return (row[what], row[what + "_se"]) if row else (None, None)


def kinds_table(kinds: list[dict]) -> list[str]:
    by = {(r["regime"], r["method"], r["kind"]): r for r in kinds}
    designs = list(dict.fromkeys(r["regime"] for r in kinds))
    lines = [
        "| design | kind | "
        + " | ".join(f"{m}: p <= 1e-3 | BH q = 0.05 / 0.10" for m in NULL_METHODS)
        + " |",
        "|---|---|" + "---|---|" * len(NULL_METHODS),
    ]
    for design in designs:
        for kind in KINDS:
            row = []
            for m in NULL_METHODS:
                r = by.get((design, m, kind))
                if r is None:
                    row += ["-", "-"]
                    continue
                row.append(f"{1e3 * r['p001']:.2f}±{1e3 * r['p001_se']:.2f}")
                row.append(f"{1e3 * r['bh05']:.2f} / {1e3 * r['bh10']:.2f}")
            lines.append(
                f"| {design.removeprefix('mixed null, ')} | {kind} | " + " | ".join(row) + " |"
            )
    return [*lines, ""]


def _regime_rows(regimes) -> list[str]:
    """One row per description: regimes that differ only in their class sizes share it."""
    labels: dict = {}
    for r in regimes:
        labels.setdefault(r.describe, []).append(r.label)
    return [f"| {'; '.join(names)} | {describe} |" for describe, names in labels.items()]


def _timing(seconds: dict) -> str:
    groups = {"microarray": "microarray-like", "rnaseq": "RNA-seq", "existing": "small regimes"}
    parts = []
    for g, name in groups.items():
        ts = [f"{m} {seconds[f'{g}|{m}']:.2f}" for m in METHODS if f"{g}|{m}" in seconds]
        if ts:
            parts.append(f"{name}: " + ", ".join(ts))
    return "; ".join(parts)


def fdr_section(fdr: dict) -> list[str]:
    cells = Cells(fdr["cells"])
    checks = check_lines(cells, fdr["kinds"])
    check_text = "; ".join(f"{k} {v:.1e}" for k, v in fdr["self_check"].items())
    return [
        *verdict(cells, fdr["kinds"], checks),
        "",
        f"Command: `{fdr['command']}`",
        "",
        fdr["machine"],
        "",
        f"{fdr['replicates']} replicates per regime (seeds 0..{fdr['replicates'] - 1}); every "
        "method sees the same data sets. **widefs default**: " + fdr["default"] + " (RNA-seq: "
        "given the raw counts). **limma**: inmoose's `lmFit` and `squeezeVar`, the moderated t "
        "of the class difference (two classes) or moderated F of all class differences (more) "
        "formed as `eBayes` forms them (inmoose 0.9's `eBayes` raises when the prior df is "
        "infinite); on log-CPM for counts. **limma-voom** (counts): voom's log-CPM and precision "
        "weights (statsmodels' lowess, span 0.5, as limma), a weighted fit, then the same "
        "moderation; no TMM factors (the simulated libraries differ only in depth). **SelectFdr(f_classif)**: "
        "scikit-learn's F-test (log-CPM for counts). **paper protocol**: validation errors of "
        "one-feature naive Bayes on stratified halves (5-fold in the cv=5 regime), binomial "
        f"p-values or per-feature permutation p-values ({fdr['permutations']} permutations). "
        "The other methods' p-values are adjusted by Benjamini-Hochberg; realized FDR = mean of V / max(R, 1); power = "
        "mean share of the true features selected; ± one Monte Carlo standard error.",
        "",
        f"Self-check of the limma path (one replicate each; inmoose against the moderated "
        f"statistics written from Smyth 2004, the voom fit against statsmodels' WLS): {check_text}.",
        "",
        "Median seconds per replicate and method (one core; the default fits once per q): "
        f"{_timing(fdr['seconds'])}.",
        "",
        "## Checks",
        "",
        *checks,
        "",
        "## Regimes",
        "",
        "| regime | data |",
        "|---|---|",
        *_regime_rows(cells.regimes),
        "",
        "## Power",
        "",
        *power_table(cells, 0.05),
        *power_table(cells, 0.10),
        "## Realized FDR",
        "",
        "Global nulls: the FDR is the chance of any rejection.",
        "",
        *fdr_table(cells),
        "## Each kind of feature under the mixed global nulls",
        "",
        "Per feature and replicate, in units of 1e-3: the rate of p <= 1e-3 (1 expected for a "
        "valid p-value) and the rate of selections at q = 0.05 / 0.10 (each method's "
        "Benjamini-Hochberg over the whole matrix; every selection is false). ± one standard error over replicates.",
        "",
        *kinds_table(fdr["kinds"]),
    ]


def chance_section(chance: dict) -> list[str]:
    lines = [
        "## Expected best chance errors on imbalanced pure noise",
        "",
        f"Command: `{chance['command']}`",
        "",
        "60 examples x 2000 Gaussian noise features. 'shown': `expected_min_errors_` of "
        '`DiscriminativeSelector()` with its defaults (the null `null="auto"` picks: the '
        "permutation null on imbalanced classes); 'analytic bound': Theorem 4.1 at the "
        "majority-class error rate; 'fresh data': the mean, over 30 new noise data sets of the "
        "same shape, of the best feature's validation errors (each with its own split).",
        "",
        "| classes | seed | null used | shown | analytic bound | fresh data (± SE) | within 0.5 |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in chance["chance"]:
        ok = "yes" if abs(r["shown"] - r["fresh"]) <= 0.5 else "NO"
        lines.append(
            f"| {'/'.join(map(str, r['classes']))} | {r['seed']} | {r['null']} | "
            f"{r['shown']:.2f} | {r['analytic']:.2f} | {r['fresh']:.2f} ± {r['fresh_se']:.2f} | {ok} |"
        )
    a, p = chance["kept"]["analytic"], chance["kept"]["permutation"]
    lines += [
        "",
        "## MGM is not an error-controlling threshold",
        "",
        f"On 30/30 pure noise (60 x 2000, {len(a)} data sets) `DiscriminativeSelector()` (MGM, "
        f"the analytic null on balanced classes) keeps {sum(a) / len(a):.0f} features on "
        f"average (range {min(a)}-{max(a)}); with the permutation null {sum(p) / len(p):.0f} "
        f"({min(p)}-{max(p)}). MGM sits halfway between the errors of one random feature and of "
        "the best of M random features: by design some noise features pass it. For a selection "
        'with a stated error rate use `"fdr"` or `"bonferroni"`.',
        "",
        "## E[X(1)]: analytic, permutation and relabelled refits against correlation",
        "",
        "Pure noise, 60 x 1000, blocks of 50 features with the given within-block correlation. "
        "'refits': the mean, over 30 relabellings (a random permutation of y, then a fresh "
        "stratified split), of the smallest validation error count of the selector refitted on "
        "the relabelled data; 'permutation': `expected_min_errors_` of the permutation null on "
        "the real labels; 'analytic': Theorem 4.1 with M = 1000 independent features.",
        "",
        "| classes | correlation | analytic | permutation | refits | permutation - refits "
        "(mean abs, max) | analytic - refits |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in chance["min_errors"]:
        lines.append(
            f"| {r['classes'][0]}/{r['classes'][1]} | {r['rho']:.2f} | {r['analytic']:.2f} | "
            f"{r['permutation']:.2f} | {r['empirical']:.2f} ± {r['empirical_se']:.2f} | "
            f"{r['perm_gap_mean']:.2f}, {r['perm_gap_max']:.2f} | {r['analytic_gap']:+.2f} |"
        )
    return [*lines, "", "![E[X(1)] against within-block correlation](fdr_min_errors.png)", ""]


def render(run: dict) -> str:
    """The whole page from the stored results."""
    lines = ["# False discovery rate and power of widefs's screens", ""]
    if "fdr" in run:
        lines += fdr_section(run["fdr"])
    if "chance" in run:
        lines += chance_section(run["chance"])
    return "\n".join(lines).rstrip() + "\n"
