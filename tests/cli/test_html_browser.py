"""The HTML report renders offline in a real headless browser (Chromium), and hostile column
names stay text there."""

import os
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from widefs.cli import main

CHROMIUM = (
    shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
)
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--virtual-time-budget=5000",
]
# Appended to a copy of the report: records how many images decoded, and the layout size.
PROBE = """<script>
window.addEventListener('load', () => {
  const imgs = Array.from(document.images);
  const ok = imgs.filter(i => i.complete && i.naturalWidth > 100).length;
  document.body.setAttribute('data-probe', `images=${imgs.length} decoded=${ok} tables=${document.querySelectorAll('table').length} height=${document.body.scrollHeight}`);
});
</script>"""


needs_chromium = pytest.mark.skipif(
    CHROMIUM is None, reason="chromium is not installed (.ci/run installs it with apt-get)"
)
CSP = re.compile(r'<meta http-equiv="Content-Security-Policy"[^>]*>')


def probed_dom(html, tmp_path, probe=PROBE):
    """The DOM after load of ``html`` with ``probe`` appended (its script-blocking CSP removed)."""
    assert CSP.search(html)
    page = tmp_path / "probe.html"
    page.write_text(CSP.sub("", html).replace("</body>", probe + "</body>"), encoding="utf-8")
    return subprocess.run(
        [CHROMIUM, *FLAGS, f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom", page.as_uri()],
        capture_output=True,
        text=True,
        timeout=120,
    ).stdout


def screenshot_sections(html_path, shots_dir, tmp_path, prefix):
    """One PNG per report section (the others hidden), 1100 px wide as on a laptop.

    ``WIDEFS_SCREENSHOTS=DIR`` keeps them in DIR to look at (the test checks decode/size).
    """
    html = html_path.read_text(encoding="utf-8")
    n = html.count("<section>")
    shots = []
    for i in range(n):
        style = (
            "<style>section,nav,h1,h1+p{display:none}"
            f"section:nth-of-type({i + 1}){{display:block}}</style></head>"
        )
        page = tmp_path / f"{prefix}-section{i}.html"
        page.write_text(html.replace("</head>", style, 1), encoding="utf-8")
        shot = shots_dir / f"{prefix}-section{i}.png"
        subprocess.run(
            [
                CHROMIUM,
                *FLAGS,
                f"--user-data-dir={tmp_path / 'profile'}",
                f"--screenshot={shot}",
                "--hide-scrollbars",
                "--window-size=1100,1800",
                page.as_uri(),
            ],
            capture_output=True,
            timeout=120,
        )
        shots.append(shot)
    return shots


def check_png(path, min_bytes=10_000):
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", path
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    assert (width, height) == (1100, 1800), (path, width, height)
    assert len(data) > min_bytes, path  # a blank page compresses to a few kB


@needs_chromium
def test_report_renders_in_headless_chromium(tmp_path):
    out = tmp_path / "report"
    assert main(["run", "colon", "--permutations", "5", "--out", str(out)]) == 0
    html = (out / "report.html").read_text()
    dom = probed_dom(html, tmp_path)
    profile = tmp_path / "profile"
    match = re.search(r'data-probe="images=(\d+) decoded=(\d+) tables=(\d+) height=(\d+)"', dom)
    assert match, dom[-2000:]
    images, decoded, tables, height = map(int, match.groups())
    n_png = len(list(out.glob("*.png")))
    assert images == decoded == n_png >= 3  # every embedded figure decodes without files beside it
    assert tables >= 5 and height > 2000
    shot = tmp_path / "shot.png"
    subprocess.run(
        [
            CHROMIUM,
            *FLAGS,
            f"--user-data-dir={profile}",
            f"--screenshot={shot}",
            "--window-size=1200,1600",
            (out / "report.html").as_uri(),
        ],
        capture_output=True,
        timeout=120,
    )
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20_000
    shots_dir = Path(os.environ.get("WIDEFS_SCREENSHOTS", tmp_path))
    shots_dir.mkdir(parents=True, exist_ok=True)
    shots = screenshot_sections(out / "report.html", shots_dir, tmp_path, "colon")
    assert len(shots) >= 9  # dataset, reading guide, chance, selection, LOO, SCM, CN2, CEFS, ...
    for shot in shots:
        check_png(shot)


@needs_chromium
def test_five_class_report_sections_in_chromium(tmp_path):
    """A 5-class report (SCMs as decision lists) renders every section."""
    rng = np.random.default_rng(5)
    n, p = 50, 120
    frame = pd.DataFrame(rng.normal(size=(n, p)), columns=[f"gene{j}" for j in range(p)])
    labels = np.array([f"type {c}" for c in "ABCDE"])[np.arange(n) % 5]
    for k in range(5):
        frame.loc[labels == f"type {'ABCDE'[k]}", f"gene{k}"] += 3.0
    frame["class"] = labels
    frame.to_csv(tmp_path / "five.csv", index=False)
    out = tmp_path / "five"
    assert main(["run", str(tmp_path / "five.csv"), "--quick", "--out", str(out)]) == 0
    shots_dir = Path(os.environ.get("WIDEFS_SCREENSHOTS", tmp_path))
    shots_dir.mkdir(parents=True, exist_ok=True)
    shots = screenshot_sections(out / "report.html", shots_dir, tmp_path, "five")
    assert len(shots) >= 8
    for shot in shots:
        check_png(shot)


HOSTILE_PROBE = """<script>
window.addEventListener('load', () => {
  const all = Array.from(document.querySelectorAll('*'));
  const handlers = all.filter(e => Array.from(e.attributes).some(a => a.name.startsWith('on'))).length;
  const links = Array.from(document.links).filter(a => !/^#s[0-9]+$/.test(a.getAttribute('href'))).length;
  document.body.setAttribute('data-probe', `title=${document.title} handlers=${handlers} links=${links} scripts=${document.scripts.length}`);
});
</script>"""


@needs_chromium
def test_hostile_names_stay_text_in_chromium(tmp_path):
    """Names that would run script if they became markup: the page's own probe sees none."""
    payload = "document.title='PWNED'"
    names = [
        f'<img src=x onerror="{payload}">',
        f'[x](#" autofocus onfocus="{payload}")',
        f"[t](javascript:{payload})",
        f"<script>{payload}</script>",
        f'<svg onload="{payload}">',
    ]
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(rng.normal(size=(20, len(names))), columns=names)
    frame["class"] = ["a", "b"] * 10
    frame.loc[frame["class"] == "a", names] += 2.0
    frame.to_csv(tmp_path / "hostile.csv", index=False)
    out = tmp_path / "out"
    assert (
        main(["run", str(tmp_path / "hostile.csv"), "--methods", "chance", "--out", str(out)]) == 0
    )
    dom = probed_dom((out / "report.html").read_text(), tmp_path, HOSTILE_PROBE)
    match = re.search(r'data-probe="title=([^"]*) handlers=(\d+) links=(\d+) scripts=(\d+)"', dom)
    assert match, dom[-2000:]
    title, handlers, links, scripts = match.groups()
    assert title == "widefs report: hostile.csv"
    assert (handlers, links, scripts) == ("0", "0", "1")  # the probe is the only script
    for name in names:  # shown as text
        assert name.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;") in dom
