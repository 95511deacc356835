"""Writing files so that a partial one never sits under the final name."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from gpubfs_cli.errors import UserError


def write_text_atomic(path: str | Path, text: str) -> Path:
    """Write `text` to a temporary file beside `path`, then rename it into place.

    A folder that cannot be made or written is a UserError naming the path.
    """
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as exc:
        raise UserError(f"{path}: cannot write ({exc.strerror})") from None
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return path


def parse_yaml(text: str, where: str):
    """yaml.safe_load(text); a syntax error is a UserError naming `where` and the line."""
    import yaml

    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f":{mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or "syntax error"
        raise UserError(f"{where}{line}: not valid YAML ({problem})") from None


def plain_json(obj, array_limit: int | None = None):
    """`obj` with numpy scalars and arrays turned into plain JSON values.

    Arrays longer than `array_limit` become a short 'array(shape)' note (meta.json
    keeps small facts, not data); with no limit every array is written out.
    """
    import numpy as np

    if isinstance(obj, dict):
        return {str(k): plain_json(v, array_limit) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [plain_json(v, array_limit) for v in obj]
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.ndarray):
        if array_limit is not None and obj.size > array_limit:
            return f"array{obj.shape}"
        return obj.tolist()
    return obj
