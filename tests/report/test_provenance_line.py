"""The report's one line per file names its provenance where the file records it (code
commit, dirty, tree; GPU UUIDs, driver, CUDA), and reads as before where it does not."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from typer.testing import CliRunner

from gpubfs_cli.cli import app
from gpubfs_cli.report.load import describe_environment, load_many, shown_path

RESULTS = Path(__file__).parents[2] / "docs" / "results"

NEW = {
    "code": {"commit": "285e4779f51e0c6275f58a05a8e6e06d0dcfc117", "tree": "1016b037e3250f8f664b48595d424c4dc68503a7",
             "dirty": True},
    "cpu": {"model": "Intel(R) Xeon(R) Processor", "cores": 32},
    "gpu": {"available": True, "index": 0, "name": "NVIDIA H200", "runtime_version": 12080,
            "uuid": "GPU-5f1c2a9e-aaaa-bbbb-cccc-ddddeeeeffff", "driver": "570.124.06"},
    "gpus": [{"index": i, "name": "NVIDIA H200", "runtime_version": 12080, "driver": "570.124.06",
              "uuid": f"GPU-{u}-aaaa-bbbb-cccc-ddddeeeeffff"} for i, u in enumerate(("5f1c2a9e", "0b4d77aa"))],
}


def test_a_file_with_provenance_says_it_in_its_line():
    assert describe_environment(NEW) == (
        "GPU NVIDIA H200 (GPU-5f1c2a9e, GPU-0b4d77aa), driver 570.124.06, CUDA 12.8, "
        "CPU Intel(R) Xeon(R) Processor, code 285e4779+dirty (tree 1016b037)")


def test_only_what_was_recorded_is_shown():
    clean = {**NEW, "code": {**NEW["code"], "dirty": False}, "gpus": NEW["gpus"][:1]}
    assert describe_environment(clean).endswith("(GPU-5f1c2a9e), driver 570.124.06, CUDA 12.8, "
                                                "CPU Intel(R) Xeon(R) Processor, code 285e4779 (tree 1016b037)")
    unread = {**NEW, "gpu": {"name": "NVIDIA H200"}, "gpus": [{"index": 0, "name": "NVIDIA H200", "uuid": None,
                                                               "identity_reason": "no NVML"}]}
    assert describe_environment(unread).startswith("GPU NVIDIA H200, CPU ")
    no_git = {"code": {"commit": None, "tree": None, "dirty": None},
              "gpu": {"available": False, "reason": "no CUDA device found"}, "cpu": {"model": "AMD EPYC"}}
    assert describe_environment(no_git) == ("no GPU (no CUDA device found), CPU AMD EPYC, "
                                            "code unknown (not a git checkout)")


def test_files_without_provenance_read_as_before():
    old = {k: v for k, v in NEW.items() if k != "code"}
    assert describe_environment(old) == "GPU NVIDIA H200, CPU Intel(R) Xeon(R) Processor"
    shipped = RESULTS / "h200x2-2026-11-26" / "mgpu-levels.json.gz"
    line = load_many([shipped]).machine_lines()[0]
    assert line.startswith(f"{shown_path(shipped)}: GPU NVIDIA H200, CPU Intel(R) Xeon(R) Processor; L2 warm")


def test_the_report_prints_one_line_per_file(tmp_path):
    raw = json.loads(gzip.decompress((RESULTS / "h200x2-2026-11-26" / "mgpu-levels.json.gz").read_bytes()))
    raw["environment"].update(code=NEW["code"], gpus=[dict(g, runtime_version=13020) for g in NEW["gpus"]],
                              gpu=dict(raw["environment"]["gpu"], uuid=NEW["gpu"]["uuid"], driver="580.65.06"))
    new = tmp_path / "new.json"
    new.write_text(json.dumps(raw))
    r = CliRunner().invoke(app, ["report", "--format", "md", str(new)])
    assert r.exit_code == 0, r.output
    lines = [line for line in r.stdout.splitlines() if line.startswith(f"- {shown_path(new)}:")]
    assert lines == [f"- {shown_path(new)}: GPU NVIDIA H200 (GPU-5f1c2a9e, GPU-0b4d77aa), driver 580.65.06, CUDA 13.2, "
                     f"CPU Intel(R) Xeon(R) Processor, code 285e4779+dirty (tree 1016b037); "
                     + lines[0].split("; ", 1)[1]]
