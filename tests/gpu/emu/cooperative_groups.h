// The part of CUDA's cooperative groups that kernel files use, for the CPU emulator
// (cuda_emu.hpp): a grid group whose sync() is the emulator's grid barrier. Found by
// `#include <cooperative_groups.h>` because the drivers are built with -I tests/gpu/emu.
#pragma once

namespace cooperative_groups {

struct grid_group {
    void sync() const { emu_grid_sync(); }
};

inline grid_group this_grid() { return {}; }

}  // namespace cooperative_groups
