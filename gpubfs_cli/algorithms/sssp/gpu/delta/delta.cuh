// Delta-stepping and near-far SSSP (sssp.delta, sssp.near_far): constants shared by
// delta.cu, its launcher (strategies.py reads the #defines with header_constants) and
// the CPU emulation (tests/gpu/emu/delta_driver.cpp).
#pragma once

#include "common.cuh"
#include "persistent.cuh"

#ifndef DELTA_BLOCK
#define DELTA_BLOCK 256  // threads per CTA (a multiple of 32)
#endif
#ifndef DELTA_WEIGHT64
#define DELTA_WEIGHT64 0  // int64 edge weights (else int32)
#endif

// anchor[v] of a vertex the parents pass has not given a parent yet.
#define DELTA_UNANCHORED 2147483647

// Control words (unsigned 64-bit). A queue size is cleared by thread 0 only between its
// last read and its next append with a grid barrier on each side: three rotating slots
// for the frontiers (a round reads one, appends to the next, clears the third).
#define CTL_LSIZE 0          // + (light round % 3): entries of that round's frontier
#define CTL_FSIZE 3          // + (far pile & 1): entries of the far pile
#define CTL_RSIZE 5          // vertices the current bucket settled (the heavy round's list)
#define CTL_MIN 6            // the far pile's smallest live distance (the empty-bucket skip)
#define CTL_BUCKETS 7        // buckets processed
#define CTL_LIGHT_ROUNDS 8   // light relaxation rounds (near-far: near rounds)
#define CTL_HEAVY_ROUNDS 9   // heavy rounds that had settled vertices
#define CTL_RELAXATIONS 10   // edges relaxed (light and heavy rounds)
#define CTL_PARENT_ROUNDS 11 // rounds of the parents pass (predecessors only)
#define CTL_PSIZE 12         // + (parents round % 3): vertices anchored in that round
#define CTL_WORDS 16
