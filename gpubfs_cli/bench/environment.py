"""The machine a run happened on, recorded in every results file and shown by `gpubfs info`.

CPU model and cores, memory, OS, Python and package versions, the GPU (or why none is
usable), the git commit of this checkout and the git tree id of the package as it is on
disk, and the command line. Nothing here may fail a run: every probe degrades to
"unknown", or to the reason it could not be read.

Provenance, so that a number can be traced to the code, the GPUs and the binaries that
made it (collect_environment at the run's start, run_end at its end; the runner merges
the end into the document with apply_end):
  code         {commit, tree, dirty} (bench/code.py): HEAD, the package's tree id as on
               disk (the `source_tree` resume compares) and whether it differs from HEAD's
  gpus[i]      each GPU's properties plus uuid and driver (the driver's version string),
               or identity_reason when neither NVML nor nvidia-smi could say
  gpu_clocks   {start: [...], end: [...]}: per GPU, its clocks, temperature and clock
               event (throttle) reasons as the run began and as it finished; {reason}
               without a GPU
  topology     (two GPUs or more) `nvidia-smi topo -m` as text, else NVML's P2P status
  nccl_version (where a multi-GPU strategy ran and CuPy's NCCL imports)
  nccl_env     (where a multi-GPU strategy ran) every NCCL_* environment variable set, which
               can change NCCL's transport (NCCL_P2P_DISABLE, NCCL_SHM_DISABLE, ...)
  peers        [{strategy, problem, path, size, sha256}] of each peer binary the run
               prepared (a strategy's peer_binaries(knobs); bench/code.file_facts); none
               has a version query cheap and safe to run, so the hash is their identity
  end_reason   (only where the end could not be read) why not
"""

from __future__ import annotations

import os
import platform
import shlex
import sys
from importlib import metadata
from pathlib import Path

import gpubfs_cli
from gpubfs_cli.bench import code
from gpubfs_cli.core.device import Device

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


def _device(g) -> Device | None:
    """The GPU a `gpus` entry names by its CUDA index, or None."""
    index = g.get("index") if isinstance(g, dict) else None
    return Device("gpu", index) if isinstance(index, int) and not isinstance(index, bool) else None


def _read(device: Device, read_clocks, read_state) -> tuple[dict, dict | None, str | None]:
    """(the GPU's reading entry, its state or None, why no state)."""
    from gpubfs_cli.gpu import clocks

    reading, why_clocks = clocks.reading_or_reason(read_clocks or clocks.default_reader(), device)
    state, why_state = clocks.state_or_reason(read_state or clocks.default_state_reader(), device)
    got = state or {}
    if reading is None and "sm_mhz" in got:  # nvidia-smi's state answer has the clocks
        why_clocks = None
    entry = {"device": str(device), "uuid": got.get("uuid"),
             **{k: got[k] for k in ("sm_mhz", "mem_mhz") if k in got}, **(reading or {})}
    entry.setdefault("via", got.get("via"))
    entry["throttle_mask"] = got.get("throttle_mask")
    entry["throttle_reasons"] = got.get("throttle_reasons")
    whys = dict.fromkeys(w for w in (why_clocks, why_state, got.get("throttle_reason")) if w)  # NVML down: once
    entry["reason"] = "; ".join(whys) or None
    return entry, state, why_state


def gpu_readings(gpus: list, read_clocks=None, read_state=None) -> list[dict]:
    """One entry per GPU of `gpus`: {device, uuid, sm_mhz, mem_mhz, temperature_c, via,
    throttle_mask, throttle_reasons, reason}: what could be read, and why the rest could
    not. The clocks come from gpu/clocks' reader (the one around each group of samples),
    the rest from its state reader (default: NVML, else nvidia-smi)."""
    return [_read(d, read_clocks, read_state)[0] for d in map(_device, gpus) if d is not None]


def collect_environment(argv: list[str] | None = None, read_clocks=None, read_state=None) -> dict:
    """The machine and code of a run as it begins (read_clocks, read_state: gpu/clocks
    readers; default NVML, else nvidia-smi)."""
    argv = list(sys.argv if argv is None else argv)
    gpus = gpus_info()
    if argv and Path(argv[0]).name in ("gpubfs", "__main__.py"):
        argv[0] = "gpubfs"  # the console script or python -m gpubfs_cli
    identity = code.code_identity()
    gpu = gpu_info(gpus)
    env = {
        "tool_version": gpubfs_cli.__version__,
        "git_commit": code.git_commit(),
        "source_tree": identity["tree"],
        "code": identity,
        "command_line": shlex.join(argv),
        "cpu": {"model": cpu_model(), "cores": os.cpu_count()},
        "memory_bytes": memory_bytes(),
        "os": platform.platform(),
        "python": platform.python_version(),
        "versions": package_versions(),
    }
    if gpus:
        start, identified = [], []
        for g in gpus:
            entry, state, why = _read(_device(g), read_clocks, read_state)
            start.append(entry)
            identity = {"uuid": state.get("uuid"), "driver": state.get("driver")} if state else \
                {"uuid": None, "driver": None, "identity_reason": why}
            identified.append({**g, **identity})
        gpus, gpu = identified, dict(identified[0])
        env["gpu_clocks"] = {"start": start}
        if len(gpus) > 1:
            from gpubfs_cli.gpu.clocks import read_topology

            env["topology"] = read_topology([_device(g) for g in gpus])
    else:
        env["gpu_clocks"] = {"reason": f"no GPU ({gpu.get('reason', 'unknown')})"}
    return {**env, "gpu": gpu, "gpus": gpus}


def run_end(environment: dict, *, read_clocks=None, read_state=None, multi_gpu: bool = False,
            peers: list[tuple[str, str, list]] = ()) -> dict:
    """What a run records of its machine as it finishes, apart from its start: each GPU's
    clocks and state again (`gpu_clocks_end`), NCCL's version where a multi-GPU strategy
    ran, and each peer binary it prepared ((strategy, problem, paths) -> `peers`). Keys
    only where there is something to say; apply_end merges it into the environment."""
    end: dict = {}
    gpus = environment.get("gpus") if isinstance(environment.get("gpus"), list) else []
    if any(_device(g) for g in gpus):
        end["gpu_clocks_end"] = gpu_readings(gpus, read_clocks, read_state)
    if multi_gpu:
        from gpubfs_cli.gpu.clocks import nccl_version

        version = nccl_version()
        if version is not None:
            end["nccl_version"] = version
        end["nccl_env"] = {k: v for k, v in sorted(os.environ.items()) if k.startswith("NCCL_")}
    seen = set()
    for strategy, problem, paths in peers:
        for path in paths:
            if (strategy, problem, str(path)) not in seen:
                seen.add((strategy, problem, str(path)))
                end.setdefault("peers", []).append({"strategy": strategy, "problem": problem, **code.file_facts(path)})
    return end


def apply_end(environment: dict, end: dict) -> None:
    """run_end's record merged into a results document's environment."""
    if "gpu_clocks_end" in end:
        clocks = environment.get("gpu_clocks")
        environment["gpu_clocks"] = {**(clocks if isinstance(clocks, dict) else {}), "end": end["gpu_clocks_end"]}
    for key in ("nccl_version", "nccl_env", "peers"):
        if key in end:
            environment[key] = end[key]
    if end.get("reason"):  # the end could not be read
        environment["end_reason"] = end["reason"]


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
