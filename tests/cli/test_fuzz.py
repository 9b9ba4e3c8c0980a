"""Fuzz ``widefs run`` with generated CSV files: a report or one line, never a traceback.

Names (markup, HTML, mathtext, control characters, any unicode), labels (including "NA",
empty ones, ones with spaces or line breaks around them, numbers), shapes (no rows, one
column, a handful of samples) and values (NaN, inf, 1e307, subnormals, constants, text, the
missing-value spellings of R, Excel and SQL, decimal commas) are drawn by hypothesis, and so
is how the file is saved (delimiter, decimal mark, encoding, gzip, a GEO-like "!" preamble)
and whether the labels come from a file of their own; every run goes through ``main()`` and
must end with status 0 and a report, or status 2 and exactly one line on stderr, and must
leave the input files as they were, even when ``--out`` is the input's own directory.

The CI run is short (``--methods chance``, a few examples). A thorough local run::

    WIDEFS_FUZZ_EXAMPLES=400 WIDEFS_FUZZ_METHODS=chance,scm,rules,cefs,compare \\
        python -m pytest tests/cli/test_fuzz.py
"""

import csv
import gzip
import hashlib
import io
import os
import tempfile
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

from hypothesis import HealthCheck, Phase, event, given, settings
from hypothesis import strategies as st

from widefs.cli import main
from widefs.cli.render._report import OUTPUT_FILES

from .hostile import HOSTILE_NAMES

EXAMPLES = int(os.environ.get("WIDEFS_FUZZ_EXAMPLES", "10"))
METHODS = os.environ.get("WIDEFS_FUZZ_METHODS", "chance")

FILE_NAMES = ["data.csv", "data.tsv", "features.csv", "report.md", "x.png", "n [a] $b$ <c>.csv"]
TARGETS = ["class", "label", "<b>[/bold]</b>", "$y$"]
LABELS = ["a", "b", "c", "NA", "", " ", "[/bold]", "$x$", "<b>x</b>", "1", "1.0", "nan", "?"]
LABELS += ["a ", " b", "c\n", "x\ny", "2.5", "17"]
SPECIAL_VALUES = ["nan", "inf", "-inf", "1e307", "-1e307", "1e151", "5e-324", "0", "NA", "x", ""]
SPECIAL_VALUES += ["null", "NULL", "#N/A", "n/a", "None", " 1.5", "1,5", "-"]

names = st.one_of(
    st.sampled_from(HOSTILE_NAMES),
    st.text(st.characters(exclude_categories=["Cs"], exclude_characters="\x00"), max_size=10),
)
finite = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False).map(repr)


@st.composite
def tables(draw):
    """(header, rows, target): sometimes well-formed (to reach the analysis), sometimes not."""
    tidy = draw(st.booleans())
    n = draw(st.integers(4, 14) if tidy else st.integers(0, 8))
    p = draw(st.integers(1, 6) if tidy else st.integers(0, 4))
    target = draw(st.sampled_from(TARGETS))
    header = draw(st.lists(names, min_size=p, max_size=p))
    columns = []
    for _ in range(p):
        kind = draw(
            st.sampled_from(
                ["random", "constant", "special"] if not tidy else ["random"] * 4 + ["constant"]
            )
        )
        if kind == "constant":
            columns.append([draw(finite)] * n)
        elif kind == "special":
            columns.append(
                draw(st.lists(st.sampled_from(SPECIAL_VALUES) | finite, min_size=n, max_size=n))
            )
        else:
            columns.append(draw(st.lists(finite, min_size=n, max_size=n)))
    if tidy:
        classes = draw(
            st.lists(
                st.sampled_from(["a", "b", "c", "NA", "[/bold]", "<b>x</b>"]),
                min_size=2,
                max_size=3,
                unique=True,
            )
        )
        y = [classes[i % len(classes)] for i in range(n)]
        y = draw(st.permutations(y))
    else:
        y = draw(st.lists(st.sampled_from(LABELS), min_size=n, max_size=n))
    position = draw(st.integers(0, p))
    header.insert(position, target)
    rows = [
        [*col_row[:position], label, *col_row[position:]]
        for col_row, label in zip(zip(*columns, strict=True) if p else [()] * n, y, strict=True)
    ]
    return header, rows, target


# How a file is saved: (delimiter or None for the suffix's, decimal comma, encoding, gzip,
# a GEO series matrix's "!" preamble).
styles = st.tuples(
    st.sampled_from([None, ";", "\t", "|"]),
    st.booleans(),
    st.sampled_from(["utf-8", "utf-8-sig", "utf-16", "cp1252"]),
    st.booleans(),
    st.booleans(),
)


