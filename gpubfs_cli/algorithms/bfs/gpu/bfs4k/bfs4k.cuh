// BFS-4K (Busato, Bombieri): constants both bfs4k.cu and the Python launcher read
// (header_constants), and the shims (beside persistent.cuh's) that let the CPU emulator
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

// params[] (int64 words), written once per graph by the host.
#define P_N 0
#define P_K1 1           // smallest virtual warp
#define P_DYNAMIC 2      // 1: warp size chosen per level; 0: always K1
#define P_K4 3           // edge-discover when frontier * K4 < resident threads (0: never)
#define P_EXT 4          // extended edge-discover
#define P_K7 5           // induced coalescing from K7 items per lane on average (0: never)
#define P_DEDUP 6
#define P_BINARY 7       // ballot/popc prefix sum when every lane holds at most one item
#define P_DP_DEGREE 8    // a list at least this long goes to a child kernel (0: no DP)
#define P_K3 9           // neighbours per child thread
#define P_FT 10          // single-block frontier threshold (shared frontier capacity)
#define P_FT_LOW 11      // the single-block kernel takes over again below this
#define P_COOP_LIMIT 12  // largest frontier of the cooperative kernel (0: never)
#define P_HASH_MULTI 13  // hash entries per block, multi-block kernels (power of two)
#define P_HASH_SINGLE 14 // hash entries of the single-block kernel
#define P_HASH_CHILD 15  // hash entries per child block
#define P_WORDS 16

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
