"""The class-difference screen on huge zarr stores: memory per feature, read floor, Dask.

1. Memory per feature: ``ClassDifferenceScreen()`` on 100 x 2,000,000 and 100 x 16,000,000
   (``--sizes``) float32 zarr stores (50 mean-shifted and 50 variance-changed true features), each fit in
   a fresh process; the slope of the peak resident size between the two sizes is the memory
   the fit keeps per feature (the fixed costs cancel; both sizes are above the one from
   which the fits wait in a temporary file, ``widefs._utils._spill``). Beside it the read
   floor: decoding every chunk of the store once, nothing else.
2. Presence/absence: 100 x ``--binary`` uint8 features (0/1, carrier frequencies 0.05-0.5)
   with 300 true features (carried by 5% of class 0 and 65% of class 1) in a zarr store;
   the default screen on one machine and on a ``distributed.LocalCluster`` of 2
   single-threaded worker processes reading ``da.from_zarr``: time, CPU, peak, FDP, power,
   and whether the two runs' p-values are identical (SHA-256 of ``pvalues_``).
3. The same for 100 x ``--float`` float32 features (the generator of 1.).
4. Bit-packed presence/absence: a uint8 store of 100 x ``--packed`` features (the generator
   of 2.) and the same bits packed along the samples (13 rows of uint8), the screen on each
   (``widefs.utils.PackedBits`` for the packed one): identical p-values, bytes on disk.

A size of 0 skips its part; ``--keep f32`` (or ``bin``) does not run that huge store and
keeps its rows of the stored section, marked as such; ``--keep packed`` keeps the stored
lines of part 4.

Stores are written under ``--data`` (default ``/tmp/widefs-huge``) and kept for re-runs
(``--clean`` deletes each after its runs). Writes the section ``screen_huge`` of
``docs/results/benchmarks_scale.md``.

Usage::

    nice -n 10 python benchmarks/bench_screen_huge.py [--binary 100000000] [--float 20000000]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _report import machine_note, write_section
from bench_screen_scale import make_zarr

N_SAMPLES = 100
BLOCK = 65_536
N_BINARY_TRUE = 300
CHILD = Path(__file__).resolve().parent / "_huge_child.py"
MB = 2**20
RERUN = False
STORED_ONLY = False


def make_binary(path: Path, n_features: int) -> float:
    """100 x n_features 0/1 uint8; the first N_BINARY_TRUE carried more often in class 1."""
    import zarr

    if path.exists():
        return 0.0
    t0 = time.perf_counter()
    rng = np.random.default_rng(2)
    y1 = (np.arange(N_SAMPLES) >= N_SAMPLES // 2)[:, None]
    z = zarr.create_array(
        store=str(path), shape=(N_SAMPLES, n_features), chunks=(N_SAMPLES, BLOCK), dtype="u1"
    )
    for start in range(0, n_features, BLOCK):
        stop = min(start + BLOCK, n_features)
        level = rng.integers(13, 128, stop - start, dtype=np.uint8)  # frequency 0.05-0.5
        block = rng.integers(0, 256, (N_SAMPLES, stop - start), dtype=np.uint8) < level
        if start == 0:
            u = rng.integers(0, 256, (N_SAMPLES, N_BINARY_TRUE), dtype=np.uint8)
            block[:, :N_BINARY_TRUE] = u < np.where(y1, 166, 13)  # 0.65 vs 0.05
        z[:, start:stop] = block.view(np.uint8)
    return time.perf_counter() - t0


def make_packed(source: Path, path: Path) -> None:
    """The uint8 0/1 store ``source`` packed in bits along the samples, chunk by chunk."""
    import zarr

    if path.exists():
        return
    z = zarr.open_array(str(source), mode="r")
    n, m = z.shape
    width = z.chunks[1]
    out = zarr.create_array(
        store=str(path), shape=(-(-n // 8), m), chunks=(-(-n // 8), width), dtype="u1"
    )
    out.attrs["n_samples"] = n
    for start in range(0, m, width):
        out[:, start : start + width] = np.packbits(z[:, start : start + width], axis=0)


def disk_bytes(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def packed(data: Path, n_features: int) -> dict:
    """The screen on a uint8 store and on its bits packed: same p-values, bytes on disk."""
    u8, bits = data / f"bin_{n_features}.zarr", data / f"bits_{n_features}.zarr"
    if not STORED_ONLY:
        make_binary(u8, n_features)
        make_packed(u8, bits)
    one = quality(child(u8, "screen"), N_BINARY_TRUE, False)
    pk = quality(child(bits, "packed"), N_BINARY_TRUE, False)
    if one is None or pk is None:
        return None
    return {
        "uint8": one,
        "packed": pk,
        "same": one["sha256"] == pk["sha256"],
        "disk": [disk_bytes(u8), disk_bytes(bits)],
        "read": [child(u8, "read"), child(bits, "read")],
    }


def child(path: Path, mode: str, workers: int = 2, variant: str = "", env=None) -> dict:
    """One run in a fresh process; its result is kept beside the store
    (``<store>.<mode>[.<variant>].json``) and reused by the next invocation (``--rerun``:
    not reused). ``env``: extra environment variables of the run."""
    cache = path.with_name(f"{path.name}.{mode}{'.' + variant if variant else ''}.json")
    if cache.exists() and not RERUN:
        return json.loads(cache.read_text())
    if STORED_ONLY:
        return None
    out = subprocess.run(
        [sys.executable, str(CHILD), str(path), mode, str(workers)],
        check=True,
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
    )
    result = json.loads(out.stdout.strip().splitlines()[-1])
    cache.write_text(json.dumps(result))
    print(
        path.name, mode, variant, {k: v for k, v in result.items() if k != "selected"}, flush=True
    )
    return result


def quality(result: dict, n_true: int, mean_var: bool) -> dict:
    if result is None:
        return None
    result = dict(result)
    if "selected" not in result:  # a run stored without its selection
        return result
    selected = np.asarray(result.pop("selected"), dtype=np.int64)
    true = selected < n_true
    result["fdp"] = float((~true).sum() / max(selected.size, 1))
    result["power"] = float(true.sum() / n_true)
    if mean_var:
        result["power_mean"] = float((selected < 50).sum() / 50)
        result["power_var"] = float(((selected >= 50) & (selected < 100)).sum() / 50)
    result["n_selected"] = int(selected.size)
    return result


#: Variants of the memory-per-feature runs: environment of the child process.
VARIANTS = {
    "MALLOC_ARENA_MAX=1": {"MALLOC_ARENA_MAX": "1"},
    "zarr decode threads 1": {"ZARR_THREADS": "1"},
}


def slope(data: Path, before: str | None, sizes=(2_000_000, 16_000_000)) -> dict:
    runs, variants = {}, {}
    for n in sizes:
        path = data / f"f32_{n}.zarr"
        if not STORED_ONLY:
            make_zarr(path, n, 50, 50)
        runs[n] = {"read": child(path, "read"), "screen": quality(child(path, "screen"), 100, True)}
    envs = dict(VARIANTS)
    if before:
        envs["the widefs given by `--before`"] = {"PYTHONPATH": before}
    for name, env in envs.items():
        tag = "before" if "--before" in name else name.split()[0].split("=")[0].lower()
        peaks = [child(data / f"f32_{n}.zarr", "screen", variant=tag, env=env) for n in sizes]
        if None in peaks:  # --stored-only, not stored
            continue
        variants[name] = {
            "peaks": [r["peak"] for r in peaks],
            "cpu": [r["cpu"] for r in peaks],
            "same": all(r["sha256"] == runs[n]["screen"]["sha256"] for r, n in zip(peaks, sizes)),
        }
    a, b = (runs[n]["screen"] for n in sizes)
    return {
        "sizes": list(sizes),
        "runs": runs,
        "variants": variants,
        "bytes_per_feature": (b["peak"] - a["peak"]) / (sizes[1] - sizes[0]),
    }


def huge(path: Path, n_true: int, mean_var: bool) -> dict:
    one = quality(child(path, "screen"), n_true, mean_var)
    read = child(path, "read")
    dask = quality(child(path, "dask", 2), n_true, mean_var)
    same = one is not None and dask is not None and one["sha256"] == dask["sha256"]
    if one is not None and "fdp" not in one and same:  # the same p-values: the same selection
        one.update({k: v for k, v in dask.items() if k in ("fdp", "n_selected")})
        one.update({k: v for k, v in dask.items() if k.startswith("power")})
    return {"screen": one, "read": read, "dask": dask, "same": same}


def _row(label: str, r: dict | None, read: dict | None) -> str:
    if r is None:
        return f"| {label} | not run | | | | | | | |"
    cpu = r["cpu"] + r.get("worker_cpu", 0.0)
    ratio = f"{cpu / read['cpu']:.1f}x" if read else "-"
    quality = (
        f"{r['n_selected']} | {r['fdp']:.3f} | {r['power']:.2f}" if "fdp" in r else "- | - | -"
    )
    if r.get("code"):  # a run stored with the code it ran (an earlier commit)
        label += f" ({r['code']})"
    return (
        f"| {label} | {r['wall']:.0f} | {cpu:.0f} | {ratio} | {r['peak'] / MB:,.0f} | "
        f"{(r['peak'] - r['base']) / MB:,.0f} | {quality} |"
    )


def n_of(label: str) -> int:
    """The number of features in a store's label ("100 x 20,000,000 float32")."""
    return int(label.split()[2].replace(",", ""))


