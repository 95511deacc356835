"""What the dataset layer tells the user on stderr: progress lines and warnings.

Records of the `gpubfs.datasets` logger where the command line set logging up
(gpubfs_cli/logs.py: --quiet, --verbose, --log): a progress line is info when the caller
asked for progress, else debug. Without it (the layer used alone) they are printed on
stderr as they always were: progress lines when asked for, every warning.

Apart from prepare.py so that weights.py can warn without importing prepare (which
imports weights).
"""

from __future__ import annotations

import logging

log = logging.getLogger("gpubfs.datasets")


def console():
    from rich.console import Console

    return Console(stderr=True, highlight=False, soft_wrap=True)


def _logged() -> bool:
    """Whether the command line set up the `gpubfs` logger."""
    return bool(logging.getLogger("gpubfs").handlers)


def say(progress: bool, msg: str) -> None:
    if _logged():
        log.log(logging.INFO if progress else logging.DEBUG, msg)
    elif progress:
        console().print(msg, markup=False)


def warn(msg: str) -> None:
    if _logged():
        log.warning(msg)
    else:
        console().print(f"warning: {msg}", markup=False, style="yellow")
