"""The code a run records: the git commit of this checkout, the git tree id of the
package as it is on disk (what `gpubfs run --resume` compares), and each peer binary's
size and sha256. Nothing here may fail a run: outside a checkout, or where git cannot
run, the answer is None (a file that cannot be read: its reason)."""

from __future__ import annotations

import hashlib
import os
import subprocess
from pathlib import Path

import gpubfs_cli


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


def _git(root: Path, *args: str) -> str | None:
    try:
        return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, timeout=10,
                              check=True).stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        return None


def code_identity(root: Path | None = None, folder: str = "gpubfs_cli") -> dict:
    """{commit, tree, dirty}: the checkout's HEAD, `folder`'s tree id as it is on disk
    (source_tree) and whether that differs from HEAD's (changes to the code that ran, new
    files included, which git_commit's '+dirty' leaves out); nulls outside a checkout."""
    root = Path(gpubfs_cli.__file__).resolve().parents[1] if root is None else Path(root)
    tree = source_tree(root, folder)
    if tree is None:
        return {"commit": None, "tree": None, "dirty": None}
    commit = _git(root, "rev-parse", "--verify", "-q", "HEAD")
    committed = _git(root, "rev-parse", "--verify", "-q", f"HEAD:{folder}") if commit else None
    return {"commit": commit, "tree": tree, "dirty": None if commit is None else tree != committed}


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


def file_facts(path: str | Path) -> dict:
    """{path, size, sha256} of a binary, or {path, reason} when it cannot be read."""
    path = Path(path)
    try:
        path = path.resolve()
        digest = hashlib.sha256()
        with open(path, "rb") as f:
            while chunk := f.read(1 << 20):
                digest.update(chunk)
        return {"path": str(path), "size": path.stat().st_size, "sha256": digest.hexdigest()}
    except OSError as exc:
        return {"path": str(path), "reason": f"{exc.strerror or exc}"}
