// algorithms/bfs/gpu/do/do.cu under the CPU emulator, as a shared library that the real
// do.* launcher drives (emu_library.hpp, tests/gpu/emulated_cupy.py). do.cu's shared
// storage and grid barrier come from do.cuh's GPUBFS_EMULATE shims.
#include "cuda_emu.hpp"
#include "do.cu"
#include "emu_library.hpp"

const std::vector<emu_lib::Entry>& emu_lib::kernels() {
    static const std::vector<Entry> k = {
        EMU_KERNEL(do_bfs<false, false>),
        EMU_KERNEL(do_bfs<true, false>),
        EMU_KERNEL(do_bfs<false, true>),
        EMU_KERNEL(do_bfs<true, true>),
    };
    return k;
}
