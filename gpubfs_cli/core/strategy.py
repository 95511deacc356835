"""The Strategy contract and the registry of every strategy, of every problem.

A strategy is a class registered with @register under a stable name `family.variant`
(the family is the folder it lives in: merrill.hybrid is algorithms/bfs/gpu/merrill).
It declares the problem it solves, the paper section it implements and a knobs
dataclass whose defaults are the paper's. Names are unique within a problem: SSSP's
cpu.scipy and BFS's cpu.scipy are two strategies.

The measuring harness owns timing. A strategy declares how it is timed (`timing`):
`events` (CUDA events on its devices around the call: GPU strategies), `host` (a CPU
clock around the call: CPU strategies) or `self` (the strategy's own figure in
Answer.time_ms, where no clock around the call can measure it: a peer's binary timing
itself, a multi-GPU strategy whose ranks each time their own GPU and the slowest counts).

Batches: a strategy whose batch_size() is above 1 answers up to that many sources in one
traverse_batch() call (a multi-source BFS); the harness times the call once and checks
every source's answer. Every other strategy answers one source per traverse().

Discovery (core.problem.discover) imports every module under gpubfs_cli.algorithms (all
of them import without CuPy: GPU work imports cupy inside methods, through
gpubfs_cli.gpu.backend). Then the registry loads the strategies other installed packages
declare in the entry point group `gpubfs.strategies` (load_plugins): each entry names a
module, a Strategy class or a function whose import (a function: its call) registers
strategies with @register. A plugin that fails to load, or registers a strategy the
registry refuses, is one line on stderr naming it, and none of its strategies count.
"""

from __future__ import annotations

import dataclasses
import logging
import sys
from typing import Any, ClassVar

import numpy as np

from gpubfs_cli.core.answer import Answer
from gpubfs_cli.core.device import CPU, Device, gpu
from gpubfs_cli.core.knobs import is_numeric, knob_range, shown, whole
from gpubfs_cli.core.problem import DEFAULT_PROBLEM, Problem, all_problems, discover, get_problem
from gpubfs_cli.errors import UserError, one_line, unknown_name

TIMINGS = ("events", "host", "self")  # how a strategy is timed: see the module docstring

# Names that earlier versions registered: results files that carry them still load
# and report under the new name, and run configs may still use them.
ALIASES = {
    "harish": "classic.harish",
    "hong.vwarp": "classic.vwarp",
    "edge.coo": "classic.edge_coo",
    "algebraic.spmv": "classic.spmv",
}


def canonical_name(name: str) -> str:
    return ALIASES.get(name, name)


class StrategyUnavailable(Exception):
    """Raised by prepare() or traverse() when the strategy cannot run on this graph or
    machine (too large for networkx, unsupported GPU feature...). The runner records an
    `unavailable` cell with str(exc) as the reason and goes on."""


@dataclasses.dataclass(frozen=True)
class NoKnobs:
    """A strategy without knobs."""


# The knob a strategy spanning several GPUs takes its GPU count by (multi_gpu): the
# harness fills it from a run's `gpus`, and its samples record it with their knobs.
GPUS_KNOB = "gpus"


