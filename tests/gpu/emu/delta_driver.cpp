// algorithms/sssp/gpu/delta/delta.cu under the CPU emulator, as a shared library that
// the real sssp.delta / sssp.near_far launcher drives (emu_library.hpp,
// tests/gpu/emulated_cupy.py). Built once per define set (-DDELTA_BLOCK=..
// -DDELTA_WEIGHT64=..); the grid barrier and shared storage are persistent.cuh's shims.
#include <cstddef>
#include <string>

#include "cuda_emu.hpp"
#include "delta.cu"
#include "emu_library.hpp"

// delta_sssp takes its state by value (DeltaParams), a parameter kind emu_library.hpp's
// signatures do not name: the launcher passes a one-element structured numpy array, which
// the emulated CuPy hands over as a pointer to its bytes (kind 'S', added by the tests),
// so each entry passes the struct on from there.
template <bool H, bool P>
emu_lib::Entry delta_entry(const char* name) {
    return {name, std::string(DELTA_WEIGHT64 ? "IIIL" : "IIII") + "Si", [](int g, int b, void** a) {
                void* args[] = {a[0], a[1], a[2], a[3], *static_cast<void**>(a[4]), a[5]};
                emu_lib::run(&delta_sssp<H, P>, g, b, args);
            }};
}

const std::vector<emu_lib::Entry>& emu_lib::kernels() {
    static const std::vector<Entry> k = {
        EMU_KERNEL(delta_partition),
        delta_entry<true, false>("delta_sssp<true, false>"),
        delta_entry<true, true>("delta_sssp<true, true>"),
        delta_entry<false, false>("delta_sssp<false, false>"),
        delta_entry<false, true>("delta_sssp<false, true>"),
    };
    return k;
}

// DeltaParams as compiled: its fields in order and their offsets, then its size, for the
// tests to compare with strategies.py's PARAMS.
#define DELTA_FIELDS(X)                                                                                 \
    X(dist) X(lstamp) X(fstamp) X(rstamp) X(q0) X(q1) X(settled) X(far0) X(far1) X(ctl) X(parent)        \
        X(anchor) X(hubs) X(delta) X(n) X(small_frontier) X(small_edges) X(hub_edges) X(direct_below)
#define DELTA_NAME(f) #f " "
#define DELTA_OFFSET(f) (long long)offsetof(DeltaParams, f),

EMU_EXPORT const char* params_fields() { return DELTA_FIELDS(DELTA_NAME); }

EMU_EXPORT int params_layout(long long* out, int cap) {
    const long long layout[] = {DELTA_FIELDS(DELTA_OFFSET)(long long) sizeof(DeltaParams)};
    const int n = (int)(sizeof(layout) / sizeof(layout[0]));
    for (int i = 0; i < n && i < cap; ++i) out[i] = layout[i];
    return n;
}
