"""A real report on a file whose names, labels and file name are hostile: nothing becomes code.

The HTML is parsed with ``html.parser`` and every element and attribute is checked against the
few the report itself writes; report.md is rendered with GitHub's renderer and checked the
same way; the terminal output, the figures and features.csv show the names as written.
"""

import csv
import hashlib
import io
import re
from contextlib import redirect_stdout
from html.parser import HTMLParser

import cmarkgfm
import numpy as np
import pandas as pd
import pytest
from cmarkgfm.cmark import Options

from widefs.cli import main
from widefs.cli._markup import visible
from widefs.cli.render._chance import TOP_REPORT

from .hostile import HOSTILE_NAMES

TARGET = "<b>[/bold] $y$"
LABELS = ("[/bold] <i>x</i>", "NA")
FILE_NAME = "d$\\frac{$ [x](javascript:y) <b>.csv"

REPORT_TAGS = {
    "html", "head", "meta", "title", "style", "body", "h1", "h2", "p", "ul", "li", "nav", "a",
    "table", "caption", "thead", "tbody", "tr", "th", "td", "figure", "img", "figcaption", "pre",
    "code", "strong", "section", "details", "summary",
}  # fmt: skip
REPORT_ATTRS = {"lang", "charset", "http-equiv", "content", "href", "id", "alt", "src", "class"}


class Elements(HTMLParser):
    def __init__(self, text):
        super().__init__(convert_charrefs=True)
        self.elements, self.chunks = [], []
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))

    def handle_startendtag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.chunks.append(data)

    @property
    def text(self):
        return "".join(self.chunks)


def hostile_frame(n=24, seed=0):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(rng.normal(size=(n, len(HOSTILE_NAMES))), columns=HOSTILE_NAMES)
    y = np.array([LABELS[i % 2] for i in range(n)])
    frame[TARGET] = y
    # Every name carries some signal, so each reaches the rules, subsets and stability lists;
    # the first names (shown in the terminal's top rows) carry the most.
    frame.loc[y == LABELS[0], HOSTILE_NAMES] += np.linspace(3.0, 0.5, len(HOSTILE_NAMES))
    return frame


def assert_no_code_from_data(elements, *, anchors, images, tags=REPORT_TAGS):
    for tag, attrs in elements:
        assert tag in tags, tag
        assert set(attrs) <= REPORT_ATTRS, attrs
        for name, value in attrs.items():
            assert not name.startswith("on")
            assert "javascript:" not in (value or "").lower()
        if tag == "a":
            assert anchors(attrs), attrs
        if tag == "img":
            assert images(attrs["src"]), attrs


@pytest.fixture(scope="module")
def hostile_run(tmp_path_factory):
    root = tmp_path_factory.mktemp("hostile")
    path = root / FILE_NAME
    hostile_frame().to_csv(path, index=False)
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    out = root / "out"
    buf = io.StringIO()
    with redirect_stdout(buf), pytest.MonkeyPatch.context() as mp:
        mp.setenv("COLUMNS", "400")  # wide enough that rich wraps no cell
        status = main(["run", str(path), "--target", TARGET, "--quick", "--out", str(out)])
    assert status == 0
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before
    return out, buf.getvalue()


def test_html_has_no_element_or_attribute_from_data(hostile_run):
    out, _ = hostile_run
    page = Elements((out / "report.html").read_text(encoding="utf-8"))
    assert_no_code_from_data(
        page.elements,
        anchors=lambda a: set(a) == {"href"} and re.fullmatch(r"#s\d+", a["href"]),
        images=lambda src: src.startswith("data:image/png;base64,"),
    )
    n_sections = sum(tag == "h2" for tag, _ in page.elements)
    assert sum(tag == "a" for tag, _ in page.elements) == n_sections >= 6
    # The page forbids scripts outright, as a second line of defence.
    csp = [a for t, a in page.elements if t == "meta" and a.get("http-equiv")]
    assert csp and "default-src 'none'" in csp[0]["content"]
    # ... and shows every name, the labels and the file name as text.
    for text in [*HOSTILE_NAMES, *LABELS, FILE_NAME, TARGET]:
        assert visible(text) in page.text, text


def test_markdown_renders_names_as_text_on_github(hostile_run):
    out, _ = hostile_run
    pngs = {p.name for p in out.glob("*.png")}
    md = (out / "report.md").read_text(encoding="utf-8")
    page = Elements(cmarkgfm.github_flavored_markdown_to_html(md, options=Options.CMARK_OPT_UNSAFE))
    assert_no_code_from_data(
        page.elements,
        anchors=lambda a: False,
        images=lambda src: src in pngs,
        tags=REPORT_TAGS | {"blockquote"},  # the notes
    )
    # The markdown lists the top rows of the feature table (the HTML has them all, above):
    # every name it shows is text.
    ranked = [r["feature"] for r in csv.DictReader(io.StringIO((out / "features.csv").read_text()))]
    shown = [n for n in HOSTILE_NAMES if ("'" + n if n[0] in "=+-@" else n) in ranked[:TOP_REPORT]]
    assert len(shown) == TOP_REPORT < len(HOSTILE_NAMES)
    for text in [*shown, *LABELS, FILE_NAME]:
        assert visible(text) in page.text, text


def test_terminal_shows_names_as_written(hostile_run):
    _, terminal = hostile_run
    for text in ["IL6 [pg/ml]", "[/bold]", "[bold red]loud", ":thumbs_up: :smile:", "$x^2$"]:
        assert text in terminal
    assert "\x1b" not in terminal and "esc \\x1b[31mred" in terminal
    assert "\u202e" not in terminal and "bidi \\u202eevil" in terminal
    assert "Note: the label 'NA'" in terminal


def test_features_csv_keeps_names(hostile_run):
    out, _ = hostile_run
    rows = list(csv.DictReader(io.StringIO((out / "features.csv").read_text(encoding="utf-8"))))
    names = {r["feature"] for r in rows}
    assert names == {("'" + n if n[0] in "=+-@" else n) for n in HOSTILE_NAMES}
