// Bit-parallel multi-source BFS (msbfs.*): constants shared by msbfs.cu, its launcher
// (strategies.py reads the #defines with header_constants) and the CPU emulation
// harness (tests/gpu/emu/msbfs_driver.cpp compiles msbfs.cu with -DGPUBFS_EMULATE).
#pragma once

#include "common.cuh"
#include "persistent.cuh"

#ifndef MSBFS_BLOCK
#define MSBFS_BLOCK 256  // threads per CTA (a multiple of 32)
#endif
#ifndef MSBFS_MIN_BLOCKS
#define MSBFS_MIN_BLOCKS 4  // launch bound: registers capped so 1024 threads fit an SM
#endif

// Edge offsets: 32-bit, or 64-bit in the build the launcher picks for graphs of 2^31
// edges or more.
#ifndef MSBFS_OFFSET64
#define MSBFS_OFFSET64 0
#endif

#ifndef MSBFS_SPREAD
#define MSBFS_SPREAD 1024  // the hub queue's room: lists a top-down level leaves to its hub pass
#endif

// A bottom-up level's held lists (their in-edges past warp_edges): a warp of the hub pass
// takes this many of one list's in-edges at a time; slot L + 1's MS_SLOT_HUBS word
// counts the lists above MS_HELD_SHIFT and their chunks below it, one atomicAdd a list,
// so a list's first chunk grows with its place in the held queue.
#define MSBFS_HELD_CHUNK 1024
#define MS_HELD_SHIFT 40

#define MSBFS_WORD 64  // the sources one 64-bit word holds, a bit each
#define MSBFS_MAX_WORDS 4  // the widest build: 256 sources a pass
#ifndef MSBFS_WORDS
#define MSBFS_WORDS 1  // 64-bit words in a vertex's source sets: 64, 128 or 256 sources a pass
#endif
#define MSBFS_MILLI 1000  // alpha and beta reach the kernel in thousandths

// ctl[] words (64-bit). Three rotating slots: level L reads slot L%3, fills slot
// (L+1)%3 and clears slot (L+2)%3, so one grid barrier per level is enough. A slot is as
// wide as its build's source sets need (a wider slot costs the 64-source build a spill);
// the words after the slots sit where the widest build's end.
#define MS_SLOT_NF 0     // frontier vertices (also the queue's reservation counter)
#define MS_SLOT_MF 1     // out-edges of the frontier's vertices
#define MS_SLOT_INF 2    // in-edges of the vertices every source has now seen (leave m_u)
#define MS_SLOT_FOUND 3  // the sources that reached some vertex at this level (MSBFS_WORDS words)
#define MS_SLOT_HUBS (MS_SLOT_FOUND + MSBFS_WORDS)  // level L's lists left to its hub pass (slot L + 1): top-down, hub queue entries; bottom-up, held lists and chunks
#define MS_SLOT_WORDS (MS_SLOT_HUBS + 1)
#define MS_SLOTS_END 24       // 3 x the widest slot (4 + MSBFS_MAX_WORDS)
#define MS_CTL_LEVELS 24      // levels the pass ran (the last one found nothing)
#define MS_CTL_BU_LEVELS 25   // of which bottom-up
#define MS_CTL_HUB_LEVELS 26  // levels that ran a hub pass (either direction)
#define MS_CTL_WORDS 27

// Per-level counters (the counters and profile builds): counters[kind * cap + L], level
// L being the step that expands frontier L (its labels are distance L + 1).
#define MS_CNT_DIR 0       // 0 top-down, 1 bottom-up
#define MS_CNT_FRONTIER 1  // frontier vertices (queue L's entries)
#define MS_CNT_VERTICES 2  // top-down: queue entries expanded; bottom-up: vertices some live source still needs
#define MS_CNT_EDGES 3     // top-down: out-edges gathered; bottom-up: in-edges scanned (a thread's and its warp's)
#define MS_CNT_LABELS 4    // (source, vertex) labels written
#define MS_CNT_KINDS 5

// Profile (profile build): %globaltimer ns from CTA 0's thread 0: prof[0] the kernel's
// start, prof[1 + L] level L's start (after the barrier that ends level L - 1), and
// prof[1 + levels] the end of the last level.
#define MS_PROF_KERNEL 0
#define MS_PROF_LEVEL0 1

namespace msbfs {

#if MSBFS_OFFSET64
typedef long long offset_t;
typedef unsigned long long edge_count_t;
#else
typedef int offset_t;
typedef unsigned int edge_count_t;  // a count of edges, at most m
#endif

// One pass's fixed state, msbfs_bfs's by-value parameter: built once by the launcher
// (strategies.py's PARAMS mirrors it field by field, in this order), so a launch passes
// the struct and the batch's sources. Pointers are device addresses (8 bytes whatever
// offset_t is: one layout for every build); buffer sizes are the launcher's.
struct Params {
    const offset_t* __restrict__ row;     // out-edges (CSR)
    const int* __restrict__ col;
    const offset_t* __restrict__ in_row;  // in-edges (the CSR itself when undirected or top-down only)
    const int* __restrict__ in_col;
    int* dist;                     // width rows of n
    int* parent;                   // width rows of n, or null without predecessors
    unsigned long long* seen;      // n source sets (MSBFS_WORDS words each)
    unsigned long long* visit;     // three arrays of n source sets
    int* queue;                    // three queues of n, the hub queue (MSBFS_SPREAD), then the held
                                   // lists (a vertex and its first chunk, two ints each)
    unsigned long long* ctl;       // MS_CTL_WORDS
    int* levels;                   // per source: its deepest level + 1
    unsigned long long* counters;  // MS_CNT_KINDS rows of counter_cap levels (STATS), else null
    unsigned long long* prof;      // prof_cap stamps (profile), else null
    // The wider builds, per vertex: the last level that queued it and how many sources
    // have reached it (2n ints); null in the 64-source build, whose one atomic word tells both
    int* marks;
    long long m_in;                // in-edges (m)
    long long alpha_milli;         // the switch thresholds, in thousandths (MSBFS_MILLI)
    long long beta_milli;
    int n;
    int hub_edges;                 // a top-down level's lists this long go to the hub pass (0: none)
    int counter_cap;
    int prof_cap;
    // Read late only, so last and paired: adjacent ints load as one pair, and one paired
    // with a field read at entry would be held in a register from there.
    int bottom_up;                 // 0 holds every level top-down
    int thread_edges;              // bottom-up: in-edges a thread scans before its warp joins in (0: no limit)
    int warp_edges;                // bottom-up: a list's in-edges past these go to the hub pass (0: none do)
};

}  // namespace msbfs

#define MSBFS_PARAMS_BYTES 168  // sizeof(msbfs::Params), checked by msbfs.cu and strategies.py
