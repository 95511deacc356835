// algorithms/bfs/gpu/msbfs/msbfs.cu under the CPU emulator, as a shared library that the
// real msbfs.* launcher drives (emu_library.hpp, tests/gpu/emulated_cupy.py). msbfs.cu's
// shared storage and grid barrier come from persistent.cuh's GPUBFS_EMULATE shims.
#include "cuda_emu.hpp"

#include "msbfs.cu"
#include "emu_library.hpp"

const std::vector<emu_lib::Entry>& emu_lib::kernels() {
    static const std::vector<Entry> k = {
        EMU_KERNEL(msbfs_bfs<false, false>),
        EMU_KERNEL(msbfs_bfs<true, false>),
        EMU_KERNEL(msbfs_bfs<false, true>),
        EMU_KERNEL(msbfs_bfs<true, true>),
    };
    return k;
}
