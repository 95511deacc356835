"""Each answer checked against the reference and measured: the samples of one timed
call, or the one sample of a call that failed. The problem checks an answer exactly; an
answer without distances (a peer's binary returns no labels) was checked by its maker,
so its verdict is the maker's, its counts are compared with the baseline's, and its
measures come from the baseline's answer.

Batches: the call's time divided by the batch's size is each source's time_ms, and each
sample of a batch strategy records the batch's size (`batch`), so reports keep batch
rows in tables of their own.
"""

from __future__ import annotations

import numpy as np

from gpubfs_cli.bench.inputs import ProblemInput
from gpubfs_cli.bench.schedule import Indexed
from gpubfs_cli.core.answer import Answer
from gpubfs_cli.results.schema import Sample
from gpubfs_cli.results.status import classify


def call_samples(name: str, pi: ProblemInput, strategy: str, kd: dict, group: Indexed, answers: list[Answer],
                 ms: float, mode: bool, limit_s: float, left: int, *, batched: bool) -> list[Sample]:
    """The samples of one timed call of `group`'s (index, source) pairs, one an answer.
    Over the time limit (per source) each is out-of-time, without a verdict, the last
    naming the `left` sources after the call that are skipped."""
    per_source = ms / len(group)
    over = per_source > limit_s * 1000.0
    samples = []
    for k, ((at, source), answer) in enumerate(zip(group, answers, strict=True)):
        sample = checked_sample(name, pi, strategy, kd, at, source, per_source, answer, mode, verdict=not over)
        if batched:  # a batch strategy's sample, whatever this batch's size
            sample.batch = len(group)
        if over:
            sample.status = "out-of-time"
            sample.reason = f"{per_source / 1000:.3g} s is over the limit of {limit_s:g} s"
            if k == len(group) - 1 and left:
                sample.reason += f" (remaining {left} sources skipped)"
        samples.append(sample)
    return samples


def failed_call(name: str, pi: ProblemInput, strategy: str, kd: dict, group: Indexed, mode: bool,
                exc: Exception, stage: str, left: int) -> Sample:
    """The one sample of a call that raised (at its first source): the failure's status,
    `stage` naming a failed prime call or flush, and the sources skipped with it."""
    status, why = classify(exc)
    why = stage + why + (f" (remaining {left + len(group) - 1} sources skipped)"
                         if left + len(group) > 1 else "")
    return Sample(name, strategy, kd, group[0][1], None, 0, 0, None, status, mode, why, problem=pi.problem.key)


def checked_sample(name: str, pi: ProblemInput, strategy: str, kd: dict, at: int, source: int, ms: float,
                   answer: Answer, mode: bool, verdict: bool = True) -> Sample:
    """The sample of one answer: checked (by the problem, or by its maker when it
    returns no labels) and measured; without `verdict` (a call over the time limit,
    which is its status) the sample carries no valid, reason or timed_by."""
    references = pi.references
    by_maker = answer.distances is None  # a peer's binary: its own check (core/answer.py)
    reason = None
    if by_maker:
        if references is not None:
            answer.distances = references.distances(at)  # the measures, and the counts' check
            reason = counts_differ(answer)
    elif references is not None:
        reason = references.check(at, answer, mode)
    checked = references is not None and reason is None and not by_maker
    sample = measured_sample(name, pi, strategy, kd, source, ms, answer, mode, at == 0, checked)
    if not verdict:
        return sample
    if by_maker:
        sample.timed_by, sample.valid = answer.timed_by, answer.peer_valid
        if answer.peer_counts is not None and references is not None:
            sample.valid = reason is None
        if answer.peer_valid is False:
            sample.status, sample.reason = "wrong-answer", f"{answer.timed_by}'s own check found errors"
        elif reason is not None:
            sample.status, sample.reason = "wrong-answer", reason
    elif references is not None:
        sample.valid = checked
        if not checked:
            sample.status, sample.reason = "wrong-answer", reason
    return sample


def measured_sample(name: str, pi: ProblemInput, strategy: str, kd: dict, source: int, ms: float,
                    result: Answer, mode: bool, first: bool, checked: bool) -> Sample:
    dist = np.asarray(result.distances)
    facts = pi.facts
    m = facts.failed() if dist.shape != (facts.graph.n,) else facts.measure_for(int(source), dist, checked)
    # Per-iteration series (arrays) on the run's first source only; scalars on every sample.
    counters = {k: v for k, v in result.counters.items() if first or not isinstance(v, (np.ndarray, list))}
    return Sample(
        dataset=name, strategy=strategy, knobs=kd, source=int(source), time_ms=float(ms),
        reached=m.reached, edges=m.edges, valid=None, status="ok", predecessors=bool(mode),
        low_reach=m.low_reach, problem=pi.problem.key, measures=dict(m.extra), counters=counters,
    )


def counts_differ(answer: Answer) -> str | None:
    """Why a peer's (levels, reached) disagree with the baseline's distances (in
    answer.distances), or None (also when the peer reports no counts)."""
    if answer.peer_counts is None:
        return None
    dist = np.asarray(answer.distances)
    want = (int(dist.max()) + 1, int((dist >= 0).sum()))
    got = tuple(int(c) for c in answer.peer_counts)
    if got == want:
        return None
    return f"{answer.timed_by}: {got[0]} levels and {got[1]:,} reached, the baseline {want[0]} and {want[1]:,}"
