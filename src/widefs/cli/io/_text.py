"""Delimited text as people save it, found from the file's first bytes and lines.

Gzip is detected from the content; the encoding from a byte-order mark (UTF-8, UTF-16 as
Excel's "Unicode text" writes it) or, without one, UTF-8 with Windows-1252 when the bytes
are not UTF-8; the delimiter among comma, tab, semicolon and bar; decimal commas (``1,5``)
when the delimiter is not a comma; and the preamble of a GEO series matrix (lines starting
with ``!``), which is skipped. The header is read whole whatever its length (wide genotype
files have millions of columns), within the memory budget.
"""

from __future__ import annotations

import bz2
import codecs
import csv
import gzip
import io
import lzma
import re
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from widefs.cli.io._memory import Budget, check_fits, format_bytes
from widefs.cli.io._tables import first_line
from widefs.exceptions import DataError

__all__ = [
    "DELIMITERS",
    "TextHead",
    "compression",
    "count_lines",
    "data_lines",
    "open_binary",
    "open_text",
    "read_head",
    "sniff_delimiter",
]

DELIMITERS = (",", "\t", ";", "|")
DELIMITER_NAMES = {",": "comma", "\t": "tab", ";": "semicolon", "|": "bar"}
HEAD_ROWS = 20  # data rows read ahead to sniff the delimiter, the decimal mark, the first column
_CHUNK = 1 << 20
# Head lines are kept cut to this many characters once sniffed (the first cell is what is
# read from them later): twenty lines of a file of millions of columns take 80 MB.
_KEPT = 1 << 16
# A header line's text may take this fraction of the memory budget (its names take ~20x more).
_HEADER_SHARE = 24
_ERRORS = (OSError, EOFError, zlib.error, lzma.LZMAError, UnicodeDecodeError)
# Compressions read on the fly: ``compressed`` is one of these names (True means gzip).
_OPENERS = {"gzip": gzip.open, "bz2": bz2.open, "xz": lzma.open}


@dataclass
class TextHead:
    """What the first lines of a delimited file say about how to read the rest."""

    path: Path
    compressed: bool | str  # False, or the compression: "gzip" (also True), "bz2", "xz"
    encoding: str
    delim: str
    header: list[str]
    lines: list[str]  # the first data lines, as written (no line ends; cut to _KEPT once sniffed)
    preamble: int = 0  # lines before the header (a GEO series matrix's "!" and blank lines)
    skip: int = 1  # lines before the data: the preamble and the header
    decimal_comma: bool = False
    notes: list[str] = field(default_factory=list)

    def first_cell(self) -> str | None:
        """The first cell of the first data line (None without data lines)."""
        if not self.lines:
            return None
        line = self.lines[0]
        if '"' not in line:
            return line.split(self.delim, 1)[0]
        return next(csv.reader([line], delimiter=self.delim), [""])[0]

    @property
    def kind(self) -> str:
        """``"tab-separated text"`` and the like, for messages."""
        return f"{DELIMITER_NAMES[self.delim]}-separated text"


def _detect_encoding(head: bytes) -> tuple[str, str | None]:
    """The encoding of a file starting with ``head``, and a note when it is not UTF-8."""
    if head.startswith(codecs.BOM_UTF8):
        return "utf-8-sig", None
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return "utf-16", 'read as UTF-16 text (as Excel saves "Unicode text")'
    even, odd = head[0::2].count(0), head[1::2].count(0)
    if len(head) >= 4 and odd > len(head) // 4 and even == 0:
        return "utf-16-le", "read as UTF-16 text without a byte-order mark"
    if len(head) >= 4 and even > len(head) // 4 and odd == 0:
        return "utf-16-be", "read as UTF-16 text without a byte-order mark"
    if b"\x00" in head:
        raise DataError("holds NUL bytes: it is not a text table (a binary file?)")
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start < len(head) - 3:  # not just a character cut at the end of the sample
            return "cp1252", "not UTF-8: read as Windows-1252 (Latin-1) text"
    return "utf-8", None


def compression(compressed: bool | str) -> str | None:
    """The compression's name for pandas and :func:`open_binary` (None: not compressed)."""
    if not compressed:
        return None
    return "gzip" if compressed is True else str(compressed)


def open_binary(path: Path, compressed: bool | str):
    """The file's (decompressed) bytes."""
    name = compression(compressed)
    return open(path, "rb") if name is None else _OPENERS[name](path, "rb")


