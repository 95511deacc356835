"""What the dataset layer tells the user on stderr: progress lines and warnings.

Apart from prepare.py so that weights.py can warn without importing prepare (which
imports weights).
"""

from __future__ import annotations


def console():
    from rich.console import Console

    return Console(stderr=True, highlight=False, soft_wrap=True)


def say(progress: bool, msg: str) -> None:
    if progress:
        console().print(msg, markup=False)


def warn(msg: str) -> None:
    console().print(f"warning: {msg}", markup=False, style="yellow")
