// algorithms/sssp/gpu/raval/raval.cu under the CPU emulator (cuda_emu.hpp), as a shared
// library that the real Python launchers drive through ctypes: the emulated test
// (tests/algorithms/sssp/gpu/test_raval_emulated.py) stands numpy in for CuPy and calls
// emu_launch(name, grid, block, args) where CuPy would launch the kernel, so the host
// loop, the buffers and every kernel argument are checked as well as the kernels.
//
// Built once per define set of base.KERNEL_DEFINES (-DRAVAL_SSSP=.. -DRAVAL_WEIGHT64=..).
//   emu_configure(seed, yield_permille)  fiber switches at atomics (races happen)
//   emu_signature(name)  one letter per kernel parameter: i int, l long long, I int*,
//                        L long long*, U unsigned*, Q unsigned long long* (const or not);
//                        null for an unknown kernel
//   emu_launch(name, grid, block, args)  args[k] points at parameter k's value, as in
//                        cudaLaunchKernel; returns 0, or -1 for an unknown kernel
#include "cuda_emu.hpp"
#include "raval.cu"

#include <malloc.h>

#include <cstring>
#include <string>
#include <type_traits>
#include <utility>

#define EMU_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

uint64_t g_seed = 1;
double g_yield = 0.0;

// Every launch allocates a 256 KB stack per fiber; served from the heap and kept there
// (not mmap'ed and unmapped each time), they cost no page faults after the first
// launch: about 2.5x faster launches. Process-wide, so only in this test library.
[[maybe_unused]] const bool g_heap_stacks = [] {
    mallopt(M_MMAP_THRESHOLD, 256 << 20);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
    return true;
}();

template <class T>
constexpr char kind() {
    using U = std::remove_cv_t<T>;
    if constexpr (std::is_pointer_v<U>) {
        using E = std::remove_cv_t<std::remove_pointer_t<U>>;
        if constexpr (std::is_same_v<E, int>) return 'I';
        else if constexpr (std::is_same_v<E, long long> || std::is_same_v<E, long>) return 'L';
        else if constexpr (std::is_same_v<E, unsigned int>) return 'U';
        else if constexpr (std::is_same_v<E, unsigned long long> || std::is_same_v<E, unsigned long>) return 'Q';
        else return '?';
    } else if constexpr (std::is_same_v<U, int>) {
        return 'i';
    } else if constexpr (std::is_same_v<U, long long> || std::is_same_v<U, long>) {
        return 'l';
    } else {
        return '?';
    }
}

template <class... A>
std::string signature(void (*)(A...)) {
    return std::string{kind<A>()...};
}

template <class... A, size_t... I>
void invoke(void (*f)(A...), void** args, std::index_sequence<I...>) {
    f(*static_cast<std::remove_cv_t<A>*>(args[I])...);
}

template <class... A>
void run(void (*f)(A...), int grid, int block, void** args) {
    emu::launch(grid, block, [&] { invoke(f, args, std::index_sequence_for<A...>{}); }, g_seed++,
                g_yield);
}

struct Entry {
    const char* name;
    std::string sig;
    void (*launch)(int, int, void**);
};

#define KERNEL(f) Entry{#f, signature(&f), [](int g, int b, void** a) { run(&f, g, b, a); }}

const Entry* find(const char* name) {
    static const Entry entries[] = {
        KERNEL(raval_init),         KERNEL(raval_node_relax),   KERNEL(raval_ns_propagate),
        KERNEL(raval_ep_relax),     KERNEL(raval_coo_src),      KERNEL(raval_wd_offsets),
        KERNEL(raval_wd_relax),     KERNEL(raval_hp_sub),       KERNEL(raval_parents_init),
        KERNEL(raval_parents_tight),
    };
    for (const Entry& e : entries)
        if (std::strcmp(e.name, name) == 0) return &e;
    return nullptr;
}

}  // namespace

EMU_EXPORT void emu_configure(unsigned long long seed, int yield_permille) {
    g_seed = seed;
    g_yield = yield_permille / 1000.0;
}

EMU_EXPORT const char* emu_signature(const char* name) {
    const Entry* e = find(name);
    return e ? e->sig.c_str() : nullptr;
}

EMU_EXPORT int emu_launch(const char* name, int grid, int block, void** args) {
    const Entry* e = find(name);
    if (!e) return -1;
    e->launch(grid, block, args);
    return 0;
}
