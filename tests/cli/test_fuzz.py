"""Fuzz ``widefs run`` with generated CSV files: a report or one line, never a traceback.

Names (markup, HTML, mathtext, control characters, any unicode), labels (including "NA" and
empty ones), shapes (no rows, one column, a handful of samples) and values (NaN, inf, 1e307,
subnormals, constants, text) are drawn by hypothesis; every run goes through ``main()`` and
must end with status 0 and a report, or status 2 and exactly one line on stderr, and must
leave the input file as it was, even when ``--out`` is the input's own directory.

The CI run is short (``--methods chance``, a few examples). A thorough local run::

    WIDEFS_FUZZ_EXAMPLES=400 WIDEFS_FUZZ_METHODS=chance,scm,rules,cefs,compare \\
        python -m pytest tests/cli/test_fuzz.py
"""

import csv
import hashlib
import io
import os
import tempfile
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

from hypothesis import HealthCheck, Phase, event, given, settings
from hypothesis import strategies as st

from widefs.cli import main
from widefs.cli._report import OUTPUT_FILES

from .hostile import HOSTILE_NAMES

EXAMPLES = int(os.environ.get("WIDEFS_FUZZ_EXAMPLES", "10"))
METHODS = os.environ.get("WIDEFS_FUZZ_METHODS", "chance")

FILE_NAMES = ["data.csv", "data.tsv", "features.csv", "report.md", "x.png", "n [a] $b$ <c>.csv"]
TARGETS = ["class", "label", "<b>[/bold]</b>", "$y$"]
LABELS = ["a", "b", "c", "NA", "", " ", "[/bold]", "$x$", "<b>x</b>", "1", "1.0", "nan", "?"]
SPECIAL_VALUES = ["nan", "inf", "-inf", "1e307", "-1e307", "1e151", "5e-324", "0", "NA", "x", ""]

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


def write(path, header, rows):
    buf = io.StringIO()
    writer = csv.writer(buf, delimiter="\t" if path.suffix == ".tsv" else ",", lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    path.write_text(buf.getvalue(), encoding="utf-8")


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
    extra=st.lists(st.sampled_from([["--impute"], ["--seed", "7"], ["--seed", "-5"]]), max_size=2),
)
def test_run_gives_a_report_or_one_line(table, file_name, out_beside_input, extra):
    header, rows, target = table
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        path = root / file_name
        write(path, header, rows)
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
        if clash and ["--seed", "-5"] not in extra:  # a bad argument is reported first
            assert status == 2 and "would overwrite the input file" in err
