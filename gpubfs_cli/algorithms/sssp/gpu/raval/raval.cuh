// Constants raval.cu and its launcher (base.py, through header_constants) both use.
#pragma once

// Every relaxation kernel is compiled with __launch_bounds__(RAVAL_MAX_BLOCK), so any
// block size up to the paper's 1024 threads launches.
#define RAVAL_MAX_BLOCK 1024

// anchor[v] of a vertex the parents pass has not given a parent yet.
#define RAVAL_UNANCHORED 2147483647

// Control words (int32). A round r appends to slot CTL_OUT + 2 * (r & 1) and clears the
// other parity's two words, which the host read before launching round r.
#define CTL_OUT 0       // + 2 * (round & 1): nodes the relaxation pushed in that round
#define CTL_CHILD 1     // + 2 * (round & 1): children NS's propagation pass pushed after them
#define CTL_SUB 4       // + (sub & 1): entries HP's sub-iteration `sub` left for the next one
#define CTL_REACHED 6   // parents pass: vertices with a distance
#define CTL_ANCHORED 7  // parents pass: vertices given a parent (the source excluded)
#define CTL_WORDS 8
