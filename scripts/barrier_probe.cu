// What one level of do.bfs's mid-frontier mode costs before any BFS work
// (scripts/barrier_probe.py): a loop of barriers among the first `team` CTAs, alone or
// after one dependent L2 round trip (an ld.global.cg) or one returned atomic per
// iteration, as the mode's chain has them.
//   mode 0: small_frontier.cuh's team_sync (a release add, acquire polls)
//   mode 1: the same with full fences around a relaxed add and volatile polls (its first form)
//   mode 2: cooperative groups' grid barrier over every CTA of the launch
#include <cooperative_groups.h>

#include "small_frontier.cuh"

__device__ __forceinline__ void team_sync_fenced(unsigned long long* count, unsigned long long target) {
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence();
        atomicAdd(count, 1ull);
        while (*(const volatile unsigned long long*)count < target) {
        }
        __threadfence();
    }
    __syncthreads();
}

extern "C" __global__ void barrier_loop(unsigned long long* count, unsigned long long* word, int iters,
                                        int team, int mode, int extra) {
    if (mode != 2 && (int)blockIdx.x >= team) return;
    unsigned long long acc = 0, k = 0;
    for (int i = 0; i < iters; ++i) {
        if (threadIdx.x == 0) {
            if (extra == 1) acc += __ldcg(word + (acc & 1));      // dependent on the last
            if (extra == 2) acc += atomicAdd(word + 2 + (acc & 1), 1ull);
        }
        if (mode == 0) team_sync(count, (unsigned long long)team * ++k);
        else if (mode == 1) team_sync_fenced(count, (unsigned long long)team * ++k);
        else cooperative_groups::this_grid().sync();
    }
    if (threadIdx.x == 0 && acc == 0xdeadbeefull) word[4] = acc;  // keeps the loads
}