def write(path, header, rows, style=(None, False, "utf-8", False, False)):
    delim, decimal_comma, encoding, compress, preamble = style
    delim = delim or ("\t" if path.suffix == ".tsv" else ",")
    if decimal_comma and delim != ",":
        rows = [[c.replace(".", ",") if isinstance(c, str) else c for c in row] for row in rows]
    buf = io.StringIO()
    if preamble:
        buf.write('!Series_title\t"x"\n\n!Sample_title\t"a"\n')
    writer = csv.writer(buf, delimiter=delim, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    try:
        data = buf.getvalue().encode(encoding)
    except UnicodeEncodeError:
        data = buf.getvalue().encode("utf-8")
    path.write_bytes(gzip.compress(data) if compress else data)


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    derandomize=EXAMPLES <= 20,  # the CI run is the same every time
    # Long local runs report the first failure as found: shrinking a whole report run can take
    # longer than the run that found it.
    phases=tuple(Phase) if EXAMPLES <= 20 else (Phase.explicit, Phase.generate),
)
@given(
    table=tables(),
    file_name=st.sampled_from(FILE_NAMES),
    out_beside_input=st.booleans(),
    extra=st.lists(
        st.sampled_from(
            [
                ["--impute"],
                ["--seed", "7"],
                ["--seed", "-5"],
                ["--max-memory", "64K"],
                ["--max-memory", "1G"],
                ["--max-memory", "lots"],
            ]
        ),
        max_size=2,
    ),
    style=styles,
)
def test_run_gives_a_report_or_one_line(table, file_name, out_beside_input, extra, style):
    header, rows, target = table
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        path = root / file_name
        write(path, header, rows, style)
        before = hashlib.sha256(path.read_bytes()).hexdigest()
        out = root if out_beside_input else root / "out"
        argv = ["run", str(path), "--target", target, "--methods", METHODS, "--quick"]
        argv += [a for option in extra for a in option] + ["--out", str(out)]
        stdout, stderr = io.StringIO(), io.StringIO()
        with redirect_stdout(stdout), redirect_stderr(stderr):
            status = main(argv)  # an exception here is the traceback a user would see
        assert hashlib.sha256(path.read_bytes()).hexdigest() == before, "input modified"
        err = stderr.getvalue()
        event(f"exit {status}")  # pytest --hypothesis-show-statistics shows the mix
        if status == 2:
            assert err.startswith("widefs: error: ") and err.count("\n") == 1, err
            assert "Traceback" not in err
        else:
            assert status == 0, (status, err)
            assert (out / "report.html").is_file() and (out / "report.md").is_file()
        clash = out_beside_input and (file_name in OUTPUT_FILES or file_name.endswith(".png"))
        bad_option = ["--seed", "-5"] in extra or ["--max-memory", "lots"] in extra
        if clash and not bad_option:  # a bad argument is reported first
            assert status == 2 and "would overwrite the input file" in err


@st.composite
def labelled(draw):
    """(data frame text, labels file text): samples in rows or columns, ids perturbed."""
    n = draw(st.integers(4, 10))
    p = draw(st.integers(1, 5))
    ids = draw(
        st.lists(
            st.sampled_from(["GSM1", "GSM2", "s 3", "S3", "x", "", "[/b]", "4"])
            | st.text(max_size=6),
            min_size=n,
            max_size=n,
        )
    )
    values = [[draw(finite) for _ in range(p)] for _ in range(n)]
    genes = [f"g{j}" for j in range(p)]
    if draw(st.booleans()):  # genes in rows
        rows = [["ID_REF", *ids]] + [
            [g, *(values[i][j] for i in range(n))] for j, g in enumerate(genes)
        ]
    else:
        rows = [["id", *genes]] + [[ids[i], *values[i]] for i in range(n)]
    label_ids = draw(st.permutations(ids))
    label_ids = label_ids[: draw(st.integers(0, n))] + draw(
        st.lists(st.sampled_from([*ids, "GSM9"]), max_size=2)
    )
    labels = [draw(st.sampled_from(["a", "b", "a ", "NA", ""])) for _ in label_ids]
    header = draw(st.sampled_from([["sample", "class"], ["id", "group"], None]))
    label_rows = ([header] if header else []) + [
        list(r) for r in zip(label_ids, labels, strict=True)
    ]
    return rows, label_rows


def _text(rows, delim):
    buf = io.StringIO()
    csv.writer(buf, delimiter=delim, lineterminator="\n").writerows(rows)
    return buf.getvalue()


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=EXAMPLES <= 20,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    case=labelled(),
    delims=st.tuples(st.sampled_from([",", "\t"]), st.sampled_from([",", "\t", ";"])),
)
def test_labels_file_gives_a_report_or_one_line(case, delims):
    rows, label_rows = case
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "expr.txt").write_text(_text(rows, delims[0]), encoding="utf-8")
        (root / "samples.txt").write_text(_text(label_rows, delims[1]), encoding="utf-8")
        before = [
            hashlib.sha256((root / f).read_bytes()).hexdigest() for f in ("expr.txt", "samples.txt")
        ]
        argv = ["run", str(root / "expr.txt"), "--labels", str(root / "samples.txt")]
        argv += ["--methods", METHODS, "--quick", "--out", str(root)]
        stdout, stderr = io.StringIO(), io.StringIO()
        with redirect_stdout(stdout), redirect_stderr(stderr):
            status = main(argv)
        after = [
            hashlib.sha256((root / f).read_bytes()).hexdigest() for f in ("expr.txt", "samples.txt")
        ]
        assert after == before, "input modified"
        err = stderr.getvalue()
        event(f"exit {status}")
        if status == 2:
            assert err.startswith("widefs: error: ") and err.count("\n") == 1, err
        else:
            assert status == 0, (status, err)
            assert (root / "report.html").is_file()
