// algorithms/bfs/gpu/regions/regions.cu under the CPU emulator, as a shared library that
// the real regions.bfs launcher drives (emu_library.hpp, tests/gpu/emulated_cupy.py).
// Its shared storage, grid barrier and spin pause come from persistent.cuh's
// GPUBFS_EMULATE shims.
#include "cuda_emu.hpp"
#include "regions.cu"
#include "emu_library.hpp"

const std::vector<emu_lib::Entry>& emu_lib::kernels() {
    static const std::vector<Entry> k = {
        EMU_KERNEL(regions_bfs<false>),
        EMU_KERNEL(regions_bfs<true>),
    };
    return k;
}
