// The prelude of the persistent cooperative kernels (do.cu, merrill.cu, lbbfs.cu,
// bfs4k.cu's bfs4k_coop): one launch runs a whole search, its CTAs meeting at grid
// barriers, so the host launches it cooperatively with at most the resident number of
// CTAs (with more, a grid barrier would wait for CTAs that never start).
//
// Emulated builds (GPUBFS_EMULATE: tests/gpu/emu compiles the kernel files with g++)
// get the emulator's per-block shared storage, grid barrier and clock instead.
#pragma once

#include "common.cuh"

#ifdef GPUBFS_EMULATE
#define GPUBFS_SHARED(T, name) T& name = *emu_block_shared<T>()
#define GPUBFS_GRID_SYNC() emu_grid_sync()
#define GPUBFS_NOW() emu_clock()
#define GPUBFS_CYCLES() emu_clock()
#define GPUBFS_PAUSE(ns) emu_spin_pause()
#else
#include <cooperative_groups.h>
#define GPUBFS_SHARED(T, name) __shared__ T name
#define GPUBFS_GRID_SYNC() cooperative_groups::this_grid().sync()
// Nanoseconds, comparable across SMs (clock64 is per SM).
__device__ __forceinline__ unsigned long long globaltimer_ns() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}
#define GPUBFS_NOW() globaltimer_ns()
// This SM's clock cycles, finer than globaltimer: for phases of well under a microsecond
// (the memory clobber keeps the compiler from moving loads and stores across it).
__device__ __forceinline__ unsigned long long clock_cycles() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)::"memory");
    return t;
}
#define GPUBFS_CYCLES() clock_cycles()
// A spinning thread's wait between polls (emulated: a fiber switch, so the others run).
#define GPUBFS_PAUSE(ns) __nanosleep(ns)
#endif

// This thread's index in the grid, and the grid's threads, for CTAs of BLOCK threads
// (the compile-time size: a multiply by a constant). T = long long for a kernel whose
// sums of indices may pass INT_MAX (a 64-bit product).
template <int BLOCK, class T = int>
__device__ __forceinline__ T grid_thread() {
    if constexpr (sizeof(T) > 4) return (T)blockIdx.x * BLOCK + threadIdx.x;
    else return blockIdx.x * BLOCK + threadIdx.x;
}
template <int BLOCK, class T = int>
__device__ __forceinline__ T grid_threads() {
    if constexpr (sizeof(T) > 4) return (T)gridDim.x * BLOCK;
    else return gridDim.x * BLOCK;
}
// The same for warps (grid-stride loops of one warp per item).
template <int BLOCK>
__device__ __forceinline__ int grid_warp() {
    return (blockIdx.x * BLOCK + threadIdx.x) >> 5;
}
template <int BLOCK>
__device__ __forceinline__ int grid_warps() {
    return (gridDim.x * BLOCK) >> 5;
}

struct NoWord {
    __device__ void operator()(int) const {}
};

// A search's start, grid-stride: every label -1 (no parent) but the source's, 0 and its
// own parent, and the visited bitmask holding the source's bit alone; with `seed` false
// the source is left unvisited (a kernel whose first step labels it). per_word(w) runs
// beside each bitmask word (another per-vertex mask to clear). The caller's grid
// barrier follows.
template <int BLOCK, bool PRED, class PerWord = NoWord>
__device__ __forceinline__ void init_search(int n, int src, bool seed, int* dist, int* parent,
                                            unsigned int* visited, PerWord per_word = PerWord()) {
    const int gtid = grid_thread<BLOCK>(), gstride = grid_threads<BLOCK>();
    for (int i = gtid; i < n; i += gstride) {
        dist[i] = (seed && i == src) ? 0 : -1;
        if (PRED) parent[i] = (seed && i == src) ? src : -1;
    }
    const int words = (n + 31) >> 5;
    for (int w = gtid; w < words; w += gstride) {
        visited[w] = (seed && w == (src >> 5)) ? (1u << (src & 31)) : 0u;
        per_word(w);
    }
}

// The optional per-level profile: thread 0 of CTA 0 writes word `word` of level L's
// record (WORDS words a level) when there is one with room for L; called just after a
// grid barrier, where every CTA agrees on L.
template <int WORDS>
__device__ __forceinline__ void prof_stamp(unsigned long long* prof, int cap, int L, int word,
                                           unsigned long long value) {
    if (prof && L < cap && blockIdx.x == 0 && threadIdx.x == 0) prof[(size_t)L * WORDS + word] = value;
}
