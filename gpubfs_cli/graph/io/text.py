"""The parser core every format shares: whitespace-separated numbers in text lines.

`TextReader` reads the opened file in large blocks into one byte buffer. Headers are read
a line at a time in Python (`peek_line`/`next_line`); the data that follows goes through
`parse`, which hands the buffer to `_scan`, a numba routine that walks the bytes once and
writes the numbers straight into preallocated int64 columns (or, for adjacency lines, one
flat array plus a count per line). A line cut by the block boundary is kept and completed
by the next read. Nothing per token ever becomes a Python object.

Rare checks made after parsing (an id out of range, a count that disagrees) find the line
of record i by scanning the file again up to that record (`Parsed.locate`): errors pay
for their line number, the normal path does not.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass

import numpy as np
from numba import njit

from gpubfs_cli.errors import InputFormatError
from gpubfs_cli.graph.io.opener import OpenedFile

CHUNK_BYTES = 1 << 24
INITIAL_ROWS = 1 << 20

# _scan status codes
OK, NEED_MORE, FULL, BAD_TOKEN, BAD_COUNT, BAD_TAG, TOO_LONG = range(7)


@njit(cache=True, nogil=True)
def _find_newline(buf, pos, end):
    for i in range(pos, end):
        if buf[i] == 10:
            return i
    return -1


@njit(cache=True, nogil=True)
def _parse_float(buf, p, end):
    """Decimal or scientific notation -> (value, position after it, ok).

    Correctly rounded when the significand (without trailing zeros) is below 2**53 and
    the power of ten at most 22 in size; otherwise within an ulp or two (16- and
    17-digit values), plenty for edge weights.
    """
    neg = False
    if p < end and (buf[p] == 45 or buf[p] == 43):
        neg = buf[p] == 45
        p += 1
    mant = 0
    digits = 0
    seen = 0
    exp10 = 0
    while p < end and 48 <= buf[p] <= 57:
        if digits < 18:
            mant = mant * 10 + (buf[p] - 48)
            if mant:
                digits += 1
        else:
            exp10 += 1
        seen += 1
        p += 1
    if p < end and buf[p] == 46:
        p += 1
        while p < end and 48 <= buf[p] <= 57:
            if digits < 18:
                mant = mant * 10 + (buf[p] - 48)
                if mant:
                    digits += 1
                exp10 -= 1
            seen += 1
            p += 1
    if seen == 0:
        return 0.0, p, False
    if p < end and (buf[p] == 101 or buf[p] == 69 or buf[p] == 100 or buf[p] == 68):
        q = p + 1
        eneg = False
        if q < end and (buf[q] == 45 or buf[q] == 43):
            eneg = buf[q] == 45
            q += 1
        ev = 0
        ed = 0
        while q < end and 48 <= buf[q] <= 57:
            if ev < 100000:
                ev = ev * 10 + (buf[q] - 48)
            ed += 1
            q += 1
        if ed == 0:
            return 0.0, q, False
        exp10 += -ev if eneg else ev
        p = q
    # trailing zeros ("2.0500000000000000e+01") would push the significand past 2**53
    while mant != 0 and mant % 10 == 0:
        mant //= 10
        exp10 += 1
    # float exponents: numba turns an integer power into repeated products (inexact)
    value = float(mant)
    if exp10 > 0:
        value = value * 10.0 ** float(exp10)
    elif exp10 >= -300:
        value = value / 10.0 ** float(-exp10)
    else:  # subnormal range: scale in two steps so the power does not overflow
        value = value / 1e300 / 10.0 ** float(-exp10 - 300)
    return (-value if neg else value), p, True


@njit(cache=True, nogil=True)
def _scan(buf, pos, end, at_eof, line, comment, tag, ncols, float_last, variable, store,
          ints, floats, row, cap_rows, flat, nflat):
    """Parse the lines in buf[pos:end]; -> (status, pos, line, row, nflat, detail).

    Fixed mode (variable=False): each data line holds exactly `ncols` numbers (after the
    one-letter `tag` when tag >= 0); integer column k goes to ints[k, row], a float last
    column to floats[row]. Variable mode: every number goes to flat[nflat...], the count
    to ints[0, row], and a blank line is a row with no numbers. Lines whose first
    non-blank byte is marked in `comment` are skipped, as are blank lines in fixed mode.
    Stops with NEED_MORE at a line the buffer does not hold completely (unless at_eof),
    FULL before a row that does not fit (pos is then that row's line), or an error
    status with pos at the bad line's start (detail = numbers read on it). store=False
    only counts, to find the line of a given row.
    """
    n = end
    while True:
        start = pos
        p = pos
        while p < n and (buf[p] == 32 or buf[p] == 9 or buf[p] == 13):
            p += 1
        if p == n:
            if at_eof:
                return OK, n, line, row, nflat, 0
            return NEED_MORE, start, line, row, nflat, 0
        c = buf[p]
        if c == 10:
            if variable:
                if row >= cap_rows:
                    return FULL, start, line, row, nflat, 0
                if store:
                    ints[0, row] = 0
                row += 1
            pos = p + 1
            line += 1
            continue
        if comment[c]:
            while p < n and buf[p] != 10:
                p += 1
            if p == n:
                if at_eof:
                    return OK, n, line, row, nflat, 0
                return NEED_MORE, start, line, row, nflat, 0
            pos = p + 1
            line += 1
            continue
        if row >= cap_rows:
            return FULL, start, line, row, nflat, 0
        if tag >= 0:
            if c != tag:
                return BAD_TAG, start, line, row, nflat, 0
            p += 1
            if p < n and not (buf[p] == 32 or buf[p] == 9 or buf[p] == 13 or buf[p] == 10):
                return BAD_TAG, start, line, row, nflat, 0
        k = 0
        nf = nflat
        while True:
            while p < n and (buf[p] == 32 or buf[p] == 9 or buf[p] == 13):
                p += 1
            if p == n:
                if not at_eof:
                    return NEED_MORE, start, line, row, nflat, 0
                break
            c = buf[p]
            if c == 10:
                break
            if not variable and k == ncols:
                return BAD_COUNT, start, line, row, nflat, k + 1
            if float_last and k == ncols - 1:
                value, p, ok = _parse_float(buf, p, n)
                if not ok:
                    return BAD_TOKEN, start, line, row, nflat, k
                if store:
                    floats[row] = value
            else:
                neg = c == 45
                if c == 45 or c == 43:
                    p += 1
                v = 0
                d = 0
                while p < n:
                    c = buf[p]
                    if c < 48 or c > 57:
                        break
                    v = v * 10 + (c - 48)
                    d += 1
                    p += 1
                if d == 0:
                    return BAD_TOKEN, start, line, row, nflat, k
                if d > 18:
                    return TOO_LONG, start, line, row, nflat, k
                if neg:
                    v = -v
                if variable:
                    if store:
                        if nf >= flat.shape[0]:
                            return FULL, start, line, row, nflat, 0
                        flat[nf] = v
                    nf += 1
                elif store:
                    ints[k, row] = v
            # a number ends at a blank, a newline or the end of the data
            if p < n:
                c = buf[p]
                if not (c == 32 or c == 9 or c == 13 or c == 10):
                    return BAD_TOKEN, start, line, row, nflat, k
            elif not at_eof:
                return NEED_MORE, start, line, row, nflat, 0
            k += 1
        if variable:
            if store:
                ints[0, row] = k
        elif k != ncols:
            return BAD_COUNT, start, line, row, nflat, k
        row += 1
        nflat = nf
        if p == n:
            return OK, n, line, row, nflat, 0
        pos = p + 1
        line += 1


@dataclass(frozen=True)
class Layout:
    """What the data lines look like.

    columns: numbers per line, or 0 for adjacency lines (any count, blank line = a row).
    float_last: the last column is a real number. tag: a letter each line starts with
    ('a' in DIMACS). comments: first characters of lines to skip. expected: the line's
    shape in words, for error messages.
    """

    columns: int
    expected: str
    float_last: bool = False
    tag: str | None = None
    comments: str = "#"

    @property
    def variable(self) -> bool:
        return self.columns == 0


@dataclass
class Parsed:
    """Numbers from the data lines.

    Fixed layouts: ints[k] is integer column k (length `rows`), floats the real last
    column. Adjacency layouts: counts[i] numbers on row i, all of them in `values`.
    """

    rows: int
    ints: np.ndarray
    floats: np.ndarray | None
    values: np.ndarray | None
    first_line: int
    end_line: int
    locate: Callable[[int], int]

    @property
    def counts(self) -> np.ndarray:
        return self.ints[0]


class TextReader:
    """Block reader over an OpenedFile with line numbers: headers line by line, data by _scan."""

    def __init__(
        self,
        opened: OpenedFile,
        *,
        progress: Callable[[int, int], None] | None = None,
        reopen: Callable[[], AbstractContextManager[OpenedFile]] | None = None,
        chunk_bytes: int | None = None,
        bound_vertices: bool = True,
        nonnegative_weights: bool = False,
    ):
        # False when the ids will be compacted: n is then the count of distinct ids, so
        # a sparse id does not size the graph (common.check_vertex_count).
        self.bound_vertices = bound_vertices
        # True when the file's weights are kept for SSSP (common.check_weights).
        self.nonnegative_weights = nonnegative_weights
        self.file = opened
        self.name = opened.name
        self.line = 1
        self._progress = progress
        self._reopen = reopen
        self._buf = np.empty(chunk_bytes or CHUNK_BYTES, np.uint8)
        self._pos = 0
        self._fill = 0
        self._offset = 0  # bytes dropped before _buf[0]
        self._eof = False
        self._peeked: tuple[str, int] | None = None
        self._read()

    # ---- buffer
    def _read(self) -> None:
        """Keep the unread tail, append the next block behind it (grow if one line fills it)."""
        keep = self._fill - self._pos
        if self._pos:
            self._buf[:keep] = self._buf[self._pos : self._fill]
            self._offset += self._pos
            self._pos, self._fill = 0, keep
        if keep == len(self._buf):
            bigger = np.empty(2 * len(self._buf), np.uint8)
            bigger[:keep] = self._buf[:keep]
            self._buf = bigger
        room = len(self._buf) - self._fill
        got = self.file.readinto(memoryview(self._buf)[self._fill :])
        self._fill += got
        self._eof = got < room
        if self._progress is not None:
            self._progress(self.file.raw_position(), self.file.total_bytes)

    def _skip_to(self, offset: int) -> None:
        while self._offset + self._fill < offset and not self._eof:
            self._pos = self._fill
            self._read()
        self._pos = min(offset - self._offset, self._fill)

    def _text(self, start: int, end: int) -> str:
        return bytes(self._buf[start:end]).decode("utf-8", errors="replace").rstrip("\r")

    # ---- header lines
    def peek_line(self) -> str | None:
        """The next line's text (no newline), without consuming it; None at the end."""
        if self._peeked is None:
            while True:
                i = _find_newline(self._buf, self._pos, self._fill)
                if i >= 0:
                    self._peeked = (self._text(self._pos, i), i + 1)
                    break
                if self._eof:
                    if self._pos == self._fill:
                        return None
                    self._peeked = (self._text(self._pos, self._fill), self._fill)
                    break
                self._read()
        return self._peeked[0]

    def next_line(self) -> str | None:
        """Consume and return the next line (its number was self.line before the call)."""
        text = self.peek_line()
        if text is not None:
            self._pos = self._peeked[1]
            self._peeked = None
            self.line += 1
        return text

    def error(self, expected: str, line: int | None = None) -> InputFormatError:
        return InputFormatError(self.name, self.line if line is None else line, expected)

    # ---- data
    def parse(self, layout: Layout, capacity: int = 0, value_capacity: int = 0) -> Parsed:
        """Parse every remaining line with `layout`.

        capacity: expected rows; value_capacity: expected numbers in all (adjacency
        layouts). Both are hints: the arrays grow when the file holds more.
        """
        self._peeked = None
        first_line, first_offset = self.line, self._offset + self._pos
        comment = np.zeros(256, np.bool_)
        for ch in layout.comments:
            comment[ord(ch)] = True
        tag = ord(layout.tag) if layout.tag else -1
        k_int = 1 if layout.variable else layout.columns - int(layout.float_last)
        cap = max(int(capacity), 16) if capacity else INITIAL_ROWS
        ints = np.empty((k_int, cap), np.int64)
        floats = np.empty(cap if layout.float_last else 0, np.float64)
        flat = np.empty((int(value_capacity) or 4 * cap) if layout.variable else 0, np.int64)
        row = nflat = 0
        while True:
            status, pos, line, row, nflat, detail = _scan(
                self._buf, self._pos, self._fill, self._eof, self.line, comment, tag,
                layout.columns, layout.float_last, layout.variable, True,
                ints, floats, row, ints.shape[1], flat, nflat,
            )
            self._pos, self.line = pos, line
            if status == OK:
                break
            if status == NEED_MORE:
                self._read()
            elif status == FULL:
                if row < ints.shape[1]:  # the flat values ran out, not the rows
                    flat = _grown(flat, nflat, self._estimate(nflat, len(flat)))
                else:
                    new_cap = self._estimate(row, ints.shape[1])
                    ints = _grown(ints, row, new_cap)
                    if layout.float_last:
                        floats = _grown(floats, row, new_cap)
            else:
                raise self._line_error(status, detail, layout)
        if self._progress is not None:
            self._progress(self.file.total_bytes, self.file.total_bytes)
        ints, floats = _trimmed(ints, row), (_trimmed(floats, row) if layout.float_last else None)
        values = _trimmed(flat, nflat) if layout.variable else None

        def locate(index: int) -> int:
            return self._locate(layout, comment, tag, first_offset, first_line, index)

        return Parsed(row, ints, floats, values, first_line, self.line, locate)

    def _estimate(self, done: int, cap: int) -> int:
        """New capacity: projected from the share of the file read so far, 1.25x..4x."""
        frac = self.file.raw_position() / max(self.file.total_bytes, 1)
        guess = int(done / frac * 1.05) + 1024 if frac > 0.01 else 2 * cap
        return min(max(guess, cap + cap // 4 + 1024), 4 * cap + 1024)

    def _line_error(self, status: int, detail: int, layout: Layout) -> InputFormatError:
        end = _find_newline(self._buf, self._pos, self._fill)
        end = self._fill if end < 0 else end
        text = self._text(self._pos, min(end, self._pos + 80))
        if status == BAD_COUNT:
            what = f"found {detail}{'+' if detail > layout.columns else ''} values"
        elif status == TOO_LONG:
            what = f"value {detail + 1} has too many digits"
        elif status == BAD_TAG:
            what = f"line does not start with '{layout.tag}'"
        else:
            what = f"value {detail + 1} is not a number"
        return self.error(f"expected {layout.expected}; {what}: '{text}'")

    def _locate(self, layout, comment, tag, offset: int, line: int, index: int) -> int:
        """Line number of data row `index` (or of the end of the file, if there are fewer)."""
        if self._reopen is None:
            return line
        with self._reopen() as opened:
            again = TextReader(opened, chunk_bytes=len(self._buf))
            again._skip_to(offset)
            again.line = line
            dummy_i = np.empty((1, 0), np.int64)
            dummy_f = np.empty(0, np.float64)
            row = nflat = 0
            while True:
                status, pos, again.line, row, nflat, _ = _scan(
                    again._buf, again._pos, again._fill, again._eof, again.line, comment, tag,
                    layout.columns, layout.float_last, layout.variable, False,
                    dummy_i, dummy_f, row, index, dummy_i[0], nflat,
                )
                again._pos = pos
                if status == NEED_MORE:
                    again._read()
                else:
                    return again.line


def capacity_hint(declared: int, reader: TextReader) -> int:
    """A header's count as an allocation size, bounded by the file size (a header can lie)."""
    return max(0, min(int(declared), reader.file.total_bytes + 1))


def _grown(a: np.ndarray, used: int, cap: int) -> np.ndarray:
    out = np.empty(a.shape[:-1] + (cap,), a.dtype)
    out[..., :used] = a[..., :used]
    return out


def _trimmed(a: np.ndarray, used: int) -> np.ndarray:
    """a[..., :used], copied when that frees more than a tenth (so the slack is released)."""
    if a.shape[-1] - used > used // 10 + 4096:
        return a[..., :used].copy()
    return a[..., :used]