class Strategy:
    name: ClassVar[str]
    problem: ClassVar[str] = DEFAULT_PROBLEM  # the key of the Problem it solves
    paper: ClassVar[str]  # merrill | luo | bfs4k | raval | lbbfs | classic | cpu
    section: ClassVar[str]  # e.g. "Merrill et al. PPoPP'12, section 4.1"
    summary: ClassVar[str] = ""
    # What differs from the paper on today's GPUs, and what to keep in mind reading its
    # numbers: one short line each (the HTML report lists them per strategy).
    caveats: ClassVar[tuple[str, ...]] = ()
    device_kind: ClassVar[str] = "cpu"  # "cpu" or "gpu": the devices it runs on
    multi_gpu: ClassVar[bool] = False  # its Knobs have GPUS_KNOB: it spans that many GPUs
    timing: ClassVar[str] = "host"  # one of TIMINGS
    Knobs: ClassVar[type] = NoKnobs
    supports_predecessors: ClassVar[bool] = True
    # Where supports_predecessors is False and "no <option> output" would mislead: why.
    no_predecessors_reason: ClassVar[str | None] = None
    # What its GTEPS count: "traversed" (the edges a top-down BFS looks at, the papers'
    # convention) or "equivalent" (a strategy that skips edges, as direction-optimizing
    # BFS does, over the same edge count: every table labels its rates so).
    teps: ClassVar[str] = "traversed"
    predecessors_planned = True  # an instance's, once plan_predecessors() is told

    def __init__(self, knobs: Any | None = None, devices: tuple[Device, ...] | None = None):
        self.knobs = knobs if knobs is not None else self.Knobs()
        self.devices = devices if devices is not None else self.devices_for(self.knobs)
        self.graph = None

    @classmethod
    def devices_for(cls, knobs: Any) -> tuple[Device, ...]:
        """The devices an instance with these knobs runs on: GPU 0 or the CPU. A strategy
        spanning several GPUs (multi_gpu) says so through its GPUS_KNOB knob and overrides this."""
        return (gpu(0),) if cls.device_kind == "gpu" else (CPU,)

    @property
    def device(self) -> Device:
        """The first (for one-device strategies, the only) device."""
        return self.devices[0]

    @classmethod
    def problem_spec(cls) -> Problem:
        return get_problem(cls.problem)

    @classmethod
    def unavailable_reason(cls) -> str | None:
        """None when the strategy can run here, else why not (one line)."""
        return None

    def upload(self, graph) -> None:
        """Put the graph on this strategy's devices (timed apart, once per graph and
        device: later strategies find it there). Nothing to do on the CPU."""

    def prepare(self, graph) -> None:
        """One-time work per graph (COO copies, splitting, buffers). Timed separately."""
        self.graph = graph

    def plan_predecessors(self, asked: bool) -> None:
        """Told before upload() and prepare(): whether any traverse() will ask for
        predecessors (the runner knows its modes). A strategy whose parent buffers are
        large may then leave them out, and refuse such a traverse() with one line; without
        this call it prepares for both."""
        self.predecessors_planned = bool(asked)

    def plan_sources(self, sources: list[int]) -> None:
        """The sources traverse() will be asked for, in order, told before the warm-up
        (a peer runs them in one batch). Nothing to do for gpubfs's own strategies."""

    def plan_reaches(self, reaches: dict[int, int]) -> None:
        """The largest distance from each of the run's sources (source -> distance, -1
        for none), from the baseline's answers the run computed before any strategy:
        told before plan_sources when the run validates. A peer whose numbers have a
        limited range checks its sources against it instead of solving them again."""

    def traverse(self, source: int, predecessors: bool = False) -> Answer:
        raise NotImplementedError

    def batch_size(self) -> int:
        """Sources one traverse_batch() call answers (1: one source per traverse())."""
        return 1

    def traverse_batch(self, sources: list[int], predecessors: bool = False) -> list[Answer]:
        """One answer per source, in order, from one call (strategies whose batch_size()
        is above 1; at most that many sources)."""
        raise NotImplementedError(f"{self.name} answers one source per traverse()")

    def prepared_bytes(self) -> int:
        """Extra memory prepare() allocated (reported beside the prepare time)."""
        return 0

    def device_bytes(self) -> list[int] | None:
        """The bytes of the arrays this variant holds on each of its devices after
        prepare() (its graph or its part of it, and its buffers), in device order; None
        off the GPU. The CUDA context and CuPy's cached free blocks are not counted."""
        return None

    def prepare_details(self) -> dict[str, float]:
        """Named parts of prepare()'s time worth keeping apart (the prepare record's
        `setup`), in milliseconds; none by default."""
        return {}

    def release(self) -> None:
        """Free per-graph state (device memory) before the next graph."""
        self.graph = None


