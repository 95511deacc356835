"""tests/gpu/region_counts.py: the region-local strategies' work counted on the CUDA emulator,
each answer checked first; bad input is one line and exit status 2."""

from __future__ import annotations

import numpy as np
import pytest

from gpubfs_cli.algorithms.sssp.cpu.dijkstra import dijkstra
from gpubfs_cli.core.answer import Answer
from gpubfs_cli.errors import UserError
from tests.gpu import region_counts as rc


def _grid_file(path, side: int = 12) -> None:
    """A side x side lattice as DIMACS9, both arc directions, weights 1-9."""
    rng = np.random.default_rng(3)
    arcs = []
    for r in range(side):
        for c in range(side):
            v = r * side + c
            for u in ((v + 1) if c + 1 < side else None, (v + side) if r + 1 < side else None):
                if u is not None:
                    w = int(rng.integers(1, 10))
                    arcs += [(v, u, w), (u, v, w)]
    lines = [f"p sp {side * side} {len(arcs)}", *(f"a {a + 1} {b + 1} {w}" for a, b, w in arcs)]
    path.write_text("\n".join(lines) + "\n")


@pytest.mark.parametrize("problem", ["bfs", "sssp"])
def test_counts_each_knob_set_from_each_source_with_medians(tmp_path, capsys, problem):
    f = tmp_path / "grid.gr"
    _grid_file(f)
    code = rc.main([str(f), "--format", "dimacs9", "--problem", problem, "--sms", "4", "--sources", "0", "77",
                    "--knobs", '{"region_size": 32}', '{"region_size": 32, "absorb": 1}'])
    assert code == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"{rc.NAMES[problem]} on grid.gr (144 vertices, 528 edges), 4 emulated SMs")
    rows = [line.split() for line in out[2:]]
    assert [r[-5] for r in rows] == ["0", "77", "median"] * 2
    plain, absorbing = rows[:3], rows[3:]
    assert all(r[-1] in ("0", "0.0") for r in plain)  # absorbed: none without the knob
    for r in rows[:2] + rows[3:5]:
        runs, steps, pushes = (int(x.replace(",", "")) for x in r[-4:-1])
        assert runs == pushes >= 1 and steps >= 1
    assert float(absorbing[2][-4].replace(",", "")) >= 1


@pytest.mark.parametrize(("args", "words"), [
    (["--knobs", "{absorb"], "--knobs '{absorb': expected a JSON object"),
    (["--knobs", "[1]"], "expected a JSON object such as"),
    (["--knobs", '{"absorb": 2}'], "absorb: expected one of 0, 1"),
    (["--sources", "144"], "--sources 144: expected a vertex from 0 to 143"),
])
def test_bad_input_is_one_line(tmp_path, capsys, args, words):
    f = tmp_path / "grid.gr"
    _grid_file(f)
    assert rc.main([str(f), "--format", "dimacs9", "--problem", "bfs", *args]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and words in captured.err and len(captured.err.splitlines()) == 1


def test_a_file_needs_its_format(tmp_path, capsys):
    f = tmp_path / "grid.gr"
    _grid_file(f)
    assert rc.main([str(f), "--problem", "sssp"]) == 2
    assert "needs --format" in capsys.readouterr().err


def test_a_wrong_answer_is_refused(tmp_path):
    f = tmp_path / "grid.gr"
    _grid_file(f)
    g = rc.load(str(f), "dimacs9", "sssp", None)
    right = dijkstra(g, 0).distances
    rc.check("sssp", g, 0, Answer(right, None, {}))  # the reference's own answer passes
    wrong = right.copy()
    wrong[5] += 1
    with pytest.raises(UserError, match="distances differ"):
        rc.check("sssp", g, 0, Answer(wrong, None, {}))
