// Launch-floor probes for scripts/fixed_cost.py --floor: what a traversal costs before
// any BFS work, through the same CuPy launch path and the same CUDA-event timing.
//   empty_1:      one argument, one CTA (a plain launch)
//   empty_struct: do_bfs's signature (a 192-byte parameter struct by value, the source
//                 and a source pointer), every thread reaching one grid barrier
//                 (launched cooperatively with do.bfs's grid; also captured once as a
//                 CUDA graph and launched through it)
//   sync_2:       the same grid and barrier with 2 arguments: what the struct costs
// (the module is compiled with cooperative groups on, so CuPy launches all three
// cooperatively)
#include <cooperative_groups.h>

struct Params192 {  // do_bfs's Params is 192 bytes (DO_PARAMS_BYTES)
    unsigned long long* ctl;
    unsigned long long n;
    unsigned long long rest[22];
};

extern "C" __global__ void empty_1(int* out) {
    if (threadIdx.x == 0 && blockIdx.x == 0 && out) out[0] = 1;
}

extern "C" __global__ void empty_struct(const Params192 p, int src, const int* src_at) {
    cooperative_groups::this_grid().sync();
    if (threadIdx.x == 0 && blockIdx.x == 0) p.ctl[0] = (unsigned long long)(src_at ? *src_at : src) + p.n;
}

extern "C" __global__ void sync_2(unsigned long long* ctl, int src) {
    cooperative_groups::this_grid().sync();
    if (threadIdx.x == 0 && blockIdx.x == 0) ctl[0] = (unsigned long long)src;
}
