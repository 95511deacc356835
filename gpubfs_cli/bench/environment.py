"""The machine a run happened on, recorded in every results file and shown by `gpubfs info`.

CPU model and cores, memory, OS, Python and package versions, the GPU (or why none is
usable), the git commit of this checkout, and the command line. Nothing here may
fail a run: every probe degrades to "unknown".
"""

from __future__ import annotations

import os
import platform
import shlex
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import gpubfs_cli

PACKAGES = ("numpy", "scipy", "numba", "networkx", "typer", "rich", "pyyaml")
CUPY_DISTRIBUTIONS = ("cupy-cuda13x", "cupy-cuda12x", "cupy")


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown"


def memory_bytes() -> int | None:
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        return None


def package_versions() -> dict[str, str | None]:
    versions: dict[str, str | None] = {}
    for name in PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    versions["cupy"] = None
    for dist in CUPY_DISTRIBUTIONS:
        try:
            versions["cupy"] = f"{metadata.version(dist)} ({dist})"
            break
        except metadata.PackageNotFoundError:
            continue
    return versions


def git_commit() -> str | None:
    """HEAD of the checkout this package runs from, '+dirty' when files changed."""
    root = Path(gpubfs_cli.__file__).resolve().parents[1]
    if not (root / ".git").exists():
        return None
    try:
        head = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "HEAD"],
            capture_output=True, text=True, timeout=10, check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True, text=True, timeout=10, check=True,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return f"{head}+dirty" if dirty else head


def gpus_info() -> list[dict]:
    """device_properties() of every usable GPU, else [] (gpu_info says why)."""
    from gpubfs_cli.gpu import backend

    if backend.unavailable_reason() is not None:
        return []
    try:
        return [{"available": True, **p} for p in backend.all_device_properties()]
    except Exception:  # a driver that imports but cannot be queried
        return []


def gpu_info(gpus: list[dict] | None = None) -> dict:
    """The first GPU's properties when one is usable, else {'available': False, 'reason': ...}."""
    from gpubfs_cli.gpu import backend

    reason = backend.unavailable_reason()
    if reason is not None:
        return {"available": False, "reason": reason}
    gpus = gpus_info() if gpus is None else gpus
    if not gpus:
        return {"available": False, "reason": "device query failed"}
    return dict(gpus[0])


def collect_environment(argv: list[str] | None = None) -> dict:
    argv = list(sys.argv if argv is None else argv)
    gpus = gpus_info()
    if argv and Path(argv[0]).name in ("gpubfs", "__main__.py"):
        argv[0] = "gpubfs"  # the console script or python -m gpubfs_cli
    return {
        "tool_version": gpubfs_cli.__version__,
        "git_commit": git_commit(),
        "command_line": shlex.join(argv),
        "cpu": {"model": cpu_model(), "cores": os.cpu_count()},
        "memory_bytes": memory_bytes(),
        "os": platform.platform(),
        "python": platform.python_version(),
        "versions": package_versions(),
        "gpu": gpu_info(gpus),
        "gpus": gpus,
    }


def describe_lines(env: dict) -> list[str]:
    """`gpubfs info` as text lines: the GPU first, plainly saying when none is usable."""
    gpu = env.get("gpu") or {}
    lines = []
    if gpu.get("available"):
        for g in env.get("gpus") or [gpu]:
            mem = g.get("memory_bytes") or 0
            lines.append(
                f"GPU {g.get('index', 0)}:   {g.get('name')}, {mem / 2**30:.1f} GiB, {g.get('sm_count')} SMs, "
                f"compute capability {g.get('compute_capability')}"
            )
        lines.append(
            f"CUDA:    driver {_cuda_version(gpu.get('driver_version'))}, "
            f"runtime {_cuda_version(gpu.get('runtime_version'))}, CuPy {gpu.get('cupy_version')}"
        )
    else:
        lines.append(f"GPU:     none usable: {gpu.get('reason', 'unknown')}")
        lines.append("         GPU strategies will be reported as unavailable; CPU rows still run.")
    cpu = env.get("cpu") or {}
    mem = env.get("memory_bytes")
    lines.append(f"CPU:     {cpu.get('model')} ({cpu.get('cores')} logical cores)")
    lines.append(f"memory:  {mem / 2**30:.1f} GiB" if mem else "memory:  unknown")
    lines.append(f"OS:      {env.get('os')}")
    lines.append(f"Python:  {env.get('python')}")
    versions = env.get("versions") or {}
    lines.append("packages: " + ", ".join(f"{k} {v or 'not installed'}" for k, v in versions.items()))
    lines.append(f"gpubfs:  {env.get('tool_version')} (git {env.get('git_commit') or 'unknown'})")
    return lines


def _cuda_version(v) -> str:
    """CUDA's integer encoding (12040) as 12.4."""
    if not isinstance(v, int) or v <= 0:
        return "unknown"
    return f"{v // 1000}.{(v % 1000) // 10}"