def open_text(path: Path, compressed: bool | str, encoding: str):
    """The file as text lines (line ends kept as written)."""
    name = compression(compressed)
    if name is not None:
        return _OPENERS[name](path, "rt", encoding=encoding, newline="", errors="strict")
    return open(path, encoding=encoding, newline="", errors="strict")


def _read_line(fh, budget: Budget, path: Path) -> str:
    """One line, however long, refused once its text would not fit in the budget."""
    cap = max(budget.limit // _HEADER_SHARE, 1 << 20)
    parts, size = [], 0
    while True:
        part = fh.readline(_CHUNK)
        parts.append(part)
        size += len(part)
        if not part or part.endswith("\n"):
            return "".join(parts)
        if size > cap:
            what = f"{path} (a line of more than {format_bytes(size)} of text)"
            check_fits(size * _HEADER_SHARE, budget, what)


def _split(line: str, delim: str) -> list[str]:
    line = line.rstrip("\r\n")
    if '"' not in line:
        return line.split(delim)
    return next(csv.reader([line], delimiter=delim), [])


def _header_line(fh, budget: Budget, path: Path) -> tuple[int, str, int]:
    """(lines before the header, the header, lines before the data) of an open text file."""
    preamble, line = 0, _read_line(fh, budget, path)
    # A GEO series matrix: lines of metadata (and blank ones between), then the table.
    while line.startswith("!") or (preamble and line and not line.strip()):
        preamble += 1
        line = _read_line(fh, budget, path)
    skip, parts, odd, size = preamble + 1, [line], line.count('"') % 2, len(line)
    # A quoted name holds a line break: the header goes on. Parity and size are kept as the
    # parts arrive (counting over the joined text would be quadratic in an unclosed quote).
    while odd and (more := _read_line(fh, budget, path)):
        parts.append(more)
        odd, size, skip = (odd + more.count('"')) % 2, size + len(more), skip + 1
        if size > max(budget.limit // _HEADER_SHARE, 1 << 20):  # an unclosed quote
            what = f"{path} (a header of more than {format_bytes(size)} of text)"
            check_fits(size * _HEADER_SHARE, budget, what)
    return preamble, "".join(parts), skip


def _head_lines(fh, budget: Budget, path: Path) -> list[str]:
    """The first :data:`HEAD_ROWS` data lines (no blank or "!" lines), line ends removed."""
    lines = []
    while len(lines) < HEAD_ROWS and (line := _read_line(fh, budget, path)):
        if line.strip("\r\n") and not line.startswith("!"):
            lines.append(line.rstrip("\r\n"))
    return lines


def read_head(path: Path, compressed: bool | str, budget: Budget) -> TextHead:
    """Read the header and the first data rows; raise :class:`DataError` naming a problem."""
    try:
        with open_binary(path, compressed) as fh:
            encoding, note = _detect_encoding(fh.read(4096))
        with open_text(path, compressed, encoding) as fh:
            preamble, header_line, skip = _header_line(fh, budget, path)
            lines = _head_lines(fh, budget, path)
    except DataError as exc:
        raise DataError(f"{path} {exc}" if str(exc).startswith("holds") else str(exc)) from None
    except _ERRORS as exc:
        raise DataError(f"cannot read {path}: {first_line(exc)}") from exc
    if not header_line.strip():
        raise DataError(f"{path} is empty (no header line)")
    suffix = _suffix(path)
    delim = sniff_delimiter("\n".join([header_line.rstrip("\r\n"), *lines, ""]), suffix)
    head = TextHead(path, compressed, encoding, delim, [], lines, preamble, skip)
    head.header = _parse_header(header_line, head)
    head.notes += [note] if note else []
    _note_reading(head, suffix)
    head.lines = [line[:_KEPT] for line in lines]
    return head


def _parse_header(line: str, head: TextHead) -> list[str]:
    try:
        header = _split(line, head.delim)
    except csv.Error as exc:
        raise DataError(f"cannot parse the header of {head.path} as {head.kind}: {exc}") from exc
    if header:
        header[0] = header[0].lstrip("\ufeff")
    return header


def _note_reading(head: TextHead, suffix: str) -> None:
    implied = {".csv": ",", ".tsv": "\t", ".tab": "\t"}.get(suffix)
    if head.delim != implied and (implied is not None or head.delim not in (",", "\t")):
        head.notes.append(f"read as {head.kind} (the delimiter was detected from the first lines)")
    if head.preamble:
        head.notes.append(
            f"skipped the {head.preamble} lines before the table (starting with '!': a GEO "
            "series matrix's description of the series and its samples)"
        )
    if head.delim != "," and _decimal_commas(head.lines, head.delim):
        head.decimal_comma = True
        head.notes.append("read with decimal commas (e.g. '1,5' is 1.5)")


def _decimal_commas(lines: list[str], delim: str) -> bool:
    """Whether cells are written like ``1,5`` and none like ``1.5`` (one regex per line)."""
    d = re.escape(delim)
    cell = r"(?:^|{d})\s*[-+]?\d*{mark}\d+(?:[eE][-+]?\d+)?\s*(?={d}|$)"
    comma, point = (re.compile(cell.format(d=d, mark=m)) for m in (",", r"\."))
    found = any(comma.search(line) for line in lines if "," in line)
    return found and not any(point.search(line) for line in lines)


def _suffix(path: Path) -> str:
    name = path.name.lower().removesuffix(".gz")
    return name[name.rfind(".") :] if "." in name else ""


def _widths(text: str, delim: str) -> list[int] | None:
    """Fields per line of ``text`` (complete lines only), or None when it does not parse."""
    if '"' not in text:
        return [line.count(delim) + 1 for line in text.splitlines() if line]
    try:
        return [len(r) for r in csv.reader(io.StringIO(text), delimiter=delim) if r]
    except csv.Error:
        return None


def sniff_delimiter(text: str, suffix: str = "") -> str:
    """The delimiter of delimited ``text`` (its first lines), preferring the one ``suffix`` implies.

    A candidate qualifies when it splits the header into at least two fields and every
    complete data row among the first ones into as many; the suffix's delimiter (tab for
    ``.tsv``/``.tab``, comma for ``.csv``) wins when it qualifies, otherwise the qualifying
    candidate with the most fields does. Nothing qualifies (one column): the suffix's one.

    Examples
    --------
    >>> sniff_delimiter("gene;class\\n1,5;a\\n2,5;b\\n", ".csv")
    ';'
    >>> sniff_delimiter("a\\tb\\n1\\t2\\n", ".txt")
    '\\t'
    """
    preferred = "\t" if suffix in (".tsv", ".tab") else ","
    lines = text.splitlines(keepends=True)[:7]
    complete = "".join(lines[:-1] if len(lines) > 1 and not lines[-1].endswith("\n") else lines)
    best, best_width = preferred, 1
    for delim in (preferred, *(d for d in DELIMITERS if d != preferred)):
        widths = _widths(complete, delim)
        if not widths or widths[0] < 2 or any(w != widths[0] for w in widths[1:]):
            continue
        if delim == preferred:
            return delim
        if widths[0] > best_width:
            best, best_width = delim, widths[0]
    return best


def count_lines(head: TextHead, need_per_line: int, budget: Budget, need_before: int = 0) -> int:
    """Lines in the file (an upper bound on its rows), refused once they would not fit.

    Reads the (decompressed) bytes in chunks, so memory stays flat whatever the file holds,
    and stops as soon as ``need_before + lines * need_per_line`` exceeds the budget.
    """
    lines = 0
    try:
        with open_binary(head.path, head.compressed) as fh:
            while chunk := fh.read(_CHUNK):
                lines += max(chunk.count(b"\n"), chunk.count(b"\r"))  # old Macs end lines in CR
                need = need_before + lines * need_per_line
                if need > budget.limit:
                    what = f"{head.path} ({len(head.header):,} columns, at least {lines:,} lines)"
                    check_fits(need, budget, what)
    except _ERRORS as exc:
        raise DataError(f"cannot read {head.path}: {first_line(exc)}") from exc
    return lines + 1


def data_lines(head: TextHead, cap: int) -> Iterator[tuple[int, str]]:
    """(line number, text without its line end) of each data line: no preamble, no blanks.

    A line longer than ``cap`` characters is refused rather than read into memory.
    """
    with open_text(head.path, head.compressed, head.encoding) as fh:
        number = 0
        while line := fh.readline(cap + 1):
            number += 1
            if len(line) > cap and not line.endswith("\n"):
                raise DataError(
                    f"{head.path}: line {number} is longer than {format_bytes(cap)} of text; "
                    "a table's rows are shorter (is it a text table?)"
                )
            line = line.rstrip("\r\n")
            if number > head.skip and line and not (head.preamble and line[0] == "!"):
                yield number, line