def _stored_blocks() -> list[dict]:
    from _report import ROOT

    try:
        stored = json.loads((ROOT / "docs/results/benchmarks/screen_huge.json").read_text())
    except (OSError, ValueError):
        return []
    return stored.get("blocks", [])


def stored_rows(label: str) -> list[list[str]]:
    """The rows of the stored section's huge-store table for ``label`` (not re-run)."""
    rows = []
    for block in _stored_blocks():
        for row in block.get("table", {}).get("rows", []):
            if row and row[0] == label:
                rows.append(row)
    return rows


def stored_sentences(label: str) -> list[str]:
    """The stored section's sentences about ``label``'s runs (not re-run)."""
    return [b["text"] for b in _stored_blocks() if b.get("text", "").startswith(label + ":")]


def stored_packed_lines() -> list[str]:
    """The stored section's lines of the bit-packed runs (not re-run)."""
    from _report import render_section

    blocks = _stored_blocks()
    starts = [i for i, b in enumerate(blocks) if b.get("text", "").startswith("Bit-packed")]
    if not starts:
        return []
    kept = render_section({"title": "", "blocks": blocks[starts[0] :]})
    return ["", *kept.split("\n")[2:]]  # without the empty title line and its gap


def packed_lines(pk: dict | None, n: int) -> list[str]:
    if pk == "stored":
        return stored_packed_lines()
    if pk is None:
        return []
    u8, bits = pk["uint8"], pk["packed"]
    return (
        [
            "",
            f"Bit-packed presence/absence, 100 x {n:,} features (the generator of the uint8 store "
            "above): the same 0/1 values in a uint8 store and packed along the samples (13 rows of "
            "uint8, `numpy.packbits(X, axis=0)`, read through `widefs.utils.PackedBits`), "
            "`ClassDifferenceScreen()` on each in a fresh process:",
            "",
            "| store | bytes on disk | read floor CPU s | screen wall s | screen CPU s | peak MB | "
            "p-values (SHA-256, first 12) |",
            "|---|---|---|---|---|---|---|",
        ]
        + [
            f"| {name} | {disk / MB:,.0f} MB | {rd['cpu']:.1f} | {r['wall']:.0f} | {r['cpu']:.1f} | "
            f"{r['peak'] / MB:,.0f} | `{r['sha256'][:12]}` |"
            for name, disk, rd, r in zip(
                ("uint8 0/1", "packed bits"), pk["disk"], pk["read"], (u8, bits), strict=True
            )
        ]
        + ["", f"Identical p-values: **{pk['same']}**."]
    )


