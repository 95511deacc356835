"""Whether a run can run here, asked before anything is loaded: `require_gpu` without a
usable GPU stops it with one line naming where it was asked for; a run none of whose
variants can run here loads no graph (each cell is `unavailable`, with its reason)."""

from __future__ import annotations

from gpubfs_cli.errors import UserError


def check_gpu_requirement(config) -> None:
    """One line when the run requires a GPU (--require-gpu, `require_gpu: true`) and none
    is usable here."""
    if not config.require_gpu:
        return
    from gpubfs_cli.gpu.backend import unavailable_reason

    reason = unavailable_reason()
    if reason is not None:
        where = config.require_gpu_from
        if where in (None, "command line"):
            raise UserError(f"--require-gpu: no usable GPU here ({reason})")
        raise UserError(f"{where}: require_gpu: true, and no GPU is usable here ({reason}); "
                        "add --no-require-gpu to run its CPU rows anyway")


def why_none_runs(variants: list[tuple]) -> str | None:
    """None when a variant of the run can run here, else why the first cannot.
    `variants`: (variant, strategy class, knobs, recorded knobs) each, as the runner makes them."""
    why = None
    for _, cls, _, _ in variants:
        reason = cls.unavailable_reason()
        if reason is None:
            return None
        why = why or f"{cls.name}: {reason}"
    return why
