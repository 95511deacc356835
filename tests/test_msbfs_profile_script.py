"""scripts/device/msbfs_profile.py on a results file written as a run writes it: the
per-level table of an msbfs.bfs sample with counters, its floor at the bandwidth asked,
and a file without such a sample refused."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from gpubfs_cli.results.schema import SCHEMA_VERSION, write_results

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts" / "device"))
import msbfs_profile  # noqa: E402


def results(tmp_path, counters: dict, knobs: dict | None = None) -> Path:
    sample = {"dataset": "g", "strategy": "msbfs.bfs", "knobs": knobs or {"profile": True}, "source": 7,
              "time_ms": 0.5, "batch": 4, "counters": counters}
    plain = {**sample, "strategy": "do.bfs", "counters": {"levels": 3}}
    return write_results(tmp_path / "r.json", {"schema_version": SCHEMA_VERSION, "samples": [plain, sample],
                                               "datasets": {}, "sources": {}})


PASS = {"levels": 3, "pass_levels": 3, "bottom_up_levels": 1, "batch": 4,
        "direction": np.array([0, 1, 0]), "frontier": np.array([4, 100, 7]),
        "vertices_examined": np.array([4, 900, 7]), "edges_examined": np.array([50, 250_000, 30]),
        "labels": np.array([120, 3000, 0]), "profile": np.array([0, 8000, 10000, 16000, 17000])}


def test_the_table_has_every_level_and_its_floor(tmp_path, capsys):
    assert msbfs_profile.main(["--tbps", "2", str(results(tmp_path, PASS))]) == 0
    out = capsys.readouterr().out.splitlines()
    assert "a batch of 4, 2.000 ms a call, levels 3, bottom-up 1, sets of 1 word)" in out[1]
    level1 = out[4].split()
    # 250,000 edges * 12 + 3,000 labels * 4 = 3,012,000 bytes: 1.506 us at 2 TB/s
    assert level1 == ["1", "bottom-up", "100", "6.0", "900", "250000", "3000", "3.01", "1.5"]
    assert "  set-up: 8.0 us" in out
    assert "  bottom-up: 6.0 us, floor 1.5 us at 2 TB/s" in out
    assert any(line.startswith("  top-down: 3.0 us, floor") for line in out)


def test_a_wide_pass_reads_its_sets_words(tmp_path, capsys):
    """width 200 takes the 4-word build, even for a batch of 4: 32 bytes of frontier set an edge."""
    assert msbfs_profile.main(["--tbps", "2", str(results(tmp_path, PASS, {"width": 200, "profile": True}))]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[1].endswith("bottom-up 1, sets of 4 words)")
    # 250,000 edges * (4 + 32) + 3,000 labels * 4 = 9,012,000 bytes: 4.506 us at 2 TB/s
    assert out[4].split()[-2:] == ["9.01", "4.5"]


def test_without_profile_the_time_is_left_out(tmp_path, capsys):
    counted = {k: v for k, v in PASS.items() if k != "profile"}
    assert msbfs_profile.main([str(results(tmp_path, counted))]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[4].split()[3] == "-" and not any("set-up" in line for line in out)
    assert any(line.startswith("  bottom-up: floor 1.0 us at 3 TB/s") for line in out)


def test_a_file_without_counters_is_refused(tmp_path, capsys):
    plain = {k: v for k, v in PASS.items() if k in ("levels", "pass_levels", "bottom_up_levels", "batch")}
    assert msbfs_profile.main([str(results(tmp_path, plain))]) == 1
    assert "no msbfs.bfs sample with per-level counters" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        msbfs_profile.main(["--tbps", "0", str(results(tmp_path, PASS))])
