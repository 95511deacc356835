// algorithms/sssp/gpu/raval/raval.cu under the CPU emulator, as a shared library that
// the real Python launchers drive (emu_library.hpp, tests/gpu/emulated_cupy.py).
// Built once per define set of base.KERNEL_DEFINES (-DRAVAL_SSSP=.. -DRAVAL_WEIGHT64=..).
#include "cuda_emu.hpp"
#include "raval.cu"
#include "emu_library.hpp"

const std::vector<emu_lib::Entry>& emu_lib::kernels() {
    static const std::vector<Entry> k = {
        EMU_KERNEL(raval_init),         EMU_KERNEL(raval_node_relax),   EMU_KERNEL(raval_ns_propagate),
        EMU_KERNEL(raval_ep_relax),     EMU_KERNEL(raval_coo_src),      EMU_KERNEL(raval_wd_offsets),
        EMU_KERNEL(raval_wd_relax),     EMU_KERNEL(raval_hp_sub),       EMU_KERNEL(raval_parents_init),
        EMU_KERNEL(raval_parents_tight),
    };
    return k;
}
