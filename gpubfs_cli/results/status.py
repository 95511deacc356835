"""The one status rulebook: samples' statuses make a cell's (and exceptions a sample's).

Used by the runner (its results-file summaries, end-of-run table and exit code) and by
every report, so the two never disagree.

A group (one dataset, problem, strategy, knob variant and option) is `ok` only when no
sample failed: a wrong answer, an error, out-of-memory or out-of-time anywhere makes
the whole cell that status, never a number. `unavailable` yields to `ok` samples of the
same group, so a CPU machine's "no GPU here" does not hide the GPU machine's numbers
when both files are reported together; a group with no ok sample takes its most
serious status.

What a sample's status means past its cell: a variant's mode ends at a failure that would
only repeat (ENDS_A_MODE: the run goes on without it, and a resume does not run it again;
a wrong answer is checked source by source, so it ends nothing); `reproduce` calls a cell
measured when it ended in a failure that is itself a result (MEASURED_FAILURES: the
paper tables print out-of-time and out-of-memory too), while `unavailable` and `error`
cells run again on the next attempt (another machine, a transient failure).

A cell is `partial` when its group is `ok` but holds fewer sources than its run planned
(a run stopped by Ctrl-C, a signal or a kill): it shows its numbers with the count it
holds, `282.9 (3/50)`, never as if it were complete; likewise a knob sweep's cell whose run
stopped before some of its planned variants ran, `502.8 (1/7 variants)` (report/plans.py).
Failures are never partial: the failure is the cell.

A run whose samples are all `unavailable` measured nothing (`nothing_measured`): it
writes no results file and exits non-zero, like a run with no sample at all.
"""

from __future__ import annotations

STATUSES = ("ok", "out-of-time", "out-of-memory", "unavailable", "wrong-answer", "error")
# A failure anywhere in a group decides its status, most serious first.
FAILURES = ("wrong-answer", "error", "out-of-memory", "out-of-time")
SEVERITY = (*FAILURES, "unavailable", "missing", "ok")
# Cells with these statuses make `gpubfs run` exit 1.
RUN_FAILURES = ("wrong-answer", "error")
# A sample with one of these stops its variant's mode on that graph (see above).
ENDS_A_MODE = ("error", "out-of-memory", "out-of-time", "unavailable")
# Failures that are results: a cell ended so is not measured again by `reproduce`.
MEASURED_FAILURES = ("out-of-time", "out-of-memory", "wrong-answer")
# A cell's status (never a sample's): an ok group with fewer sources than planned.
PARTIAL = "partial"


def nothing_measured(samples: list[dict]) -> bool:
    """No sample, or only `unavailable` ones: nothing ran, so there is no run to record."""
    return all(s.get("status") == "unavailable" for s in samples)


def why_nothing(samples: list[dict]) -> str | None:
    """Why a run measured nothing although it ran: its first unavailable cell's reason
    (None: no sample at all, each graph's failure says why)."""
    first = next((s for s in samples if s.get("status") == "unavailable"), None)
    if first is None:
        return None
    return f"every cell is unavailable ({first['strategy']}: {first.get('reason')})"


def sample_status(status: str, valid: bool | None, time_ms: float | None) -> str:
    """A sample's status, with an `ok` sample that failed validation made wrong-answer
    and one without a time an error (a hand-edited or truncated file)."""
    if status == "ok" and (valid is False or time_ms is None):
        return "wrong-answer" if valid is False else "error"
    return status


def group_status(statuses: list[str]) -> str:
    """The cell's status from its samples' statuses (see the module docstring)."""
    failed = next((f for f in FAILURES if f in statuses), None)
    if failed is not None:
        return failed
    if "ok" in statuses:
        return "ok"
    return min(statuses, key=severity) if statuses else "missing"


def is_partial(status: str, measured: int, planned: int | None) -> bool:
    """An ok group that holds fewer sources than its run planned (None: not known)."""
    return status == "ok" and planned is not None and measured < planned


def partial_mark(measured: int, planned: int, what: str = "sources") -> str:
    """What a partial cell shows after its number: `(3/50)` sources, `(1/7 variants)` of a
    knob sweep."""
    return f"({measured}/{planned})" if what == "sources" else f"({measured}/{planned} {what})"


def partial_reason(measured: int, planned: int, what: str = "sources") -> str:
    return f"{measured} of {planned} {what} measured: the run stopped before the rest"


def severity(status: str) -> int:
    """Lower is more serious."""
    return SEVERITY.index(status) if status in SEVERITY else len(SEVERITY)


def classify(exc: BaseException) -> tuple[str, str]:
    """(status, one-line reason) of an exception a strategy raised."""
    from gpubfs_cli.core.strategy import StrategyUnavailable

    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    if isinstance(exc, StrategyUnavailable):
        return "unavailable", text or type(exc).__name__
    reason = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
    if (
        isinstance(exc, MemoryError)
        or type(exc).__name__ == "OutOfMemoryError"
        or "cudaErrorMemoryAllocation" in text
    ):
        return "out-of-memory", reason[:300]
    return "error", reason[:300]
