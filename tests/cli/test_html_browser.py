"""The HTML report renders offline in a real headless browser (Chromium)."""

import re
import shutil
import subprocess

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


@pytest.mark.skipif(
    CHROMIUM is None, reason="chromium is not installed (.ci/run installs it with apt-get)"
)
def test_report_renders_in_headless_chromium(tmp_path):
    out = tmp_path / "report"
    assert main(["run", "colon", "--out", str(out)]) == 0
    html = (out / "report.html").read_text()
    probe_page = tmp_path / "probe.html"
    probe_page.write_text(html.replace("</body>", PROBE + "</body>"))
    profile = tmp_path / "profile"
    dom = subprocess.run(
        [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", "--dump-dom", probe_page.as_uri()],
        capture_output=True,
        text=True,
        timeout=120,
    ).stdout
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
