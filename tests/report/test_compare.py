"""`gpubfs report --compare A B`, one cell at a time: a partial side is marked whichever
it is, too few samples never read as a verdict, the noise widens the band, and
--fail-on-regression 0 fails on any regression."""

from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from gpubfs_cli.cli import app
from gpubfs_cli.report.build import compare
from gpubfs_cli.report.compare import MIN_CHANGE, is_regression, verdict
from gpubfs_cli.report.load import results_from_doc
from tests.report.docs import dataset_entry, document, sample, write

DS = {"g": dataset_entry(100, 400)}


def doc_of(times: dict[str, list[float]], *, stopped_after: int | None = None) -> dict:
    """One strategy per key, source i timed times[i]; `stopped_after`: a run stopped
    (SIGINT) with only that many of the four planned sources of each strategy."""
    samples = [sample("g", name, s, t) for name, ts in times.items()
               for s, t in enumerate(ts[:stopped_after] if stopped_after is not None else ts)]
    doc = document(samples, DS)
    if stopped_after is not None:
        doc.update(complete=False, interrupted=True, stopped_by="SIGINT")
    return doc


def cell(a: dict, b: dict, strategy="merrill.hybrid", **kw):
    d = compare(results_from_doc(a, "a.json"), results_from_doc(b, "b.json"), **kw)
    table = d.tables[0]
    data = next(c for c in d.data["cells"] if c["strategy"] == strategy)
    return table.rows[0][table.columns.index(strategy)], data, d


FOUR = {"merrill.hybrid": [1.0, 1.1, 0.9, 1.0]}
SLOW = {"merrill.hybrid": [3.0, 3.3, 2.7, 3.0]}


@pytest.mark.parametrize(("a_after", "b_after", "mark", "reason"), [
    (3, None, " (A: 3/4)", "A: 3 of 4 sources measured: the run stopped before the rest"),
    (None, 3, " (B: 3/4)", "B: 3 of 4 sources measured: the run stopped before the rest"),
    (3, 2, " (A: 3/4, B: 2/4)", "A: 3 of 4 sources measured: the run stopped before the rest; "
                                "B: 2 of 4 sources measured: the run stopped before the rest"),
])
def test_either_side_can_be_the_partial_one_and_each_is_marked(a_after, b_after, mark, reason):
    c, data, _ = cell(doc_of(FOUR, stopped_after=a_after), doc_of(SLOW, stopped_after=b_after))
    assert c.status == "partial" and c.text.endswith(mark), c.text
    assert c.reason == reason and data["text"] == c.text


def test_whole_sides_carry_no_mark():
    c, _, _ = cell(doc_of(FOUR), doc_of(SLOW))
    assert c.status == "ok" and c.text == "0.333x SLOWER"


@pytest.mark.parametrize("short", ["A", "B"])
@pytest.mark.parametrize("stopped", [False, True])
def test_too_few_samples_on_either_side_is_no_verdict(short, stopped):
    """Two samples against four, a threefold change: no interval, no SLOWER or FASTER,
    no regression, whichever side has the two."""
    few = doc_of(FOUR if short == "A" else SLOW, stopped_after=2) if stopped else doc_of(
        {"merrill.hybrid": (FOUR if short == "A" else SLOW)["merrill.hybrid"][:2]})
    many = doc_of(SLOW if short == "A" else FOUR)
    a, b = (few, many) if short == "A" else (many, few)
    c, data, d = cell(a, b, fail_pct=0.0)
    assert "(too few samples)" in c.text and "SLOWER" not in c.text and "FASTER" not in c.text, c.text
    assert (data["verdict"], data["low"], data["high"], data["regression"]) == (None, None, None, False)
    assert data["samples"] == ([2, 4] if short == "A" else [4, 2])
    assert d.data["verdicts"] == {"SAME": 0, "FASTER": 0, "SLOWER": 0} and d.data["regressions"] == []
    assert "too few samples: 1;" in d.notes[0]
    assert c.status == ("partial" if stopped else "ok")


