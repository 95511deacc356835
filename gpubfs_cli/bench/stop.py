"""Stopping a run: SIGINT (Ctrl-C), SIGTERM and SIGHUP all stop it the same way.

While a run goes on, each of the three raises KeyboardInterrupt where the run is, and
which signal it was is kept for the results file (`stopped_by`). While the journal writes
a record (`held`) the signal waits until the record is whole, and once the run is
stopping (`stopping`) a second signal is only noted, so the journal and the results file
are always written whole. A signal ignored when the run begins (`nohup` ignores SIGHUP)
stays ignored.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager

SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))


class Stop:
    def __init__(self):
        self.signal: str | None = None  # the name of the signal that stopped the run
        self._held = 0
        self._pending = False
        self._stopping = False
        self._previous: dict[int, object] = {}

    def __enter__(self) -> Stop:
        for sig in SIGNALS:
            if signal.getsignal(sig) == signal.SIG_IGN:  # `nohup` and the like: still ignored
                continue
            try:
                self._previous[sig] = signal.signal(sig, self._handler)
            except (ValueError, OSError):  # not the main thread: signals stay as they were
                break
        return self

    def __exit__(self, *exc) -> None:
        for sig, previous in self._previous.items():
            signal.signal(sig, previous)
        self._previous.clear()

    def _handler(self, signum, frame) -> None:
        self.signal = self.signal or signal.Signals(signum).name
        if self._stopping:
            return
        if self._held:
            self._pending = True
            return
        raise KeyboardInterrupt

    @contextmanager
    def held(self) -> Iterator[None]:
        """A signal arriving inside waits until the block is done."""
        self._held += 1
        try:
            yield
        finally:
            self._held -= 1
            if not self._held and self._pending and not self._stopping:
                self._pending = False
                raise KeyboardInterrupt

    def stopping(self) -> None:
        """From here on a signal is only noted: the run is already writing its end."""
        self._stopping = True



def exit_code(name: str | None) -> int:
    """128 + the signal's number, as a shell reports it (130 for Ctrl-C)."""
    return 128 + int(getattr(signal, name or "SIGINT", signal.SIGINT))


def run_exit(outcome, failed_cells: int, not_run: int) -> int:
    """`gpubfs run`'s exit status for its outcome (bench/runner.RunOutcome): 128 + the
    signal that stopped it; else 1 when nothing was written (nothing measured: no sample,
    or every cell unavailable), a cell failed (wrong-answer or error:
    status.RUN_FAILURES) or a dataset could not be run; else 0."""
    if outcome.interrupted:
        return exit_code(outcome.stopped_by)
    return 1 if not outcome.written or failed_cells or not_run else 0