Registry = dict[str, dict[str, type[Strategy]]]  # problem -> name -> class
_REGISTRY: Registry = {}


def register(cls: type[Strategy]) -> type[Strategy]:
    names = _REGISTRY.setdefault(cls.problem, {})
    if "." not in cls.name:
        raise RuntimeError(f"strategy {cls.name}: names are family.variant")
    if cls.timing not in TIMINGS:
        raise RuntimeError(f"strategy {cls.name}: timing {cls.timing!r} is not one of {', '.join(TIMINGS)}")
    if cls.device_kind == "gpu" and cls.timing == "host":
        # a host clock around asynchronous launches measures the launches, not the work
        raise RuntimeError(f"strategy {cls.name}: a GPU strategy is timed by events or by itself, not the host clock")
    if cls.multi_gpu and GPUS_KNOB not in {f.name for f in dataclasses.fields(cls.Knobs)}:
        raise RuntimeError(f"strategy {cls.name}: a multi-GPU strategy takes its GPU count by a '{GPUS_KNOB}' knob")
    for f in dataclasses.fields(cls.Knobs):
        if is_numeric(f.default) and knob_range(f) is None:
            raise RuntimeError(f"strategy {cls.name}: knob {f.name} declares no valid range (core.knobs.knob)")
    if cls.name in names and names[cls.name] is not cls:
        raise RuntimeError(f"strategy {cls.problem} {cls.name} registered twice")
    names[cls.name] = cls
    return cls


def registry() -> Registry:
    """Every registered strategy: problem -> name -> class (a copy)."""
    discover()
    load_plugins()
    return {p: dict(sorted(names.items())) for p, names in sorted(_REGISTRY.items())}


PLUGIN_GROUP = "gpubfs.strategies"  # the entry point group of other packages' strategies
_PLUGINS_LOADED = False


def load_plugins() -> None:
    """Load the entry point group PLUGIN_GROUP once, after the built-in strategies. A
    plugin that raises, or whose strategies the registry refuses (register's rules, no
    paper or section, an unknown problem, knobs without defaults), is skipped whole: one
    line on stderr names it, never a traceback."""
    global _PLUGINS_LOADED
    if _PLUGINS_LOADED:
        return
    _PLUGINS_LOADED = True  # first: a plugin that asks for the registry as it loads finds it
    from importlib import metadata

    try:
        found = list(metadata.entry_points(group=PLUGIN_GROUP))
    except Exception as exc:  # an installed package's metadata that cannot be read
        _plugin_warning(f"the entry points of group {PLUGIN_GROUP} could not be read ({_first_line(exc)}); "
                        "no strategy plugin loaded")
        return
    seen = set()
    for ep in found:
        if (ep.name, ep.value) in seen:  # one distribution seen twice on sys.path
            continue
        seen.add((ep.name, ep.value))
        before = {p: dict(names) for p, names in _REGISTRY.items()}
        try:
            loaded = ep.load()
            if callable(loaded) and not isinstance(loaded, type):  # a function that registers
                loaded()
            for cls in _added(before):
                why = _plugin_problem(cls)
                if why is not None:
                    raise RuntimeError(f"strategy {getattr(cls, 'name', cls.__name__)}: {why}")
        except (Exception, SystemExit) as exc:
            for problem, names in list(_REGISTRY.items()):  # in place: holders of these dicts see it too
                for name in [n for n in names if before.get(problem, {}).get(n) is not names[n]]:
                    del names[name]
                if not names and problem not in before:
                    del _REGISTRY[problem]
            dist = getattr(getattr(ep, "dist", None), "name", None)
            _plugin_warning(f"strategy plugin '{ep.name}' ({ep.value}{f', from {dist}' if dist else ''}) "
                            f"skipped: {_first_line(exc)}")


