"""The Strategy contract (DESIGN.md) and the registry of every strategy, CPU and GPU.

A strategy is a class registered with @register under a stable name `paper.variant`.
It names the paper section it implements and carries a knobs dataclass whose
defaults are the paper's. The runner owns timing: a strategy never times itself.

Discovery: the registry imports every module of gpubfs_cli.traversal.baselines and
gpubfs_cli.gpu.strategies. Those modules must import without CuPy (GPU work imports
cupy inside methods, via gpubfs_cli.gpu.backend).
"""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil
from typing import Any, ClassVar

from gpubfs_cli.errors import UserError, unknown_name
from gpubfs_cli.graph.csr import CSRGraph
from gpubfs_cli.traversal.result import BfsResult


class StrategyUnavailable(Exception):
    """Raised by prepare() or traverse() when the strategy cannot run on this graph or
    machine (too large for networkx, unsupported GPU feature...). The runner records an
    `unavailable` cell with str(exc) as the reason and goes on."""


@dataclasses.dataclass(frozen=True)
class NoKnobs:
    """A strategy without knobs."""


class Strategy:
    name: ClassVar[str]
    paper: ClassVar[str]  # merrill | luo | bfs4k | raval | lbbfs | classic | cpu
    section: ClassVar[str]  # e.g. "Merrill et al. PPoPP'12, section 4.1"
    summary: ClassVar[str] = ""
    device: ClassVar[str] = "cpu"  # "cpu" or "gpu": decides the runner's timer
    Knobs: ClassVar[type] = NoKnobs
    supports_predecessors: ClassVar[bool] = True

    def __init__(self, knobs: Any | None = None):
        self.knobs = knobs if knobs is not None else self.Knobs()
        self.graph: CSRGraph | None = None

    @classmethod
    def unavailable_reason(cls) -> str | None:
        """None when the strategy can run here, else why not (one line)."""
        return None

    def prepare(self, graph: CSRGraph) -> None:
        """One-time work per graph (uploads, COO copies, splitting). Timed separately."""
        self.graph = graph

    def traverse(self, source: int, predecessors: bool = False) -> BfsResult:
        raise NotImplementedError

    def prepared_bytes(self) -> int:
        """Extra memory prepare() allocated (reported beside the prepare time)."""
        return 0

    def release(self) -> None:
        """Free per-graph state (device memory) before the next graph."""
        self.graph = None


_REGISTRY: dict[str, type[Strategy]] = {}
_DISCOVERED = False
_PACKAGES = ("gpubfs_cli.traversal.baselines", "gpubfs_cli.gpu.strategies")


def register(cls: type[Strategy]) -> type[Strategy]:
    if cls.name in _REGISTRY and _REGISTRY[cls.name] is not cls:
        raise RuntimeError(f"strategy {cls.name} registered twice")
    _REGISTRY[cls.name] = cls
    return cls


def _discover() -> None:
    global _DISCOVERED
    if _DISCOVERED:
        return
    for pkg_name in _PACKAGES:
        pkg = importlib.import_module(pkg_name)
        for info in pkgutil.iter_modules(pkg.__path__):
            importlib.import_module(f"{pkg_name}.{info.name}")
    # Only a complete discovery counts: a module that failed to import raises again
    # on the next call instead of leaving a silently partial registry.
    _DISCOVERED = True


def all_strategies() -> dict[str, type[Strategy]]:
    _discover()
    return dict(sorted(_REGISTRY.items()))


def get_strategy(name: str) -> type[Strategy]:
    strategies = all_strategies()
    if name not in strategies:
        raise unknown_name("strategy", name, strategies)
    return strategies[name]


def make_knobs(cls: type[Strategy], overrides: dict[str, Any] | None) -> Any:
    """The strategy's knobs with `overrides` applied; unknown keys are a UserError."""
    overrides = dict(overrides or {})
    fields = {f.name: f for f in dataclasses.fields(cls.Knobs)}
    for key in overrides:
        if key not in fields:
            raise unknown_name(f"knob of {cls.name}", key, fields)
    try:
        return cls.Knobs(**overrides)
    except (TypeError, ValueError) as exc:
        raise UserError(f"knobs of {cls.name}: {exc}") from exc


def knobs_dict(knobs: Any) -> dict[str, Any]:
    return dataclasses.asdict(knobs) if dataclasses.is_dataclass(knobs) else {}
