// algorithms/bfs/gpu/msbfs/msbfs.cu under the CPU emulator, as a shared library that the
// real msbfs.* launcher drives (emu_library.hpp, tests/gpu/emulated_cupy.py). msbfs.cu's
// shared storage and grid barrier come from persistent.cuh's GPUBFS_EMULATE shims.
#include <cstddef>

#include "cuda_emu.hpp"

#include "msbfs.cu"
#include "emu_library.hpp"

// msbfs_bfs takes its state by value (msbfs::Params), a parameter kind emu_library.hpp's
// signatures do not name: the launcher passes a one-element structured numpy array, which
// the emulated CuPy hands over as a pointer to its bytes (kind 'S', added by the tests),
// so each entry passes the struct on from there.
template <bool P, bool C>
emu_lib::Entry msbfs_entry(const char* name) {
    return {name, "SIii", [](int g, int b, void** a) {
                void* args[] = {*static_cast<void**>(a[0]), a[1], a[2], a[3]};
                emu_lib::run(&msbfs_bfs<P, C>, g, b, args);
            }};
}

const std::vector<emu_lib::Entry>& emu_lib::kernels() {
    static const std::vector<Entry> k = {
        msbfs_entry<false, false>("msbfs_bfs<false, false>"),
        msbfs_entry<true, false>("msbfs_bfs<true, false>"),
        msbfs_entry<false, true>("msbfs_bfs<false, true>"),
        msbfs_entry<true, true>("msbfs_bfs<true, true>"),
    };
    return k;
}

// msbfs::Params as compiled: its fields in order and their offsets, then its size, for
// the tests to compare with strategies.py's PARAMS.
#define MS_FIELDS(X)                                                                                     \
    X(row) X(col) X(in_row) X(in_col) X(dist) X(parent) X(seen) X(visit) X(queue) X(ctl) X(levels)       \
        X(counters) X(prof) X(marks) X(m_in) X(alpha_milli) X(beta_milli) X(n) X(hub_edges) X(counter_cap)       \
            X(prof_cap) X(bottom_up) X(thread_edges) X(warp_edges)
#define MS_NAME(f) #f " "
#define MS_OFFSET(f) (long long)offsetof(msbfs::Params, f),

EMU_EXPORT const char* params_fields() { return MS_FIELDS(MS_NAME); }

EMU_EXPORT int params_layout(long long* out, int cap) {
    const long long layout[] = {MS_FIELDS(MS_OFFSET)(long long) sizeof(msbfs::Params)};
    const int n = (int)(sizeof(layout) / sizeof(layout[0]));
    for (int i = 0; i < n && i < cap; ++i) out[i] = layout[i];
    return n;
}
