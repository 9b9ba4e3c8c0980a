"""Smoke test of an installed widefs wheel, run by .ci/run from outside the checkout.

Fails when widefs imports from anywhere but the environment's site-packages, when a bundled
dataset file is missing from the wheel or differs from the manifest's sha256, when the
provenance table is missing, or when the console script does not answer.
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

    script = Path(sys.executable).with_name("widefs")
    version = subprocess.run(
        [str(script), "--version"], capture_output=True, text=True, check=True
    ).stdout.strip()
    if version != f"widefs {widefs.__version__}":
        raise SystemExit(f"widefs --version printed {version!r}")
    print(f"widefs {widefs.__version__} from {where.parent}: {len(rows)} dataset files verified")
    return 0


if __name__ == "__main__":
    sys.exit(main())
