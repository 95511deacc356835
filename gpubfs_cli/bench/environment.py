"""The machine a run happened on, recorded in every results file and shown by `gpubfs info`.

CPU model and cores, memory, OS, Python and package versions, the GPU (or why none is
usable), the git commit of this checkout and the git tree id of the package as it is on
disk, and the command line. Nothing here may fail a run: every probe degrades to
"unknown".
"""

from __future__ import annotations

import hashlib
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


def source_tree(root: Path | None = None, folder: str = "gpubfs_cli") -> str | None:
    """The git tree id of `folder` as it is on disk (its tracked files and the new ones git
    does not ignore), hashed as `git write-tree` would, writing nothing. It equals `git
    rev-parse COMMIT:gpubfs_cli` for the commit whose package ran, also where git_commit
    reads '+dirty' (changes on top of the checkout's HEAD)."""
    root = Path(gpubfs_cli.__file__).resolve().parents[1] if root is None else Path(root)
    if not (root / ".git").exists():
        return None
    try:
        listed = subprocess.run(
            ["git", "-C", str(root), "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", folder],
            capture_output=True, timeout=10, check=True,
        ).stdout
        tree: dict = {}
        for path in sorted(set(listed.decode().split("\0")) - {""}):
            full = root / path
            if not (full.is_file() or full.is_symlink()):
                continue  # tracked but deleted on disk
            *dirs, name = Path(path).relative_to(folder).parts
            node = tree
            for d in dirs:
                node = node.setdefault(d, {})
            node[name] = full
        return _tree_id(tree) if tree else None
    except (OSError, subprocess.SubprocessError, UnicodeDecodeError, ValueError):
        return None


def _object_id(kind: str, body: bytes) -> bytes:
    return hashlib.sha1(f"{kind} {len(body)}\0".encode() + body).digest()


def _tree_id(tree: dict) -> str:
    """A git tree object's id from {name: Path | subtree}: entries in git's order (a
    folder sorts as its name + '/'), each `mode name\\0` and its object's binary id."""
    def entry(name: str, item) -> tuple[bytes, bytes, bytes]:
        if isinstance(item, dict):
            return name.encode() + b"/", b"40000", bytes.fromhex(_tree_id(item))
        if item.is_symlink():
            return name.encode(), b"120000", _object_id("blob", os.readlink(item).encode())
        mode = b"100755" if os.access(item, os.X_OK) else b"100644"
        return name.encode(), mode, _object_id("blob", item.read_bytes())

    body = b"".join(mode + b" " + key.rstrip(b"/") + b"\0" + oid
                    for key, mode, oid in sorted(entry(n, i) for n, i in tree.items()))
    return _object_id("tree", body).hex()


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
        "source_tree": source_tree(),
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
    tree = f", package tree {env['source_tree']}" if env.get("source_tree") else ""
    lines.append(f"gpubfs:  {env.get('tool_version')} (git {env.get('git_commit') or 'unknown'}{tree})")
    return lines


def _cuda_version(v) -> str:
    """CUDA's integer encoding (12040) as 12.4."""
    if not isinstance(v, int) or v <= 0:
        return "unknown"
    return f"{v // 1000}.{(v % 1000) // 10}"
