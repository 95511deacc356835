"""The runner's timers on the host clock, each timed region's start and end logged: what
the measurement tests patch into bench/measure.py in place of the GPU's events."""

from __future__ import annotations

from gpubfs_cli.bench.timing import timed_call


def logged_timers(log: list):
    """(timed_call, timed_traverse, timed_batch) stand-ins appending ("timed",) and
    ("/timed",) to `log` around each timed region."""

    def timed(fn, devices=()):
        log.append(("timed",))
        try:
            return timed_call(fn)
        finally:
            log.append(("/timed",))

    def traverse(strategy, source, predecessors=False):
        ms, answer = timed(lambda: strategy.traverse(source, predecessors))
        return ms, answer.to_host()

    def batch(strategy, sources, predecessors=False):
        ms, answers = timed(lambda: strategy.traverse_batch(list(sources), predecessors))
        return ms, [a.to_host() for a in answers]

    return timed, traverse, batch
