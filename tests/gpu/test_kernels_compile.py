"""Every kernel file of the package compiles with nvcc for sm_90 with the options the
runtime uses (gpu/modules.compile_options: common list, the file's folder, defines; no
-rdc, except builds that launch kernels from kernels), for each set of defines a strategy
compiles it with. No GPU needed.

A family's launcher module names its file as `KERNELS` and, when it compiles it with
-D defines, lists every set it asks for as `KERNEL_DEFINES` (a list of dicts).

Each build is compiled once, with -Xptxas -warn-spills: any warning fails it, and so does
a register spill, unless the build is a known exception in KNOWN_SPILLS whose spill bytes
have not grown (a build that stops spilling fails too, asking to drop its exception).
Compiles are kept in tests/build_cache.py's cache, shared by the xdist workers."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from gpubfs_cli.core.problem import ALGORITHMS, discover
from gpubfs_cli.gpu.modules import INCLUDE_DIR, compile_options, kernel_files
from tests import build_cache
from tests.tools import require_tool


def launchers() -> list:
    """Every algorithm module that names a kernel file (KERNELS)."""
    discover()
    return [m for name, m in sorted(sys.modules.items())
            if name.startswith(ALGORITHMS + ".") and getattr(m, "KERNELS", None) is not None]


def builds() -> list[tuple]:
    """(file, defines) for every build a launcher asks for; files no launcher names
    still compile once without defines (and fail the launcher test below)."""
    sets: dict = {}
    for m in launchers():
        sets.setdefault(m.KERNELS.resolve(), []).extend(getattr(m, "KERNEL_DEFINES", None) or [{}])
    out = []
    for p in kernel_files():
        unique = {tuple(sorted(d.items())): d for d in sets.get(p.resolve(), [{}])}
        out += [(p, d) for d in unique.values()]
    return out


BUILDS = builds()


def build_id(path, defines) -> str:
    return path.name + "".join(f" {k}={v}" for k, v in sorted(defines.items()))


BUILD_IDS = [build_id(p, d) for p, d in BUILDS]

# Builds that spill today (nvcc 13.0, sm_90, no -rdc): spill store + load bytes summed over
# the build's kernels, as ptxas -warn-spills reports them. lbbfs caps registers (its
# MIN_BLOCKS launch bounds: 64 registers at 256 x 4) and spills the most with big tiles;
# merrill's 1024-thread build is capped at 64 registers too.
KNOWN_SPILLS = {
    # (the BFS4K_DP=1 builds launch child kernels: compiled with -rdc, as the runtime does)
    "bfs4k.cu BFS4K_DP=1 BFS4K_K6=64": 176,
    "bfs4k.cu BFS4K_DP=1 BFS4K_K6=128": 176,
    "bfs4k.cu BFS4K_DP=1 BFS4K_K6=256": 176,
    # do: the 512- and 1024-thread builds (cta_size, not the default 256) at 64
    # registers, since the hub pass and the batched bottom-up probes: up to 32 bytes in
    # the timed instantiations, more in the counters ones (STATS); the 128- and
    # 256-thread builds spill nothing (the frontier through L1 by default, BU_FRONT_L1),
    # nor does any probe_batch build.
    "do.cu BU_FRONT_L1=1 DO_BLOCK=512 DO_MIN_BLOCKS=2": 112,
    "do.cu BU_FRONT_L1=1 DO_BLOCK=512 DO_MIN_BLOCKS=2 DO_OFFSET64=1": 222,
    "do.cu BU_FRONT_L1=1 DO_BLOCK=1024 DO_MIN_BLOCKS=1 DO_OFFSET64=1": 194,
    "lbbfs.cu LBBFS_CTA=128 LBBFS_MIN_BLOCKS=8 LBBFS_TILE=512": 680,
    "lbbfs.cu LBBFS_CTA=128 LBBFS_MIN_BLOCKS=8 LBBFS_TILE=1024": 2392,
    "lbbfs.cu LBBFS_CTA=128 LBBFS_MIN_BLOCKS=8 LBBFS_TILE=2048": 13824,
    "lbbfs.cu LBBFS_CTA=256 LBBFS_MIN_BLOCKS=4 LBBFS_TILE=512": 424,
    "lbbfs.cu LBBFS_CTA=256 LBBFS_MIN_BLOCKS=4 LBBFS_TILE=1024": 680,
    "lbbfs.cu LBBFS_CTA=256 LBBFS_MIN_BLOCKS=4 LBBFS_TILE=2048": 2392,
    "lbbfs.cu LBBFS_CTA=512 LBBFS_MIN_BLOCKS=2 LBBFS_TILE=512": 148,
    "lbbfs.cu LBBFS_CTA=512 LBBFS_MIN_BLOCKS=2 LBBFS_TILE=1024": 424,
    "lbbfs.cu LBBFS_CTA=512 LBBFS_MIN_BLOCKS=2 LBBFS_TILE=2048": 680,
    "luo.cu": 48,
    # msbfs: only the 64-bit offset builds. Since the hub pass, their counting
    # instantiations (STATS) spill 214-258 bytes each (24 more each since the source
    # sets became a type of 1, 2 or 4 words, when the 1024-thread build's timed
    # msbfs_bfs<false, false> stopped spilling its 90); the timed instantiations and
    # every 32-bit build of 64 sources spill nothing.
    "msbfs.cu MSBFS_BLOCK=128 MSBFS_MIN_BLOCKS=8 MSBFS_OFFSET64=1": 440,
    "msbfs.cu MSBFS_BLOCK=256 MSBFS_MIN_BLOCKS=4 MSBFS_OFFSET64=1": 440,
    "msbfs.cu MSBFS_BLOCK=512 MSBFS_MIN_BLOCKS=2 MSBFS_OFFSET64=1": 440,
    "msbfs.cu MSBFS_BLOCK=1024 MSBFS_MIN_BLOCKS=1 MSBFS_OFFSET64=1": 504,
    # msbfs's wider source sets (128 sources at 768 threads an SM, 256 at 512): the
    # 32-bit 128-source build spills nothing; the 256-source build's instantiations with
    # parents 88 bytes (counting) and 106 (timed: a run that asks for parents; 8 more each
    # since the labels' set-up stores 16 bytes at once); the 64-bit
    # builds more, in STATS mostly. Their timed msbfs_bfs<false, false> spills nothing.
    "msbfs.cu MSBFS_BLOCK=256 MSBFS_MIN_BLOCKS=3 MSBFS_OFFSET64=1 MSBFS_WORDS=2": 146,
    "msbfs.cu MSBFS_BLOCK=256 MSBFS_MIN_BLOCKS=2 MSBFS_WORDS=4": 194,
    "msbfs.cu MSBFS_BLOCK=256 MSBFS_MIN_BLOCKS=2 MSBFS_OFFSET64=1 MSBFS_WORDS=4": 500,
    # msbfs's probe_batch builds other than the default 4: the 64-bit ones spill as the
    # default 64-bit build does, the 32-bit batch of 1 58 bytes in a counting
    # instantiation (since the bottom-up hub pass); batch 8 holds 8 frontier words a lane
    # and spills in both, its timed msbfs_bfs<false, false> nothing
    "msbfs.cu BU_BATCH=1 MSBFS_BLOCK=256 MSBFS_MIN_BLOCKS=4 MSBFS_OFFSET64=1": 440,
    "msbfs.cu BU_BATCH=2 MSBFS_BLOCK=256 MSBFS_MIN_BLOCKS=4 MSBFS_OFFSET64=1": 440,
    "msbfs.cu BU_BATCH=1 MSBFS_BLOCK=256 MSBFS_MIN_BLOCKS=4": 58,
    "msbfs.cu BU_BATCH=8 MSBFS_BLOCK=256 MSBFS_MIN_BLOCKS=4": 436,
    "msbfs.cu BU_BATCH=8 MSBFS_BLOCK=256 MSBFS_MIN_BLOCKS=4 MSBFS_OFFSET64=1": 1056,
    # msbfs's frontier_cache l1 build: its 64-bit one spills as the default 64-bit build does
    "msbfs.cu BU_FRONT_L1=1 MSBFS_BLOCK=256 MSBFS_MIN_BLOCKS=4 MSBFS_OFFSET64=1": 440,
    # merrill: at 256 only the edge-frontier instantiations with predecessors and the
    # small-frontier mode spill (the small_frontier knob, off in the paper configs); the
    # 512- and 1024-thread builds, capped at 64 registers, spill in the scan_warp_cta
    # instantiations.
    "merrill.cu MERRILL_BLOCK=256 MERRILL_MIN_BLOCKS=4": 32,
    "merrill.cu MERRILL_BLOCK=512 MERRILL_MIN_BLOCKS=2": 784,
    "merrill.cu MERRILL_BLOCK=1024 MERRILL_MIN_BLOCKS=1": 3920,
    # delta: the 128-thread builds' predecessors instantiations (the parents pass after
    # the distances), at 80 registers: near-far's (delta_sssp<false, true>) 16 bytes stored
    # and 32 loaded, delta-stepping's (<true, true>) 4 and 20; the distance-only
    # instantiations and the 256- and 512-thread builds spill nothing.
    "delta.cu DELTA_BLOCK=128 DELTA_WEIGHT64=0": 72,
    "delta.cu DELTA_BLOCK=128 DELTA_WEIGHT64=1": 72,
    # (its profile builds, the same: the phase clock costs the leader's thread 0 nothing more)
    "delta.cu DELTA_BLOCK=128 DELTA_PROFILE=1 DELTA_WEIGHT64=0": 72,
    "delta.cu DELTA_BLOCK=128 DELTA_PROFILE=1 DELTA_WEIGHT64=1": 72,
    "raval.cu RAVAL_SSSP=0": 112,
    "raval.cu RAVAL_SSSP=1 RAVAL_WEIGHT64=0": 104,
    "raval.cu RAVAL_SSSP=1 RAVAL_WEIGHT64=1": 104,
}
_SPILL = re.compile(r"(\d+) bytes spill stores, (\d+) bytes spill loads")
_NEEDS_RDC = "requires separate compilation mode"


def spill_bytes(ptxas_output: str) -> int:
    """Spill stores + loads summed over the -warn-spills warnings of one compile."""
    return sum(int(a) + int(b) for line in ptxas_output.splitlines() if "warning" in line
               for a, b in _SPILL.findall(line))


def test_spill_bytes_parses_ptxas_warnings():
    out = ("ptxas warning : Registers are spilled to local memory in function 'f', 8 bytes spill stores, "
           "24 bytes spill loads\nptxas info : 8 bytes stack frame, 8 bytes spill stores, 24 bytes spill loads\n"
           "ptxas warning : Registers are spilled to local memory in function 'g', 4 bytes spill stores, "
           "0 bytes spill loads\n")
    assert spill_bytes(out) == 36
    assert spill_bytes("") == 0


def test_known_spills_name_real_builds():
    assert set(KNOWN_SPILLS) <= set(BUILD_IDS)


def nvcc(path, defines, *, rdc: bool, flags: tuple[str, ...]) -> build_cache.Built:
    """One nvcc compile for sm_90, kept in the build cache (tests/build_cache.py): keyed
    by the options and the .cu with every header of its folder and of gpu/include."""
    cmd = [require_tool("nvcc"), "-arch=sm_90", "-cubin", *compile_options(path, defines, rdc=rdc),
           *flags, "-o", build_cache.OUT, str(path)]
    return build_cache.build(cmd, build_cache.sources_in(Path(path).parent, INCLUDE_DIR))


def other_warnings(nvcc_output: str) -> list[str]:
    """The warning lines of one compile that are not register-spill warnings."""
    return [line for line in nvcc_output.splitlines()
            if re.search(r"\bwarning\b", line, re.IGNORECASE) and not _SPILL.search(line)]


def test_other_warnings_leave_out_only_the_spills():
    out = ("ptxas warning : Registers are spilled to local memory in function 'f', 8 bytes spill stores, "
           "24 bytes spill loads\nptxas info : Used 40 registers\n"
           "do.cu(12): warning #177-D: variable \"x\" was declared but never referenced\n")
    assert other_warnings(out) == ['do.cu(12): warning #177-D: variable "x" was declared but never referenced']
    assert other_warnings("nvcc warning : The 'compute_50' architecture is deprecated") != []


@pytest.mark.parametrize("path,defines", BUILDS, ids=BUILD_IDS)
def test_compiles_for_sm90_without_warnings_or_new_spills(path, defines):
    def compile_(rdc: bool):
        return nvcc(path, defines, rdc=rdc, flags=("-Xptxas", "-warn-spills"))

    proc = compile_(rdc=False)
    if proc.returncode != 0 and _NEEDS_RDC in proc.stderr:
        proc = compile_(rdc=True)  # it launches kernels from kernels: the runtime adds -rdc too
    assert proc.returncode == 0, proc.stderr
    bid = build_id(path, defines)
    warned = other_warnings(proc.stdout + proc.stderr)
    assert not warned, f"{bid}: " + "\n".join(warned)
    spilled = spill_bytes(proc.stderr)
    known = KNOWN_SPILLS.get(bid, 0)
    if known and not spilled:
        pytest.fail(f"{bid} no longer spills: drop its KNOWN_SPILLS exception", pytrace=False)
    assert spilled <= known, (
        f"{bid}: {spilled} bytes of register spills (allowed {known}):\n"
        + "\n".join(line for line in proc.stderr.splitlines() if "spill" in line))


def test_every_family_keeps_its_kernels_beside_its_launcher():
    names = {p.name for p in kernel_files()}
    assert {"classic.cu", "luo.cu", "merrill.cu"} <= names
    assert (INCLUDE_DIR / "common.cuh").is_file()
    for p in kernel_files():
        assert list(p.parent.glob("*.py")), f"{p} has no Python launcher beside it"


def test_every_kernel_file_has_a_launcher_that_names_it():
    named = {m.KERNELS.resolve() for m in launchers()}
    assert all(p in kernel_files() for p in named)
    for p in kernel_files():
        assert p.resolve() in named, f"{p}: no module sets KERNELS to it"


SCRIPT_KERNELS = sorted((Path(__file__).resolve().parents[2] / "scripts").glob("*.cu"))


@pytest.mark.parametrize("path", SCRIPT_KERNELS, ids=[p.name for p in SCRIPT_KERNELS])
def test_the_scripts_probe_kernels_compile_too(path):
    # scripts/fixed_cost.py --floor and barrier_probe.py load them on the device: a compile
    # error there would cost device time
    proc = nvcc(path, {}, rdc=False, flags=())
    assert proc.returncode == 0, proc.stderr
    assert not other_warnings(proc.stdout + proc.stderr), proc.stderr


# NVRTC (the runtime's compiler, through CuPy) has no C++ standard library: nvcc finds
# the host's <type_traits> where the device's compile fails. These are the system headers
# the runtime's compiles are known to find (NVRTC's own and CUDA's include folder).
NVRTC_HEADERS = {"stdint.h", "cooperative_groups.h"}
_SYSTEM_INCLUDE = re.compile(r'^\s*#\s*include\s*<([^>]+)>', re.M)


# the standard library's names, outside comments (cuda::std is CUDA's own)
_STD_NAME = re.compile(r"(?<!cuda::)\bstd::\w+")
_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)


def system_headers(text: str) -> set[str]:
    return set(_SYSTEM_INCLUDE.findall(text))


def std_names(text: str) -> set[str]:
    return set(_STD_NAME.findall(_COMMENT.sub("", text)))


def test_system_headers_reads_angle_includes_only():
    text = '#include "delta.cuh"\n  #  include <type_traits>\n#include <stdint.h>\n// <vector>\n'
    assert system_headers(text) == {"type_traits", "stdint.h"}


def test_std_names_reads_code_only():
    text = "x = std::min(a, b); // std::max\n/* std::swap(a, b) */ cuda::std::tuple<int> t; y = ::std::abs(c);\n"
    assert std_names(text) == {"std::min", "std::abs"}


def device_sources() -> list:
    """Every kernel file and every header they can include."""
    return kernel_files() + sorted(INCLUDE_DIR.rglob("*.cuh")) + sorted(
        p for d in {k.parent for k in kernel_files()} for p in d.glob("*.cuh"))


def test_kernel_files_include_only_headers_nvrtc_has():
    bad = {f"{p}: <{h}>" for p in device_sources() for h in system_headers(p.read_text()) - NVRTC_HEADERS}
    assert not bad, "NVRTC cannot open these (no C++ standard library there):\n" + "\n".join(sorted(bad))


def test_kernel_files_name_nothing_of_the_standard_library():
    bad = {f"{p}: {n}" for p in device_sources() for n in std_names(p.read_text())}
    assert not bad, "NVRTC has no C++ standard library (nvcc finds the host's):\n" + "\n".join(sorted(bad))
