// Load-balanced BFS (merge-path expand): constants shared by lbbfs.cu, its launcher
// (strategies.py reads the #defines) and the CPU emulation harness
// (tests/gpu/emu/lbbfs_driver.cpp compiles lbbfs.cu with g++ and -DGPUBFS_EMULATE;
// the shims for it are persistent.cuh's).
#pragma once

#include "mergepath.cuh"
#include "persistent.cuh"

#ifndef LBBFS_CTA
#define LBBFS_CTA 256  // CTA_SIZE: threads per CTA (a multiple of 32)
#endif
#ifndef LBBFS_TILE
#define LBBFS_TILE 1024  // TILE_SIZE: merge-path steps (or outputs) per CTA tile
#endif
#ifndef LBBFS_MIN_BLOCKS
#define LBBFS_MIN_BLOCKS 4  // launch bound: caps registers at 64 for 256-thread CTAs
#endif

// Strategy codes (strategies.py mirrors them).
#define LB_PERFECT 0  // section 4.1: expand to a global location array, then gather
#define LB_BGATHER 1  // section 4.2: vertical tiles of TILE outputs, fused
#define LB_BREDIST 2  // section 4.3: diagonal tiles of TILE steps, fused
#define LB_HYBRID 3   // section 4.4: 4.3 when output_total >= f0 * input_total, else 4.2

// ctl[] words (unsigned 64-bit). The queue of level L is described by slot L % 3:
// (count << shift) | (sum of the out-degrees of its vertices); level L fills slot
// (L + 1) % 3 and clears slot (L + 2) % 3, so one grid barrier per level suffices.
#define CTL_QUEUE 0      // 3 slots
#define CTL_LEVELS 3     // BFS levels run (non-empty frontiers)
#define CTL_BGATHER 4    // levels run as balanced gathering (4.2)
#define CTL_BREDIST 5    // levels run as balanced redistribution (4.3)
#define CTL_PERFECT 6    // levels run as perfect balance (4.1)
#define CTL_WORDS 8

// Optional profile (unsigned 64-bit words): per-CTA busy time summed over the CTAs.
#define PROF_REDIST 0    // ns in work redistribution (partitions, staging, expand)
#define PROF_GATHER 1    // ns in neighbour gathering (lookups, labels, enqueue)
#define PROF_START 2     // %globaltimer at the start (CTA 0)
#define PROF_END 3       // %globaltimer at the end (CTA 0)
#define PROF_WORDS 4