def test_noise_above_min_change_widens_the_band():
    """Both B's are 1.4x faster in the median, with intervals well above 1 + MIN_CHANGE;
    single ratios of the scattered one vary by some 40%, so it reads SAME."""
    n = 200
    tight = np.linspace(1.3, 1.5, n)
    wide = np.linspace(0.6, 2.2, n)
    a = document([sample("g", name, s, 2.0) for name in ("classic.harish", "classic.vwarp") for s in range(n)], DS)
    b = document([sample("g", "classic.harish", s, 2.0 / tight[s]) for s in range(n)]
                 + [sample("g", "classic.vwarp", s, 2.0 / wide[s]) for s in range(n)], DS)
    _, calm, _ = cell(a, b, "classic.harish")
    _, noisy, _ = cell(a, b, "classic.vwarp")
    assert calm["verdict"] == "FASTER" and calm["noise"] < MIN_CHANGE
    assert noisy["low"] > 1 + MIN_CHANGE and noisy["noise"] > noisy["low"] - 1
    assert noisy["verdict"] == "SAME", noisy
    # the band is the larger of the two: the noise here, --min-change when it is larger
    assert verdict(1.2, 1.5, 0.25) == "SAME" and verdict(1.2, 1.5, 0.15) == "FASTER"
    assert verdict(1 / 1.5, 1 / 1.2, 0.25) == "SAME" and verdict(1 / 1.5, 1 / 1.2, 0.15) == "SLOWER"
    assert verdict(1.2, 1.5, 0.05, min_change=0.25) == "SAME"


def test_fail_on_regression_zero_is_any_regression_not_off():
    assert is_regression(0.99, 0.0) and not is_regression(1.0, 0.0) and not is_regression(0.5, None)
    assert is_regression(0.49, 100.0) and not is_regression(0.5, 100.0)
    _, data, d = cell(doc_of(FOUR), doc_of(SLOW), fail_pct=0.0)
    assert data["regression"] is True and d.data["regressions"] == [data]
    assert "regressions (B slower than A by more than 0% beyond the noise): merrill.hybrid on g" in d.notes[1]
    _, data, d = cell(doc_of(FOUR), doc_of(SLOW))
    assert data["regression"] is False and len(d.notes) == 1


def test_fail_on_regression_zero_fails_the_command(tmp_path):
    a = write(tmp_path, "a.json", doc_of(FOUR))
    b = write(tmp_path, "b.json", doc_of(SLOW))
    r = CliRunner().invoke(app, ["report", "--compare", str(a), str(b), "--fail-on-regression", "0",
                                 "--format", "json"])
    assert r.exit_code == 1, r.output
    assert [c["strategy"] for c in json.loads(r.stdout)["regressions"]] == ["merrill.hybrid"]
    assert r.stderr.strip().splitlines()[-1].startswith("error: 1 regression(s) beyond the noise (over 0% slower)")
    same = CliRunner().invoke(app, ["report", "--compare", str(a), str(a), "--fail-on-regression", "0"])
    assert same.exit_code == 0, same.output
    faster = CliRunner().invoke(app, ["report", "--compare", str(b), str(a), "--fail-on-regression", "0"])
    assert faster.exit_code == 0 and "FASTER" in faster.stdout


def test_three_samples_a_side_are_enough_for_a_verdict():
    three = {"merrill.hybrid": FOUR["merrill.hybrid"][:3]}
    c, data, _ = cell(doc_of(three), doc_of({"merrill.hybrid": SLOW["merrill.hybrid"][:3]}))
    assert data["verdict"] == "SLOWER" and data["samples"] == [3, 3], c.text


def test_an_interval_that_touches_the_band_is_not_beyond_it():
    band = 1 + MIN_CHANGE
    assert verdict(band, 2.0, 0.0) == "SAME" and verdict(band + 1e-9, 2.0, 0.0) == "FASTER"
    assert verdict(0.5, 1 / band, 0.0) == "SAME" and verdict(0.5, 1 / band - 1e-9, 0.0) == "SLOWER"


