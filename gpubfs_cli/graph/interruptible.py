"""Long numpy calls that Ctrl-C can still stop.

A signal is only acted on between Python bytecodes, so one numpy sort of 100M keys (ten
seconds and more) holds off Ctrl-C until it returns. numpy releases the GIL while it
sorts: run in a worker thread, the call leaves the main thread waiting in short slices,
where KeyboardInterrupt lands at once. The abandoned worker only holds its own arrays
and ends with the process.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TypeVar

import numpy as np

T = TypeVar("T")

SLICE_S = 0.1
MIN_ITEMS = 1 << 22  # below this a call takes well under a second: no thread


def call(fn: Callable[[], T]) -> T:
    """fn() in a worker thread, waited for in slices; its exception is raised here."""
    out: dict = {}

    def work() -> None:
        try:
            out["value"] = fn()
        except BaseException as exc:  # handed to the waiting thread
            out["error"] = exc

    worker = threading.Thread(target=work, name="gpubfs-long-call", daemon=True)
    worker.start()
    while worker.is_alive():
        worker.join(SLICE_S)
    if "error" in out:
        raise out["error"]
    return out["value"]


def sort(keys) -> None:
    """keys.sort() in place; large numpy arrays through `call`."""
    if isinstance(keys, np.ndarray) and len(keys) >= MIN_ITEMS:
        call(keys.sort)
    else:
        keys.sort()
