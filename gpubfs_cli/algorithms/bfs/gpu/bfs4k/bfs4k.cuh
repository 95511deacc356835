// BFS-4K (Busato, Bombieri): constants both bfs4k.cu and the Python launcher read
// (header_constants), the kernels' parameter struct, and the shims (beside persistent.cuh's) that let the CPU emulator
// (tests/gpu/emu, compiled with g++ and -DGPUBFS_EMULATE) run the kernels without a GPU.
#pragma once

#include "common.cuh"
#include "persistent.cuh"

// BFS4K_SHARED: the static struct (GPUBFS_SHARED), then the dynamic part (the
// emulator's per-block storage holds them in that order).
#ifdef GPUBFS_EMULATE
#define BFS4K_SHARED(T, sh, dyn) \
    GPUBFS_SHARED(T, sh);        \
    unsigned char* dyn = reinterpret_cast<unsigned char*>(&sh) + ((sizeof(T) + 15) & ~size_t(15))
// Lets another fiber run between a hash-table write and its read-back, so that the
// emulated duplicate detection sees other threads' writes (as warps do on the GPU).
#define BFS4K_HASH_YIELD() emu::maybe_yield()
#else
#define BFS4K_SHARED(T, sh, dyn)                                                  \
    GPUBFS_SHARED(T, sh);                                                         \
    extern __shared__ __align__(16) unsigned char bfs4k_dynamic_shared[];         \
    unsigned char* dyn = bfs4k_dynamic_shared
#define BFS4K_HASH_YIELD()
#endif

#ifndef BFS4K_K6
#define BFS4K_K6 128  // threads per block of the multi-block kernels (knob K6), one build each
#endif
#ifndef BFS4K_SINGLE_BLOCK
#define BFS4K_SINGLE_BLOCK 1024  // threads of the single-block kernel (MaxThreadsPerBlock)
#endif
#ifndef BFS4K_DP
#define BFS4K_DP 0  // 1: the level kernel launches child kernels (needs -rdc=true)
#endif
#ifndef BFS4K_LQ
#define BFS4K_LQ 16  // local queue entries per thread (registers)
#endif
#ifndef BFS4K_UNROLL
#define BFS4K_UNROLL 2  // neighbours per lane per round, their loads in flight together
#endif

// Kernel kinds, in the order the host may launch them; MODE_DONE: empty frontier.
#define MODE_DONE 0
#define MODE_SINGLE 1
#define MODE_COOP 2
#define MODE_LEVEL 3

// Duplicate detection (section 6).
#define DEDUP_OFF 0
#define DEDUP_HASH64 1  // BFS-4K: one table per block, (vertex, thread id) in one 64-bit word
#define DEDUP_WARP 2    // Merrill et al.'s: one table per warp, vertex and lane written apart

// status[] words. Three rotating slots: level L reads slot L % 3, appends to slot
// (L + 1) % 3 and clears slot (L + 2) % 3, so no grid-wide barrier is needed to reset.
#define ST_LEVEL 0        // the next level to process
#define ST_BLOCKS_DONE 1  // the level kernel's last-block detection
#define ST_SLOTS 4
#define SLOT_COUNT 0  // vertices in the frontier of this slot's level
#define SLOT_DP 1     // 1 if one of them is expanded by a child kernel
#define SLOT_WORDS 2
#define ST_WORDS 16

// The kernels' configuration: the knobs and the sizes derived from them, the same for
// every launch of a graph (copied into each block's shared memory).
struct Bfs4kCfg {
    long long dp_degree;  // a list at least this long goes to a child kernel (0: no DP)
    int n;
    int K1;           // smallest virtual warp
    int dynamic;      // 1: warp size chosen per level; 0: always K1
    int K4;           // edge-discover when frontier * K4 < resident threads (0: never)
    int ext;          // extended edge-discover
    int K7;           // induced coalescing from K7 items per lane on average (0: never)
    int dedup;        // DEDUP_*
    int binary;       // ballot/popc prefix sum when every lane holds at most one item
    int K3;           // neighbours per child thread
    int ft;           // single-block frontier threshold (shared frontier capacity)
    int ft_low;       // the single-block kernel takes over again below this
    int coop_limit;   // largest frontier of the cooperative kernel (0: never)
    int hash_multi;   // hash entries per block, multi-block kernels (power of two)
    int hash_single;  // hash entries of the single-block kernel
    int hash_child;   // hash entries per child block
};

// Every kernel's parameters but the CSR arrays (and the init kernel's source): built once
// per graph and kind of BFS by the host (bfs4k.py's PARAMS, a numpy structured dtype of
// this layout with `config`'s fields in line, compared with the compiled one by
// tests/algorithms/bfs/gpu/test_bfs4k_emulated.py) and passed by value; a child kernel
// gets its parent's. The CSR arrays stay kernel parameters of their own: `const
// __restrict__` there is what lets nvcc read them through the read-only path
// (ld.global.nc), which it does not do for a struct member.
struct Bfs4kParams {
    int* dist;
    int* parent;  // null: no predecessors
    unsigned int* bitmask;
    int* q0;      // frontiers of even and odd levels
    int* q1;
    int* status;
    int* counters;
    Bfs4kCfg config;
};

// counters[] (int32 words), zeroed by the init kernel.
#define CNT_SINGLE_LEVELS 0     // levels run by the single-block kernel
#define CNT_COOP_LEVELS 1       // levels run by the cooperative multi-block kernel
#define CNT_LEVEL_LEVELS 2      // levels run by one multi-block launch each
#define CNT_CHILD_LAUNCHES 3    // child kernels launched (dynamic parallelism)
#define CNT_CHILD_FAILED 4      // launches refused (the parent expanded the list itself)
#define CNT_EDGE_DISCOVER 5     // levels expanded with edge-discover
#define CNT_HASH_DUPLICATES 6   // candidates the hash table dropped as duplicates
#define CNT_CLAIMS_LOST 7       // candidates whose atomic claim found the vertex visited
#define CNT_KERNELS_ACTIVE 8    // launches that found work (the rest returned at once)
#define CNT_FLUSHES 9           // warp flushes of the local queues
#define CNT_COALESCED 10        // of which with induced coalescing
#define CNT_VWARP 11            // 6 words: levels with virtual warps of 1, 2, 4, 8, 16, 32
#define CNT_WORDS 20
