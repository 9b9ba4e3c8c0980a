"""Data is never code: every renderer of ``widefs.cli._markup`` checked against real parsers.

The oracles are independent of the code under test: Python's ``html.parser`` for HTML,
GitHub's own markdown renderer (cmark-gfm, raw HTML let through so that an injection would
show) and markdown-it-py for markdown, rich's console for the terminal, matplotlib's text
layout for figures, and the ``csv`` module for CSV.
"""

import ast
import csv
import io
from html.parser import HTMLParser
from pathlib import Path

import cmarkgfm
import pytest
from cmarkgfm.cmark import Options
from markdown_it import MarkdownIt
from rich.console import Console

from widefs.cli._markup import (
    Markup,
    Span,
    csv_text,
    html_spans,
    markdown_code_block,
    markdown_spans,
    rich_spans,
    spans_of,
    visible,
)
from widefs.cli.render._report import Table, Text

from .hostile import HOSTILE_NAMES


class Parsed(HTMLParser):
    """Tags, attributes and text (entities decoded, comments dropped) of an HTML fragment."""

    def __init__(self, text):
        super().__init__(convert_charrefs=True)
        self.tags, self.attrs, self.chunks = [], [], []
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attrs += attrs

    def handle_data(self, data):
        self.chunks.append(data)

    @property
    def text(self):
        return "".join(self.chunks)


def github(markdown):
    return cmarkgfm.github_flavored_markdown_to_html(markdown, options=Options.CMARK_OPT_UNSAFE)


def commonmark(markdown):
    return MarkdownIt("commonmark").enable(["table", "strikethrough"]).render(markdown)


RENDERERS = [github, commonmark]


@pytest.mark.parametrize("name", HOSTILE_NAMES)
def test_html_shows_data_as_text(name):
    for spans in (spans_of(name), Markup("a **{x}** `{x}` b", x=name).inline()):
        parsed = Parsed(f"<p>{html_spans(spans)}</p>")
        assert set(parsed.tags) <= {"p", "strong", "code"} and not parsed.attrs
        assert visible(name) in parsed.text
    # Inside an attribute value too (figure alt text, quotes escaped).
    parsed = Parsed(f'<img alt="{html_spans(spans_of(name))}">')
    assert parsed.attrs == [("alt", visible(name))]


@pytest.mark.parametrize("render", RENDERERS)
@pytest.mark.parametrize("name", HOSTILE_NAMES)
def test_markdown_paragraph_renders_data_as_written(render, name):
    # A literal paragraph, a field inside bold, a field inside code: text out = text in.
    cases = [
        (spans_of(name), {"p"}),
        (Markup("**{x}** end", x=name).inline(), {"p", "strong"}),
        (Markup("code `{x}`", x=name).inline(), {"p", "code"}),
    ]
    for spans, tags in cases:
        parsed = Parsed(render(markdown_spans(spans)))
        assert set(parsed.tags) <= tags, (name, parsed.tags)
        assert parsed.text.strip() == "".join(s.text for s in spans).strip()


@pytest.mark.parametrize("render", RENDERERS)
def test_markdown_table_cells_render_as_written(render):
    table = Table(["name", "`code`"], [(n, Markup("`{x}`", x=n)) for n in HOSTILE_NAMES], "t [x]")
    parsed = Parsed(render(table.markdown()))
    assert set(parsed.tags) <= {"p", "strong", "table", "thead", "tbody", "tr", "th", "td", "code"}
    assert parsed.tags.count("tr") == len(HOSTILE_NAMES) + 1  # no row split or merged
    for name in HOSTILE_NAMES:
        assert parsed.text.count(visible(name)) >= 2


@pytest.mark.parametrize("render", RENDERERS)
def test_markdown_code_block_cannot_be_closed_by_data(render):
    text = "rule 1: ```\n<script>x</script>\n~~~\n````` end"
    parsed = Parsed(render(markdown_code_block(text)))
    assert parsed.tags == ["pre", "code"]
    assert parsed.text.strip() == text


def test_escaping_is_needed():
    # The oracles do see markup where text is not escaped: these tests can fail.
    raw = Parsed(github("[t](javascript:alert(1)) <img src=x onerror=alert(1)> me@example.org"))
    assert {"a", "img"} <= set(raw.tags)
    with pytest.raises(Exception, match="closing tag"):
        Console(file=io.StringIO()).print("[/bold]")


