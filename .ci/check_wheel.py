"""Smoke test of an installed widefs wheel, run by .ci/run from outside the checkout.

Fails when widefs imports from anywhere but the environment's site-packages, when a bundled
dataset file is missing from the wheel or differs from the manifest's sha256, when the
provenance table is missing, when a paper reproduction or the paper numbers it reads are
missing, or when the console script does not answer.
"""

import csv
import hashlib
import io
import subprocess
import sys
import sysconfig
from importlib import resources
from pathlib import Path


def main() -> int:
    import widefs

    where = Path(widefs.__file__).resolve()
    site = Path(sysconfig.get_paths()["purelib"]).resolve()
    if site not in where.parents:
        raise SystemExit(f"widefs imported from {where}, not from {site}")

    package = resources.files("widefs.datasets")
    manifest = package.joinpath("data", "MANIFEST.tsv").read_text(encoding="utf-8")
    rows = list(csv.DictReader(io.StringIO(manifest), delimiter="\t"))
    for row in rows:
        data = package.joinpath("data", row["file"]).read_bytes()
        if hashlib.sha256(data).hexdigest() != row["sha256"]:
            raise SystemExit(f"{row['file']} differs from its manifest entry")
    if "| name |" not in package.joinpath("descr", "PROVENANCE.md").read_text(encoding="utf-8"):
        raise SystemExit("descr/PROVENANCE.md has no provenance table")

    from widefs.datasets import list_datasets, load_dataset

    if sorted(list_datasets().index) != sorted(row["name"] for row in rows):
        raise SystemExit("list_datasets() does not list the manifest's datasets")
    congress = load_dataset("congressional_voting")
    if congress.data.shape != (435, 16) or "congressional" not in congress.DESCR.lower():
        raise SystemExit("congressional_voting does not load with its description")
    for module in ("stats", "stumps", "univariate", "search", "ensemble", "scm", "rules"):
        __import__(f"widefs.{module}")

    from importlib.metadata import entry_points

    papers = {ep.name: ep for ep in entry_points(group="widefs.reproductions")}
    if len(papers) != 4:
        raise SystemExit(f"widefs.reproductions entry points: {sorted(papers)}")
    for name, ep in papers.items():
        ep.load()  # the reproduction's main
        if not resources.files("widefs_reproduce").joinpath("papers", f"{name}.json").is_file():
            raise SystemExit(f"widefs_reproduce/papers/{name}.json is missing from the wheel")

    script = Path(sys.executable).with_name("widefs")
    version = subprocess.run(
        [str(script), "--version"], capture_output=True, text=True, check=True
    ).stdout.strip()
    if version != f"widefs {widefs.__version__}":
        raise SystemExit(f"widefs --version printed {version!r}")
    help_text = subprocess.run(
        [str(script), "reproduce", "shah2010", "--help"], capture_output=True, text=True, check=True
    ).stdout
    if "--render-only" not in help_text:
        raise SystemExit("widefs reproduce shah2010 --help does not show the paper's options")
    print(
        f"widefs {widefs.__version__} from {where.parent}: {len(rows)} dataset files and "
        f"{len(papers)} reproductions verified"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
