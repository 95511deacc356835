"""scripts/device/check.sh's `generalize` part holds auto.bfs to graphs its decision table
was not built from: each held-out name is a catalogue graph, at a generator seed or a size
that no rule of the shipped table measured, and the part draws sources of another seed
than the table's runs (0)."""

from __future__ import annotations

import re
from pathlib import Path

from gpubfs_cli.algorithms.bfs.gpu.auto.table import load_table
from gpubfs_cli.datasets.catalogue import load_catalogue

CHECK = Path(__file__).resolve().parents[1] / "scripts" / "device" / "check.sh"


def _heldout() -> list[str]:
    found = re.search(r"^HELDOUT=\$\{HELDOUT:-(\S+)\}$", CHECK.read_text(), re.M)
    assert found, "check.sh: no HELDOUT= list"
    return found.group(1).split(",")


def test_no_held_out_graph_is_one_the_table_was_built_from():
    rules = {r.graph for r in load_table().rules}
    catalogue = load_catalogue()
    names = _heldout()
    assert len(names) == len(set(names)) >= 10
    for name in names:
        base, _, seed = name.partition("@seed=")
        entry = catalogue.get(base)  # a catalogue graph (an unknown name raises)
        assert name not in rules, name
        if seed:
            assert entry.kind == "generated" and int(seed) != (entry.seed or 0), name  # another graph than its rule's
        else:
            assert base not in rules, name
    assert "USA-road-d.NY" in names  # a real graph, of a shape no generator gives


def test_the_part_runs_them_from_sources_of_another_seed():
    part = re.search(r"^\s+generalize\) .*?;;$", CHECK.read_text(), re.M | re.S)
    assert part, "check.sh: no generalize part"
    assert '-d "$HELDOUT" --seed 1' in part.group(0) and "build_auto_table.py --check" in part.group(0)
