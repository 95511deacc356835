// algorithms/bfs/gpu/luo/luo.cu under the CPU emulator, as a shared library that the
// real luo.hierarchical launcher drives (emu_library.hpp, tests/gpu/emulated_cupy.py).
// luo.cu is compiled unchanged: its function-scope __shared__ arrays become per-block
// statics (EMU_STATIC_SHARED) and grid.sync() the emulator's grid barrier
// (cooperative_groups.h beside this file).
#define EMU_STATIC_SHARED 1
#include "cuda_emu.hpp"
#include "luo.cu"
#include "emu_library.hpp"

const std::vector<emu_lib::Entry>& emu_lib::kernels() {
    static const std::vector<Entry> k = {
        EMU_KERNEL(luo_init<false>),  EMU_KERNEL(luo_init<true>),  EMU_KERNEL(luo_block<false>),
        EMU_KERNEL(luo_block<true>),  EMU_KERNEL(luo_grid<false>), EMU_KERNEL(luo_grid<true>),
        EMU_KERNEL(luo_level<false>), EMU_KERNEL(luo_level<true>),
    };
    return k;
}
