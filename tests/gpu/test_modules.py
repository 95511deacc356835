"""gpu/modules.py's name expressions for template kernels (no GPU, no compiler)."""

from __future__ import annotations

import numpy as np

from gpubfs_cli.gpu.modules import instantiation


def test_instantiation_spells_cpp_arguments():
    assert instantiation("do_bfs", False, True) == "do_bfs<false, true>"
    assert instantiation("lbbfs_bfs", "long long", True) == "lbbfs_bfs<long long, true>"
    # by truth, as the launchers' flags arrive (ints, numpy bools)
    assert instantiation("k", 0, np.bool_(True)) == "k<false, true>"
    assert instantiation("k", "int") == "k<int>"
