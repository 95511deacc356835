// algorithms/bfs/gpu/mgpu/mgpu.cu under the CPU emulator, as a shared library that the
// real mgpu rank code drives through the lockstep executor (emu_library.hpp,
// tests/gpu/emulated_cupy.py).
#include "cuda_emu.hpp"
#include "mgpu.cu"
#include "emu_library.hpp"

const std::vector<emu_lib::Entry>& emu_lib::kernels() {
    static const std::vector<Entry> k = {
        EMU_KERNEL(mgpu_clear),   EMU_KERNEL(mgpu_source), EMU_KERNEL(mgpu_queue),   EMU_KERNEL(mgpu_step),
        EMU_KERNEL(mgpu_parents), EMU_KERNEL(mgpu_apply),  EMU_KERNEL(mgpu_publish), EMU_KERNEL(mgpu_p2p_gather),
        EMU_KERNEL(mgpu_p2p_barrier), EMU_KERNEL(mgpu_levels),
    };
    return k;
}