def test_a_batch_strategy_compares_one_time_per_call_unpaired():
    """Two batches of two sources: two call times a side, too few for a verdict, though
    four samples a side would be enough."""
    from gpubfs_cli.report.compare import compare_cell
    from gpubfs_cli.results.groups import group_samples

    def group(t):
        samples = [sample("g", "msbfs.bfs", s, t) for s in range(4)]
        for s in samples:
            s.batch = 2
        return group_samples(samples)[0]

    c, data = compare_cell(group(1.0), group(3.0), None)
    assert data["paired"] is False and data["samples"] == [2, 2] and "(too few samples)" in c.text, data


def test_a_zero_time_in_b_is_not_a_ratio():
    c, data, _ = cell(doc_of(FOUR | {"cpu.sequential": SLOW["merrill.hybrid"]}),
                      doc_of({"merrill.hybrid": [0.0, 1.0, 1.0, 1.0], "cpu.sequential": SLOW["merrill.hybrid"]}))
    assert (c.text, c.status, c.reason, data["ratio"]) == ("n/a: a zero time", "n/a", "a zero time", None)


def batch_doc(call_ms: list[float], one_ms: float = 10.0) -> dict:
    """cpu.sequential one source a call, and msbfs.bfs answering two sources a call (each
    call's time per source given), over eight sources."""
    samples = [sample("g", "cpu.sequential", s, one_ms + s / 10) for s in range(8)]
    for i, t in enumerate(call_ms):
        for s in (2 * i, 2 * i + 1):
            x = sample("g", "msbfs.bfs", s, t)
            x.batch = 2
            samples.append(x)
    doc = document(samples, DS)
    doc["sources"] = {"g": list(range(8))}
    return doc


def test_batch_strategies_are_compared_in_a_table_of_their_own(tmp_path):
    """Both files hold a batch strategy's samples: it is compared (its calls, unpaired),
    in its own table beside the one-source strategies', never left out."""
    a, b = batch_doc([2.0, 2.1, 1.9, 2.0]), batch_doc([1.0, 1.05, 0.95, 1.0])
    d = compare(results_from_doc(a, "a.json"), results_from_doc(b, "b.json"))
    assert [t.id for t in d.tables] == ["compare", "compare-batch"]
    one, batch = d.tables
    assert one.columns == ["dataset", "cpu.sequential"]
    assert batch.columns == ["dataset", "msbfs.bfs (batches of 2)"]
    assert batch.title.startswith("batch strategies, time per source: B vs A")
    cell = batch.rows[0][1]
    assert cell.text.startswith("2.000x FASTER"), cell.text
    data = next(c for c in d.data["cells"] if c["strategy"] == "msbfs.bfs")
    assert data["batch"] is True and data["samples"] == [4, 4] and data["paired"] is False  # calls, not sources
    assert d.data["verdicts"] == {"SAME": 1, "FASTER": 1, "SLOWER": 0}
    paths = [tmp_path / "a.json", tmp_path / "b.json"]
    for p, doc in zip(paths, (a, b), strict=True):
        p.write_text(json.dumps(doc))
    r = CliRunner().invoke(app, ["report", "--compare", *map(str, paths), "--format", "md"])
    assert r.exit_code == 0, r.output
    assert "| dataset | msbfs.bfs (batches of 2) |" in r.stdout and "| g | 2.000x FASTER" in r.stdout


def test_a_batch_strategy_on_one_side_only_is_missing_not_dropped():
    a = batch_doc([2.0, 2.1, 1.9, 2.0])
    b = dict(a, samples=[s for s in a["samples"] if s["strategy"] != "msbfs.bfs"])
    d = compare(results_from_doc(a, "a.json"), results_from_doc(b, "b.json"))
    batch = next(t for t in d.tables if t.id == "compare-batch")
    assert batch.rows[0][1].text == "missing"
