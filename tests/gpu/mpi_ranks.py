"""Run under `mpiexec -n 2 python -m tests.gpu.mpi_ranks` (tests/gpu/test_ranks.py): world
rank 0 drives the other rank through RankGroup over MPI, as gpubfs does across hosts;
the other rank serves orders (gpu/ranks/worker.main_mpi)."""

from __future__ import annotations

from mpi4py import MPI

from gpubfs_cli.gpu.ranks import worker
from gpubfs_cli.gpu.ranks.channels import RankFailed
from gpubfs_cli.gpu.ranks.group import RankGroup


def main() -> None:
    if MPI.COMM_WORLD.Get_rank() != 0:
        worker.main_mpi()
        return
    group = RankGroup(MPI.COMM_WORLD.Get_size(), timeout_s=30.0)
    assert group.mpi
    group.start("tests.gpu.rank_helpers:Echo", lambda r: {"tag": f"t{r}"}, None)
    group.ready()
    group.call("whoami", 5)
    answers = [a[:3] for a in group.results()]
    group.call("boom")
    try:
        group.results()
        error = None
    except RankFailed as exc:
        error = str(exc)
    print(f"mpi ranks: {group.size}, answers {answers}, error {error!r}", flush=True)


if __name__ == "__main__":
    main()