def _added(before: Registry) -> list[type[Strategy]]:
    return [cls for problem, names in _REGISTRY.items() for name, cls in names.items()
            if before.get(problem, {}).get(name) is not cls]


def _plugin_problem(cls: type[Strategy]) -> str | None:
    """Why a plugin's strategy cannot be listed or run (what every built-in one has), or None."""
    for attr in ("paper", "section"):
        if not isinstance(getattr(cls, attr, None), str):
            return f"no {attr} (a string)"
    if cls.problem not in all_problems():
        return f"unknown problem {cls.problem!r}"
    try:
        cls.Knobs()
    except Exception as exc:
        return f"its knobs have no defaults ({_first_line(exc)})"
    return None


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {text}"[:300] if text else type(exc).__name__


def _plugin_warning(text: str) -> None:
    """A warning of the `gpubfs.strategies` logger where the command line set logging up
    (gpubfs_cli/logs.py), else one line on stderr (the registry used as a library)."""
    if logging.getLogger("gpubfs").handlers:
        logging.getLogger("gpubfs.strategies").warning(one_line(text))
    else:
        sys.stderr.write(f"warning: {one_line(text)}\n")
        sys.stderr.flush()


def all_strategies(problem: str = DEFAULT_PROBLEM) -> dict[str, type[Strategy]]:
    """The strategies of one problem, by name."""
    return registry().get(problem, {})


def get_strategy(name: str, problem: str = DEFAULT_PROBLEM) -> type[Strategy]:
    strategies = all_strategies(problem)
    name = canonical_name(name)
    if name not in strategies:
        raise unknown_name(f"{problem} strategy", name, strategies)
    return strategies[name]


def problems_of(name: str, reg: Registry | None = None) -> list[str]:
    """The problems that have a strategy called `name` (after aliases)."""
    reg = reg if reg is not None else registry()
    name = canonical_name(name)
    return [p for p, names in reg.items() if name in names]


def make_knobs(cls: type[Strategy], overrides: dict[str, Any] | None) -> Any:
    """The strategy's knobs with `overrides` applied; an unknown key, or a value of the
    wrong kind or outside its knob's range (knob_problem), is a UserError."""
    overrides = dict(overrides or {})
    fields = {f.name: f for f in dataclasses.fields(cls.Knobs)}
    for key, value in overrides.items():
        if key not in fields:
            raise unknown_name(f"knob of {cls.name}", key, fields)
        problem = knob_problem(cls, key, value)
        if problem is not None:
            raise UserError(f"knobs of {cls.name}: {key}: {problem}")
    try:
        return cls.Knobs(**overrides)
    except (TypeError, ValueError) as exc:
        raise UserError(f"knobs of {cls.name}: {exc}") from exc


def knob_problem(cls: type[Strategy], key: str, value: Any) -> str | None:
    """What is wrong with `value` for the knob `key` of `cls`: not of its default's kind
    (an int knob takes whole numbers, a float knob any number, a switch true or false),
    or outside the Range it declares (core.knobs.knob); None when it is valid. The one
    check of a knob's value, whoever gives it."""
    field = next(f for f in dataclasses.fields(cls.Knobs) if f.name == key)
    default, rng = field.default, knob_range(field)
    if value is None and rng is not None and rng.optional:
        return None
    if isinstance(default, bool):
        ok = isinstance(value, bool)
    elif isinstance(default, int):
        ok = whole(value)
    elif isinstance(default, float):
        ok = is_numeric(value) or isinstance(value, (np.integer, np.floating))
    else:
        ok = default is None or default is dataclasses.MISSING or isinstance(value, type(default))
    if not ok:
        return f"expected {type(default).__name__} like the default {default!r}, got {shown(value)}"
    return rng.problem(value) if rng is not None else None


def knobs_dict(knobs: Any) -> dict[str, Any]:
    return dataclasses.asdict(knobs) if dataclasses.is_dataclass(knobs) else {}