def section(args, sl: dict, big: dict, pk: dict | None = None) -> str:
    lines = [
        "## The class-difference screen on huge stores: memory per feature, Dask",
        "",
        f"Command: `nice -n 10 python benchmarks/bench_screen_huge.py --binary {args.binary} "
        f"--float {args.float} --packed {args.packed}"
        + (f" --keep {' '.join(args.keep)}" if args.keep else "")
        + (
            f" --sizes {args.sizes[0]} {args.sizes[1]}"
            if args.sizes != [2_000_000, 16_000_000]
            else ""
        )
        + (" --before EARLIER/src" if args.before else "")
        + "`. "
        f"{machine_note()} Runs are stored beside the stores and reused by the next "
        "invocation.",
        "",
        "`ClassDifferenceScreen()` (default parameters) on zarr stores of 100 samples (classes "
        "50/50, chunks of 100 x 65,536), each run in a fresh process after a warm-up fit that "
        "loads its compiled kernels. The read floor decodes every chunk once and does nothing "
        "else; CPU of a Dask run includes its workers'.",
        "",
        "Memory per feature (target: about 16 bytes, the p-values), the slope of the peak "
        "resident size between two float32 stores, so that fixed costs cancel:",
        "",
        "| features | read floor CPU s (wall) | screen wall s | screen CPU s | CPU / read floor | "
        "peak MB | p-values (SHA-256, first 12) |",
        "|---|---|---|---|---|---|---|",
    ]
    sizes = sl["sizes"]
    a, b = (sl["runs"][n]["screen"] for n in sizes)
    for n in sizes:
        r = sl["runs"][n]
        rd = r["read"]
        s = r["screen"]
        lines.append(
            f"| {n:,} | {rd['cpu']:.1f} ({rd['wall']:.1f}) | {s['wall']:.1f} | {s['cpu']:.1f} | "
            f"{s['cpu'] / rd['cpu']:.1f}x | {s['peak'] / MB:,.0f} | `{s['sha256'][:12]}` |"
        )
    lines += [
        "",
        f"Slope: **{sl['bytes_per_feature']:.0f} bytes per feature** (target about 16; "
        "in memory the p-values, 8; the other fitted arrays in a temporary file). "
        "The same runs with other settings (same p-values: SHA-256 equal):",
        "",
        f"| setting | peak MB at {sizes[0]:,} / {sizes[1]:,} | bytes per feature | CPU s | "
        "same p-values |",
        "|---|---|---|---|---|",
        f"| this code, defaults | {a['peak'] / MB:,.0f} / {b['peak'] / MB:,.0f} | "
        f"{sl['bytes_per_feature']:.0f} | {a['cpu']:.1f} / {b['cpu']:.1f} | - |",
    ]
    for name, v in sl["variants"].items():
        lo, hi = v["peaks"]
        lines.append(
            f"| {name} | {lo / MB:,.0f} / {hi / MB:,.0f} | "
            f"{(hi - lo) / (sizes[1] - sizes[0]):.0f} | {v['cpu'][0]:.1f} / {v['cpu'][1]:.1f} | "
            f"{v['same']} |"
        )
    lines += [
        "",
        "Huge stores, one process and a `distributed.LocalCluster(n_workers=2, "
        "threads_per_worker=1, processes=True)` reading `da.from_zarr` (the fit itself runs "
        "in the client; the workers read and decode the chunks; peak memory is the client's). "
        "The uint8 store holds 300 true features (carried by 5% of class 0 and 65% of class "
        "1), the float32 store 50 mean-shifted (1.5 SD) and 50 variance-changed (SDs 1 vs "
        "2.5) ones; FDP and power at q = 0.05 on that truth:",
        "",
        "| store | run | wall s | CPU s | CPU / read floor | peak MB | extra peak MB | "
        "selected | FDP | power |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, runs in big.items():
        if runs is None:  # not run here: the stored rows, marked
            for row in stored_rows(name):
                run = row[1].replace(" (stored, earlier code)", "")
                run += "" if "earlier code" in run else " (stored, earlier code)"
                lines.append("| " + " | ".join([row[0], run, *row[2:]]) + " |")
            continue
        lines.append(_row(f"{name} | one process", runs["screen"], runs["read"]))
        lines.append(_row(f"{name} | Dask, 2 workers", runs["dask"], runs["read"]))
    lines.append("")
    for name in (k for k, v in big.items() if v is None):
        lines += stored_sentences(name)  # from the same stored runs as their rows
    big = {k: v for k, v in big.items() if v is not None}
    for name, runs in big.items():
        read = runs["read"]
        floor = (
            f"read floor {read['cpu']:.0f} s CPU, {read['wall']:.0f} s wall"
            if read
            else "read floor not run"
        )
        same = (
            f"p-values of the Dask run identical to the one-process run: **{runs['same']}**"
            if runs["screen"] and runs["dask"]
            else "the Dask run and the one-process run were not both run"
        )
        per = (
            f"; extra peak {(runs['screen']['peak'] - runs['screen']['base']) / n_of(name):.0f} "
            "bytes per feature (fixed costs included)"
            if runs["screen"]
            else ""
        )
        lines.append(f"{name}: {same}; {floor}{per}.")
    lines += packed_lines(pk, args.packed)
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", type=int, default=100_000_000)
    parser.add_argument("--float", type=int, default=20_000_000)
    parser.add_argument("--packed", type=int, default=10_000_000)
    parser.add_argument(
        "--keep",
        nargs="*",
        default=[],
        choices=["f32", "bin", "packed"],
        help="huge stores not run: keep their rows of the stored section",
    )
    parser.add_argument(
        "--sizes", type=int, nargs=2, default=[2_000_000, 16_000_000], help="of the slope"
    )
    parser.add_argument("--data", type=Path, default=Path("/tmp/widefs-huge"))
    parser.add_argument("--clean", action="store_true", help="delete each store after its runs")
    parser.add_argument("--json", type=Path, help="also write the raw results here")
    parser.add_argument("--before", help="PYTHONPATH of an earlier widefs for the slope")
    parser.add_argument(
        "--stored-only", action="store_true", help="render the stored runs only, run nothing"
    )
    parser.add_argument("--rerun", action="store_true", help="do not reuse stored runs")
    args = parser.parse_args(argv)
    global RERUN, STORED_ONLY
    RERUN, STORED_ONLY = args.rerun, args.stored_only
    args.data.mkdir(parents=True, exist_ok=True)
    sl = slope(args.data, args.before, tuple(args.sizes))
    big = {}
    for label, n, kind in (
        (f"100 x {args.float:,} float32", args.float, "f32"),
        (f"100 x {args.binary:,} uint8 0/1", args.binary, "bin"),
    ):
        if n <= 0:
            continue
        if kind in args.keep:
            big[label] = None
            continue
        path = args.data / f"{kind}_{n}.zarr"
        if kind == "bin":
            if not STORED_ONLY:
                print("written in", make_binary(path, n), flush=True)
            big[label] = huge(path, N_BINARY_TRUE, False)
        else:
            if not STORED_ONLY:
                make_zarr(path, n, 50, 50)
            big[label] = huge(path, 100, True)
        if args.clean:
            shutil.rmtree(path)
    pk = None
    if "packed" in args.keep:
        pk = "stored"
    elif args.packed > 0:
        pk = packed(args.data, args.packed)
    if args.json:
        args.json.write_text(json.dumps({"slope": sl, "big": big, "packed": pk}, default=str))
    text = section(args, sl, big, pk)
    print(text)
    write_section("screen_huge", text, headline=None)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
