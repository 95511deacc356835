"""Where a peer's binary is: its knob `binary`, else its environment variable. Nowhere
else: a peer is another project's build, and the user names where it is."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from gpubfs_cli.core.strategy import Strategy


def find_binary(path: str, env: str, what: str, strategy: str, in_folder: str = "") -> tuple[Path | None, str]:
    """(the binary, '') or (None, why not, one line). `path` (the knob) wins, else $env;
    with neither, the message names both for `strategy`, and `what` the file. With
    `in_folder`, a folder given stands for the file of that name in it."""
    given = path or os.environ.get(env, "")
    if not given:
        return None, f"no {what}: set {env}=PATH or {strategy}'s knob binary (docs/peers.md)"
    if in_folder and os.path.isdir(given):
        given = os.path.join(given, in_folder)
    found = shutil.which(given)
    if found is None:
        return None, f"{what} {given} is not an executable file"
    return Path(found), ""


def unavailable_from_env(env: str, find) -> str | None:
    """Why a peer cannot run, known before prepare() only when $env names a bad binary;
    with none set, a variant's knob may still name one, so prepare() decides. `find()`
    is the peer's binary lookup."""
    return (find()[1] or None) if os.environ.get(env) else None


class ScratchFolder(Strategy):
    """A peer's scratch folder (the exported graph, the peer's output) in `self.folder`,
    removed on release. A peer names its binary lookup `find(path)`; `peer_binaries`
    is what a run's provenance hashes (bench/code.py)."""

    folder: Path | None = None

    @classmethod
    def find(cls, path: str = "") -> tuple[Path | None, str]:
        raise NotImplementedError

    @classmethod
    def peer_binaries(cls, knobs) -> list[Path]:
        """The files prepare() runs with these knobs: the binary its lookup finds ([] when
        none is found)."""
        found, _ = cls.find(getattr(knobs, "binary", ""))
        return [found] if found is not None else []

    def release(self) -> None:
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)
            self.folder = None
        super().release()
