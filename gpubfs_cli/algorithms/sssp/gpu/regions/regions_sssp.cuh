// Region-local asynchronous SSSP (sssp.regions): constants shared by regions_sssp.cu, its
// launcher (strategies.py reads the #defines with header_constants, beside
// region_queue.cuh's) and the CPU emulation harness (tests/gpu/emu/regions_sssp_driver.cpp).
#pragma once

#include "common.cuh"
#include "region_queue.cuh"

#ifndef RS_BLOCK
#define RS_BLOCK 256  // threads per CTA (a multiple of 32)
#endif
#ifndef RS_MIN_BLOCKS
#define RS_MIN_BLOCKS 1  // launch bound
#endif

// The largest region (vertices): its 64-bit labels, its edges and their weights live in
// shared memory while a CTA runs it (half regions.bfs's: the labels are twice as wide and
// the weights come too).
#ifndef RS_REGION_CAP
#define RS_REGION_CAP 1024
#endif
// Edges leaving the region that a run lowered, kept in shared memory until the run sends
// them (every flush_steps steps, and at its end). A full outbox sends the edge at once.
#ifndef RS_OUTBOX
#define RS_OUTBOX 256
#endif
// The most edges of a region a run copies into shared memory (heads and weights): a region
// with more runs from the global CSR.
#ifndef RS_EDGE_CAP
#define RS_EDGE_CAP (4 * RS_REGION_CAP)
#endif
#define RS_OUTSIDE 0xffffu  // a copied edge whose head is in another region
// Threads a frontier vertex's edges are spread over, each taking every RS_LANES-th.
#ifndef RS_LANES
#define RS_LANES 4
#endif

#define RS_UNREACHED 0xffffffffffffffffull  // a distance no path has lowered

// ctl[] words (unsigned int): region_queue.cuh's RQ_*, and these
#define RS_PARENT_ROUNDS 3  // the parents' rounds (the positive-weight one included)
#define RS_ZERO 10          // three words: a zero-weight round anchored a vertex (by round mod 3)
#define RS_CTL_WORDS 13
