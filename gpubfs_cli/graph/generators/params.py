"""Reading a generator's parameters: every bad or missing key is a UserError naming it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gpubfs_cli.errors import UserError

_MISSING = object()


class Params:
    """Typed access to one family's params dict; `done()` rejects keys nobody read."""

    def __init__(self, family: str, params: Mapping[str, Any] | None):
        if params is None:
            params = {}
        if not isinstance(params, Mapping):
            raise UserError(f"generator {family}: params must be a mapping, got {type(params).__name__}")
        self.family = family
        self.raw = dict(params)
        self.used: set[str] = set()

    def _get(self, key: str, default: Any) -> Any:
        self.used.add(key)
        if key in self.raw:
            return self.raw[key]
        if default is _MISSING:
            raise UserError(f"generator {self.family}: missing parameter '{key}'")
        return default

    def fail(self, key: str, expected: str, got: Any) -> UserError:
        return UserError(f"generator {self.family}: parameter '{key}' must be {expected} (got {got!r})")

    def int(self, key: str, default: Any = _MISSING, *, lo: int | None = None, hi: int | None = None) -> int:
        v = self._get(key, default)
        if isinstance(v, bool) or not isinstance(v, int):
            if isinstance(v, float) and v.is_integer():
                v = int(v)
            else:
                raise self.fail(key, "an integer", v)
        if (lo is not None and v < lo) or (hi is not None and v > hi):
            rng = f">= {lo}" if hi is None else (f"<= {hi}" if lo is None else f"in [{lo}, {hi}]")
            raise self.fail(key, f"an integer {rng}", v)
        return v

    def float(self, key: str, default: Any = _MISSING, *, lo: float | None = None, hi: float | None = None) -> float:
        v = self._get(key, default)
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise self.fail(key, "a number", v)
        v = float(v)
        if (lo is not None and v < lo) or (hi is not None and v > hi):
            raise self.fail(key, f"a number in [{lo}, {hi}]", v)
        return v

    def bool(self, key: str, default: Any = _MISSING) -> bool:
        v = self._get(key, default)
        if not isinstance(v, bool):
            raise self.fail(key, "true or false", v)
        return v

    def int_list(self, key: str, default: Any = _MISSING, *, lengths: tuple[int, ...], lo: int = 1) -> list[int]:
        v = self._get(key, default)
        ok = isinstance(v, (list, tuple)) and len(v) in lengths and all(
            isinstance(x, int) and not isinstance(x, bool) and x >= lo for x in v
        )
        if not ok:
            want = " or ".join(str(n) for n in lengths)
            raise self.fail(key, f"a list of {want} integers >= {lo}", v)
        return [int(x) for x in v]

    def check(self, ok: bool, key: str, expected: str, got: Any) -> None:
        if not ok:
            raise self.fail(key, expected, got)

    def done(self) -> None:
        extra = sorted(set(self.raw) - self.used)
        if extra:
            valid = ", ".join(sorted(self.used))
            raise UserError(f"generator {self.family}: unknown parameter '{extra[0]}' (valid: {valid})")

