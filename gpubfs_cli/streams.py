"""The command line's standard streams, guarded: a closed pipe, a full disk or a closed
descriptor on stdout or stderr is one exit status and at most one line, never a
traceback, and SIGTERM stops a command the way Ctrl-C does (exit status 143).

stdout's write errors become OutputError, which can only mean the output is gone (a
bare OSError may be any layer's own file). stderr outlives its own failure: the command
goes on, and the last message it lost is said on stdout at the end (exit status 1). A
reader that closed the pipe (`| head`) gets 141, as a shell reports SIGPIPE.
"""

from __future__ import annotations

import errno
import os
import signal
import sys


class OutputError(Exception):
    """Standard output cannot be written (a closed pipe, a full disk)."""

    def __init__(self, cause: OSError):
        super().__init__(cause.strerror or str(cause))
        self.errno = cause.errno


class GuardedOutput:
    """sys.stdout whose write errors become OutputError: unlike a bare OSError, which any
    layer may raise for its own files, it can only mean that the output is gone."""

    def __init__(self, stream):
        self._stream = stream

    def write(self, text):
        if self._stream is None:  # started with stdout closed (`>&-`): Python leaves it None
            raise OutputError(OSError(errno.EBADF, "standard output is closed"))
        try:
            return self._stream.write(text)
        except OSError as exc:
            raise OutputError(exc) from None

    def flush(self):
        if self._stream is None:
            return
        try:
            self._stream.flush()
        except OSError as exc:
            raise OutputError(exc) from None

    def __getattr__(self, name):
        return getattr(self._stream, name)


class GuardedErrors:
    """sys.stderr that outlives its own failure (a full disk, a closed pipe, `2>&-`):
    the command goes on without it, the last message it lost kept for main() to say on
    stdout. Failing at once would turn a lost warning into a lost run."""

    def __init__(self, stream):
        self._stream = stream
        self.failure: str | None = "it is closed" if stream is None else None
        self.lost: str | None = None

    def write(self, text):
        if self.failure is None:
            try:
                return self._stream.write(text)
            except OSError as exc:
                self.failure = exc.strerror or str(exc)
                _to_devnull(self._stream)
        words = [t for t in (line.strip() for line in str(text).splitlines()) if t]
        self.lost = words[-1] if words else self.lost
        return len(text)

    def flush(self):
        if self.failure is None:
            try:
                self._stream.flush()
            except OSError as exc:
                self.failure = exc.strerror or str(exc)
                _to_devnull(self._stream)

    def __getattr__(self, name):
        return getattr(self._stream, name)


def _to_devnull(stream) -> None:
    """Point a failed stream's descriptor at /dev/null: what is still buffered there
    would fail again when Python exits (a traceback and exit status 120)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stream.fileno())
        os.close(devnull)
    except (OSError, AttributeError, ValueError):
        pass


def _errors_failed(errors: GuardedErrors) -> int:
    """One line on stdout for a stderr that could not be written -> exit status 1."""
    lost = f"; the last message lost: {errors.lost}" if errors.lost else ""
    sys.stdout.write(f"error: cannot write to stderr ({errors.failure}){lost}\n")
    sys.stdout.flush()
    return 1


def _output_failed(exc: OutputError, err_console) -> int:
    """Say why (nothing for a reader that closed the pipe, as `head` does) -> exit status."""
    _to_devnull(sys.__stdout__)
    if exc.errno == errno.EPIPE:
        return 141  # as a shell reports a command that SIGPIPE ended
    try:
        err_console.print(f"error: cannot write output: {exc}", markup=False)
    except OSError:
        pass
    return 1


def run_guarded(app, err_console) -> None:
    """Run the Typer `app` with stdout and stderr guarded, SIGTERM stopping it as Ctrl-C
    does, and every failure of the streams themselves one exit status."""
    # `kill` (SIGTERM) stops a run the way Ctrl-C does: cleanup runs, temporary files go,
    # and the results file keeps what finished; the exit status still says SIGTERM (143).
    terminated = []

    def on_sigterm(signum, frame):
        terminated.append(signum)
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_sigterm)
    sys.stdout = GuardedOutput(sys.stdout)
    errors = sys.stderr = GuardedErrors(sys.stderr)
    try:
        try:
            app()
        except SystemExit as done:
            sys.stdout.flush()  # the last of the output, while a failure can still be reported
            errors.flush()
            if errors.failure is not None:
                raise SystemExit(_errors_failed(errors)) from None
            if terminated and done.code == 130:  # Ctrl-C's status, for what SIGTERM stopped
                raise SystemExit(128 + signal.SIGTERM) from None
            raise done
    except OutputError as exc:
        raise SystemExit(_output_failed(exc, err_console)) from None
