// algorithms/bfs/gpu/do/do.cu under the CPU emulator, as a shared library that the real
// do.* launcher drives (emu_library.hpp, tests/gpu/emulated_cupy.py). do.cu's shared
// storage and grid barrier come from do.cuh's GPUBFS_EMULATE shims.
#include <cstddef>

#include "cuda_emu.hpp"
#include "do.cu"
#include "emu_library.hpp"

// do_bfs takes its state by value (dobfs::Params), a parameter kind emu_library.hpp's
// signatures do not name: the launcher passes a one-element structured numpy array, which
// the emulated CuPy hands over as a pointer to its bytes (kind 'S', added by the tests),
// so each entry passes the struct on from there.
template <bool P, bool C>
emu_lib::Entry do_entry(const char* name) {
    return {name, "SiI", [](int g, int b, void** a) {
                void* args[] = {*static_cast<void**>(a[0]), a[1], a[2]};
                emu_lib::run(&do_bfs<P, C>, g, b, args);
            }};
}

const std::vector<emu_lib::Entry>& emu_lib::kernels() {
    static const std::vector<Entry> k = {
        do_entry<false, false>("do_bfs<false, false>"),
        do_entry<true, false>("do_bfs<true, false>"),
        do_entry<false, true>("do_bfs<false, true>"),
        do_entry<true, true>("do_bfs<true, true>"),
    };
    return k;
}

// dobfs::Params as compiled: its fields in order and their offsets, then its size, for
// the tests to compare with strategies.py's PARAMS.
#define DO_FIELDS(X)                                                                                   \
    X(row) X(col) X(in_row) X(in_col) X(dist) X(parent) X(visited) X(front0) X(front1) X(q0) X(q1)     \
        X(ctl) X(counters) X(prof) X(mq) X(m_in) X(alpha_milli) X(beta_milli) X(spread_edges) X(n)      \
            X(rule) X(small_frontier) X(mid_ctas) X(counter_cap) X(prof_cap) X(mq_cap) X(hub_edges)    \
                X(mid_frontier) X(thread_edges)
#define DO_NAME(f) #f " "
#define DO_OFFSET(f) (long long)offsetof(dobfs::Params, f),

EMU_EXPORT const char* params_fields() { return DO_FIELDS(DO_NAME); }

EMU_EXPORT int params_layout(long long* out, int cap) {
    const long long layout[] = {DO_FIELDS(DO_OFFSET)(long long) sizeof(dobfs::Params)};
    const int n = (int)(sizeof(layout) / sizeof(layout[0]));
    for (int i = 0; i < n && i < cap; ++i) out[i] = layout[i];
    return n;
}