@pytest.mark.parametrize("name", HOSTILE_NAMES)
def test_terminal_prints_data_as_written(name):
    console = Console(file=io.StringIO(), width=300, record=True, color_system="truecolor")
    console.print(rich_spans(Markup("**{x}**|", x=name).inline()))
    console.print(Table(["h"], [(name,)], title=name).rich())
    shown = console.export_text()
    assert shown.count(visible(name)) >= 3  # the line, the title and the cell
    assert "\x1b" not in shown and "\u202e" not in shown


def test_visible_escapes_controls_and_bidi_only():
    assert visible("a\x1b[31m\u202e\nb\u00e9\u57fa") == "a\\x1b[31m\\u202e\\x0ab\u00e9\u57fa"
    assert visible("x\ny", keep_newlines=True) == "x\ny"


def test_markup_template_parsing():
    m = Markup(
        "First **bold {a}** and `code {b}`.\n\n- one {a}\n  continued\n- two",
        a="**x**",
        b="`y`",
    )
    assert m.blocks[0] == (
        "p",
        [
            Span("First "),
            Span("bold **x**", "strong"),
            Span(" and "),
            Span("code `y`", "code"),
            Span("."),
        ],
    )
    kind, items = m.blocks[1]
    assert kind == "ul" and [[s.text for s in i] for i in items] == [
        ["one **x** continued"],
        ["two"],
    ]
    assert Markup("{v:.2f}%", v=12.345).inline() == [Span("12.35%")]
    with pytest.raises(ValueError, match="unclosed strong"):
        Markup("**open")
    with pytest.raises(KeyError, match="no value"):
        Markup("{missing}")
    with pytest.raises(ValueError, match="single paragraph"):
        m.inline()


@pytest.mark.parametrize("render", RENDERERS)
def test_text_block_lists_and_paragraphs(render):
    block = Text(Markup("Intro {x}.\n\n- a {x}\n- b", x="<b>1. [y](z)</b>"))
    parsed = Parsed(render(block.markdown()))
    assert parsed.tags == ["p", "ul", "li", "li"]
    assert parsed.text.count("<b>1. [y](z)</b>") == 2
    html = Parsed(block.html())
    assert html.tags == ["p", "ul", "li", "li"] and html.text.count("<b>1. [y](z)</b>") == 2


def test_csv_round_trip_and_formula_defused():
    rows = [(n, 1.5, -2) for n in HOSTILE_NAMES] + [("-1.5e-3", "+3", "@x")]
    back = list(csv.reader(io.StringIO(csv_text(["a,b", "c"], rows))))
    assert back[0] == ["a,b", "c"]
    for name, row in zip(HOSTILE_NAMES, back[1:], strict=False):
        assert row[0] == ("'" + name if name.startswith(tuple("=+-@")) else name)
        assert row[1:] == ["1.5", "-2"]
    assert back[-1] == ["-1.5e-3", "+3", "'@x"]  # numbers stay numbers


def test_figure_text_is_literal():
    from matplotlib.figure import Figure

    from widefs.plotting import literal_text

    title = "$\\frac{$ [x](y) $x^2$"
    with literal_text():
        fig = Figure()
        ax = fig.add_subplot()
        ax.set_title(title)
        fig.savefig(io.BytesIO(), format="png")
    assert ax.get_title() == title
    # Outside the context the same title is mathtext and cannot be drawn.
    fig = Figure()
    fig.add_subplot().set_title(title)
    with pytest.raises(ValueError):
        fig.savefig(io.BytesIO(), format="png")


def _markup_calls(tree):
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Markup":
            yield node


def test_markup_templates_are_literals():
    """A template built from data (an f-string, ``+`` or ``.format``) would be parsed as markup."""
    cli = Path(__file__).parents[2] / "src" / "widefs" / "cli"
    n_calls = 0
    for path in sorted(cli.rglob("*.py")):
        for call in _markup_calls(ast.parse(path.read_text())):
            n_calls += 1
            first = call.args[0] if call.args else None
            assert isinstance(first, ast.Constant) and isinstance(first.value, str), (
                f"{path.name}:{call.lineno}: Markup template must be a string literal"
            )
    assert n_calls >= 8
