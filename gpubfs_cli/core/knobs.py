"""The identity of a set of knob values as one string.

Results groups, reproduce's cells, auto's rules and its counters all match variants by
their knobs: one spelling here, so that no two of them can disagree on what is equal.
"""

from __future__ import annotations

import json


def knobs_key(knobs: dict) -> str:
    """`knobs` as JSON with its keys sorted: equal knob values give equal keys."""
    return json.dumps(knobs, sort_keys=True)
