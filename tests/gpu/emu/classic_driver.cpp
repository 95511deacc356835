// algorithms/bfs/gpu/classic/classic.cu under the CPU emulator, as a shared library that
// the real Python launchers (harish, vwarp, edge_coo) drive (emu_library.hpp,
// tests/gpu/emulated_cupy.py). Every kernel and every virtual-warp width levels.py asks for.
#include "cuda_emu.hpp"
#include "classic.cu"
#include "emu_library.hpp"

const std::vector<emu_lib::Entry>& emu_lib::kernels() {
    static const std::vector<Entry> k = {
        EMU_KERNEL(classic_init),    EMU_KERNEL(harish_init),     EMU_KERNEL(harish_expand),
        EMU_KERNEL(harish_commit),   EMU_KERNEL(coo_rows),        EMU_KERNEL(edge_level),
        EMU_KERNEL(vwarp_level<1>),  EMU_KERNEL(vwarp_level<2>),  EMU_KERNEL(vwarp_level<4>),
        EMU_KERNEL(vwarp_level<8>),  EMU_KERNEL(vwarp_level<16>), EMU_KERNEL(vwarp_level<32>),
    };
    return k;
}
