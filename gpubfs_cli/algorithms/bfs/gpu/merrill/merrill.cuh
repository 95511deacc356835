// Merrill, Garland, Grimshaw (PPoPP'12): constants shared by merrill.cu, its launcher
// and the CPU emulation harness (tests/gpu/emu), which compiles merrill.cu with g++ and
// -DGPUBFS_EMULATE to check the kernel logic on machines without a GPU (the shims for
// it are persistent.cuh's).
#pragma once

#include "common.cuh"
#include "persistent.cuh"
#include "small_frontier.cuh"

#ifndef MERRILL_BLOCK
#define MERRILL_BLOCK 256  // threads per CTA (a multiple of 32)
#endif
#ifndef MERRILL_MIN_BLOCKS
#define MERRILL_MIN_BLOCKS 4  // launch bound: caps registers at 64 so 4 CTAs fit an SM
#endif
#ifndef MERRILL_HISTORY
#define MERRILL_HISTORY 4096  // history-culling hash entries per CTA (power of two)
#endif
#ifndef MERRILL_SMALL_CAP
// Small-frontier mode: the largest threshold (frontier items). Its queues (8 ints an
// entry) share the history table's shared memory: 512 entries fill its 16 KB.
#define MERRILL_SMALL_CAP 512
#endif

// Knob codes (the Python side mirrors them).
#define GATHER_SERIAL 0
#define GATHER_WARP 1
#define GATHER_SCAN 2
#define GATHER_SCAN_WARP_CTA 3

#define CULL_BITMASK 0
#define CULL_LABEL 1
#define CULL_WARP 2
#define CULL_HISTORY 3
#define CULL_ATOMIC 4  // not in the paper: exact test-and-set (the overflow fallback)

#define STRAT_EXPAND_CONTRACT 0
#define STRAT_CONTRACT_EXPAND 1
#define STRAT_TWO_PHASE 2
#define STRAT_HYBRID 3

// ctl[] words. Three rotating slots: iteration L reads slot L%3, fills slot (L+1)%3
// and clears slot (L+2)%3, so one grid barrier per phase is enough.
#define CTL_VCOUNT 0    // vertex-queue length
#define CTL_ECOUNT 1    // edge-queue length
#define CTL_OVF 2       // a queue of this slot overflowed
#define CTL_BIG_OVF 3   // this slot's huge list overflowed (entries past big_cap, or a
                        // total past INT_MAX): it must not be read
#define CTL_SLOT 4      // words per slot
#define CTL_OVERFLOW 12 // sticky: some queue overflowed (the kernel reruns with CULL_ATOMIC;
                        // still set at the end: the atomic pass overflowed too)
#define CTL_ITERS 13    // iterations run (by the last pass)
#define CTL_RERUNS 14   // 1 when the traversal was rerun with CULL_ATOMIC
#define CTL_SF 16       // SF_WORDS words of the small-frontier protocol (small_frontier.cuh)
#define CTL_WORDS 20

// Per-level counters, counters[k * cap + level].
#define CNT_ENQUEUED 0  // vertices that passed culling and were labelled at this level
#define CNT_EXPANDED 1  // adjacency lists of this level's vertices gathered
#define CNT_EDGES 2     // neighbours gathered from this level's vertices
#define CNT_KINDS 3

// Optional profile, 4 words per iteration: start time (ns), time after the first
// phase (two-phase and huge-list iterations), frontier size, phase kind; the end time
// follows the last iteration.
#define PROF_WORDS 4
#define KIND_EC 0
#define KIND_EC_HUGE 1
#define KIND_CE 2
#define KIND_TWO_PHASE 3
#define KIND_SMALL 4  // run by CTA 0 alone (small-frontier mode)

// Huge-list entries (grid-wide gathering): packed count and edge total per slot. An
// add past big_cap entries or past an INT_MAX total sets CTL_BIG_OVF, so a slot whose
// flag is clear holds at most big_cap entries and INT_MAX edges: the fields never
// wrap as long as big_cap < 2^24 (the host keeps it below BIG_COUNT_LIMIT).
#define BIG_COUNT_SHIFT 40
#define BIG_COUNT_LIMIT 16777216  // 1 << (64 - BIG_COUNT_SHIFT)
#define BIG_TOTAL_MASK ((1ull << BIG_COUNT_SHIFT) - 1)
