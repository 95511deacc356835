// Launch-floor probes for scripts/fixed_cost.py --floor: what a traversal costs before
// any BFS work, through the same CuPy launch path and the same CUDA-event timing.
//   empty_1: one argument, one CTA (a plain launch)
//   empty_24: 24 arguments like do_bfs's, every thread reaching one grid barrier
//            (launched cooperatively with do.bfs's grid; also captured once as a CUDA
//            graph and launched through it)
//   sync_2:  the same grid and barrier with 2 arguments: what the 22 others cost
// (the module is compiled with cooperative groups on, so CuPy launches all three
// cooperatively)
#include <cooperative_groups.h>

extern "C" __global__ void empty_1(int* out) {
    if (threadIdx.x == 0 && blockIdx.x == 0 && out) out[0] = 1;
}

extern "C" __global__ void empty_24(const int* a0, const int* a1, const int* a2, const int* a3, int n,
                                    int src, long long a6, long long a7, long long a8, int a9,
                                    long long a10, int a11, int* a12, int* a13, unsigned int* a14,
                                    unsigned int* a15, unsigned int* a16, int* a17, int* a18,
                                    unsigned long long* ctl, unsigned long long* a20, int a21,
                                    unsigned long long* a22, int a23) {
    cooperative_groups::this_grid().sync();
    if (threadIdx.x == 0 && blockIdx.x == 0) ctl[0] = (unsigned long long)src + n;
}

extern "C" __global__ void sync_2(unsigned long long* ctl, int src) {
    cooperative_groups::this_grid().sync();
    if (threadIdx.x == 0 && blockIdx.x == 0) ctl[0] = (unsigned long long)src;
}
