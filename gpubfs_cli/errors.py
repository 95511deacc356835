"""Errors a user can cause. The CLI prints them as one line and exits non-zero."""

from __future__ import annotations

import difflib
import sys
from collections.abc import Callable, Iterable


def one_line(text: str) -> str:
    """`text` with every control or separator character (newlines, carriage returns,
    terminal escapes, U+2028...) written as an escape: a message that quotes a hostile
    file stays one line and sends no control codes to the terminal."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


class UserError(Exception):
    """Bad input: a file, line, key or name the user gave. Message is one line (made so:
    see `one_line`)."""

    exit_code = 2

    def __init__(self, message: object = "", *args):
        super().__init__(one_line(str(message)), *args)


class InputFormatError(UserError):
    """A graph file that does not follow its format.

    The message names the file, the line (1-based, when known) and what was expected.
    """

    def __init__(self, path: str, line: int | None, expected: str):
        where = f"{path}:{line}" if line is not None else str(path)
        super().__init__(f"{where}: {expected}")
        self.path, self.line, self.expected = str(path), line, expected


def unknown_name(kind: str, name: str, valid: Iterable[str]) -> UserError:
    """'unknown dataset 'x' (did you mean: a, b?)' with the closest valid names."""
    valid = sorted(valid)
    close = difflib.get_close_matches(name, valid, n=3, cutoff=0.5)
    hint = f" (did you mean: {', '.join(close)}?)" if close else f" (valid: {', '.join(valid[:12])}{', ...' if len(valid) > 12 else ''})"
    return UserError(f"unknown {kind} '{name}'{hint}")


def exit_status(step: Callable[[], int | None]) -> int:
    """A script's exit status: `step()`'s own (None: 0), or, where it raises a UserError,
    that error's code after its one line on stderr (never a traceback)."""
    try:
        return step() or 0
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return exc.exit_code
