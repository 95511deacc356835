// algorithms/sssp/gpu/regions/regions_sssp.cu under the CPU emulator, as a shared library
// that the real sssp.regions launcher drives (emu_library.hpp, tests/gpu/emulated_cupy.py).
// Its shared storage, grid barrier and spin pause come from persistent.cuh's
// GPUBFS_EMULATE shims.
#include "cuda_emu.hpp"
#include "regions_sssp.cu"
#include "emu_library.hpp"

const std::vector<emu_lib::Entry>& emu_lib::kernels() {
    static const std::vector<Entry> k = {
        EMU_KERNEL(regions_sssp<false>),
        EMU_KERNEL(regions_sssp<true>),
    };
    return k;
}
