// algorithms/sssp/gpu/delta/delta.cu under the CPU emulator, as a shared library that
// the real sssp.delta / sssp.near_far launcher drives (emu_library.hpp,
// tests/gpu/emulated_cupy.py). Built once per define set (-DDELTA_BLOCK=..
// -DDELTA_WEIGHT64=..); the grid barrier and shared storage are persistent.cuh's shims.
#include "cuda_emu.hpp"
#include "delta.cu"
#include "emu_library.hpp"

const std::vector<emu_lib::Entry>& emu_lib::kernels() {
    static const std::vector<Entry> k = {
        EMU_KERNEL(delta_partition),
        EMU_KERNEL(delta_sssp<true, false>),
        EMU_KERNEL(delta_sssp<true, true>),
        EMU_KERNEL(delta_sssp<false, false>),
        EMU_KERNEL(delta_sssp<false, true>),
    };
    return k;
}
