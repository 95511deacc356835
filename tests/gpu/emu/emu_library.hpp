// The ctypes face of an emulated kernel file: a driver includes cuda_emu.hpp, the .cu
// file, then this header, and defines emu_lib::kernels() listing the file's kernels
// (EMU_KERNEL(name), template instantiations by their name expression). Built as a
// shared library, the real Python launchers drive it through tests/gpu/emulated_cupy.py:
// numpy stands in for CuPy and emu_launch(name, grid, block, args) runs where CuPy
// would launch the kernel, so the host loop, the buffers and every kernel argument are
// checked as well as the kernels.
//   emu_configure(seed, yield_permille)  fiber switches at atomics (races happen)
//   emu_signature(name)  one letter per kernel parameter: i int, l long long, I int*,
//                        L long long*, U unsigned*, Q unsigned long long*,
//                        B unsigned char* (const or not); null for an unknown kernel
//   emu_launch(name, grid, block, args)  args[k] points at parameter k's value, as in
//                        cudaLaunchKernel; returns 0, or -1 for an unknown kernel
//   emu_set_statics(name, offsets, sizes, n)  the function-scope __shared__ statics that
//                        kernel `name` uses (EMU_STATIC_SHARED builds), as offsets from the
//                        library's load address (its symbol table's values): while it
//                        runs, each block has its own copy of them
#pragma once

#include <dlfcn.h>
#include <malloc.h>

#include <cstring>
#include <map>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#define EMU_EXPORT extern "C" __attribute__((visibility("default")))

namespace emu_lib {

inline uint64_t g_seed = 1;
inline double g_yield = 0.0;

// Every launch allocates 128 KB of shared memory per block (fiber stacks are kept in a
// pool, cuda_emu.hpp); served from the heap and kept there (not mmap'ed and unmapped
// each time), they cost no page faults after the first launch. Process-wide, so only in
// these test libraries.
[[maybe_unused]] inline const bool g_heap_stacks = [] {
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
        else if constexpr (std::is_same_v<E, unsigned char>) return 'B';
        else if constexpr (std::is_same_v<E, int4>) return 'V';  // four ints an entry
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

// Defined by the driver: every kernel of its file.
const std::vector<Entry>& kernels();

// Per kernel name: the statics each of its blocks gets a copy of.
inline std::map<std::string, std::vector<emu::Region>> g_statics;

inline const Entry* find(const char* name) {
    for (const Entry& e : kernels())
        if (std::strcmp(e.name, name) == 0) return &e;
    return nullptr;
}

}  // namespace emu_lib

// A kernel, or a template instantiation named as CuPy's name expressions name it
// (EMU_KERNEL(vwarp_level<4>)).
#define EMU_KERNEL(...)                                                                   \
    emu_lib::Entry {                                                                      \
        #__VA_ARGS__, emu_lib::signature(&__VA_ARGS__),                                   \
            [](int g, int b, void** a) { emu_lib::run(&__VA_ARGS__, g, b, a); }           \
    }

EMU_EXPORT void emu_configure(unsigned long long seed, int yield_permille) {
    emu_lib::g_seed = seed;
    emu_lib::g_yield = yield_permille / 1000.0;
}

EMU_EXPORT const char* emu_signature(const char* name) {
    const emu_lib::Entry* e = emu_lib::find(name);
    return e ? e->sig.c_str() : nullptr;
}

EMU_EXPORT int emu_launch(const char* name, int grid, int block, void** args) {
    const emu_lib::Entry* e = emu_lib::find(name);
    if (!e) return -1;
    const auto s = emu_lib::g_statics.find(name);
    emu::statics() = s == emu_lib::g_statics.end() ? std::vector<emu::Region>{} : s->second;
    e->launch(grid, block, args);
    return 0;
}

EMU_EXPORT void emu_set_statics(const char* name, const long long* offsets, const long long* sizes,
                                int n) {
    Dl_info info;
    dladdr(reinterpret_cast<void*>(&emu_launch), &info);
    auto& regions = emu_lib::g_statics[name];
    regions.clear();
    for (int i = 0; i < n; ++i)
        regions.push_back({static_cast<char*>(info.dli_fbase) + offsets[i], (size_t)sizes[i]});
}
