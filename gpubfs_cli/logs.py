"""The command line's messages through `logging`: the `gpubfs` logger and its two handlers.

Every informational or progress message is a record of a `gpubfs.*` logger; the command
line sets it up once per command (`setup`, from the app's callback in cli.py) and takes
it down when the command ends (`close`):

  stderr   rich's RichHandler on the command's stderr console, a record a line as the
           prints before it were: info as it is, `warning: `, `error: ` and `debug: `
           before the others; --quiet shows warnings and errors only, the default info
           too, --verbose debug as well
  --log    FILE: every record at DEBUG, appended, one line each (a newline in a message
           escaped), with its local time to the millisecond, level and logger

Errors a user caused stay the one line on stderr that cli.py prints (`said`: the same
line into the log file only). Results, tables and reports are no messages: they go to
stdout, whatever the level. Without `setup` (gpubfs_cli used as a library) nothing here
is installed: a `gpubfs` record reaches whatever logging its caller set up.
"""

from __future__ import annotations

import datetime
import logging
from pathlib import Path

from rich.console import Console
from rich.highlighter import NullHighlighter
from rich.logging import RichHandler
from rich.text import Text

from gpubfs_cli.errors import UserError, one_line

LOGGER = "gpubfs"
ON_STDERR = "gpubfs_stderr"  # a record's extra key: False keeps it off stderr (said there already)
PREFIX = {logging.DEBUG: "debug: ", logging.WARNING: "warning: ", logging.ERROR: "error: ",
          logging.CRITICAL: "error: "}
STYLE = {logging.DEBUG: "dim", logging.WARNING: "yellow", logging.ERROR: "red", logging.CRITICAL: "red"}

_installed: list[logging.Handler] = []


class StderrHandler(RichHandler):
    """RichHandler drawing a record as one line, as the command's prints were: no time,
    level or path columns (they would wrap a long line at the console's width), the
    level's word before anything but info."""

    def __init__(self, console: Console, level: int):
        super().__init__(level, console=console, show_time=False, show_level=False, show_path=False,
                         markup=False, highlighter=NullHighlighter(), keywords=[], rich_tracebacks=False)
        self.addFilter(lambda record: getattr(record, ON_STDERR, True))

    def emit(self, record: logging.LogRecord) -> None:
        try:
            super().emit(record)
        except BaseException:
            # Ctrl-C or SIGTERM between rich's write of the line and its emptying of the
            # console's buffer: the next line on that console (the error) would repeat it
            del self.console._buffer[:]
            raise

    def render(self, *, record, traceback, message_renderable):
        style = STYLE.get(record.levelno, "")
        if style:
            message_renderable.stylize(style)
        return Text(PREFIX.get(record.levelno, ""), style=style) + message_renderable


class LogFileHandler(logging.FileHandler):
    """--log FILE. A write that fails (a full disk) ends the log with one warning on
    stderr instead of logging's traceback after every record."""

    def __init__(self, path: Path):
        super().__init__(path, mode="a", encoding="utf-8")
        self.setFormatter(LineFormatter())
        self.failed = False

    def emit(self, record: logging.LogRecord) -> None:
        if not self.failed:
            super().emit(record)

    def handleError(self, record: logging.LogRecord) -> None:
        if self.failed:
            return
        self.failed = True
        import sys

        why = sys.exc_info()[1]
        reason = getattr(why, "strerror", None) or str(why) or type(why).__name__
        logging.getLogger(LOGGER).warning(f"--log {self.baseFilename}: cannot write ({reason}); "
                                          "the log ends here")


class LineFormatter(logging.Formatter):
    """`2026-03-01T12:00:00.123+01:00 INFO gpubfs.progress: message`, one line a record."""

    def format(self, record: logging.LogRecord) -> str:
        when = datetime.datetime.fromtimestamp(record.created).astimezone().isoformat(timespec="milliseconds")
        text = record.getMessage()
        if record.exc_info:
            text += " | " + self.formatException(record.exc_info)
        return f"{when} {record.levelname} {record.name}: {one_line(text)}"


def level_of(quiet: bool, verbose: bool) -> int:
    """--quiet, --verbose -> the level stderr shows; both: one UserError line."""
    if quiet and verbose:
        raise UserError("--quiet and --verbose: give one of them")
    return logging.WARNING if quiet else logging.DEBUG if verbose else logging.INFO


def setup(console: Console, *, quiet: bool = False, verbose: bool = False, log_file: str | None = None) -> None:
    """The `gpubfs` logger for one command: stderr at the level --quiet/--verbose say, and
    every record into `log_file` when given (a file that cannot be opened: one UserError
    line). What an earlier setup in this process installed is taken down first."""
    level = level_of(quiet, verbose)
    close()
    handlers: list[logging.Handler] = [StderrHandler(console, level)]
    if log_file is not None:
        if log_file == "":
            raise UserError("--log: an empty value; expected a file name")
        try:
            handlers.append(LogFileHandler(Path(log_file)))
        except OSError as exc:
            raise UserError(f"--log {log_file}: cannot open it ({exc.strerror or exc})") from None
    logger = logging.getLogger(LOGGER)
    logger.setLevel(logging.DEBUG if log_file is not None else level)
    for handler in handlers:
        logger.addHandler(handler)
    _installed.extend(handlers)


def close() -> None:
    """Take down what `setup` installed (the log file closed)."""
    logger = logging.getLogger(LOGGER)
    while _installed:
        handler = _installed.pop()
        logger.removeHandler(handler)
        handler.close()
    logger.setLevel(logging.NOTSET)


def shows(level: int) -> bool:
    """Whether stderr shows records of `level` (False without setup)."""
    return any(isinstance(h, StderrHandler) and level >= h.level for h in _installed)


def said(level: int, line: str) -> None:
    """A line the command printed on stderr itself (an error): into the log file only."""
    if _installed:  # else logging's last resort would print it a second time
        logging.getLogger(LOGGER).log(level, line, extra={ON_STDERR: False})
