// Small-frontier mode for persistent cooperative kernels: while a BFS frontier is small,
// one CTA (the leader, blockIdx.x == 0) iterates levels alone with block barriers, and
// the rest of the grid parks on a flag instead of paying a grid barrier per level.
//
// Contract (any persistent kernel can follow it; merrill.cu is the first user):
//  - `words` points at SF_WORDS global ints that are zero when the kernel starts (the
//    kernel clears them before its first grid barrier).
//  - Every CTA decides to enter the mode from the same grid-wide state (words read after
//    a grid barrier), so all CTAs agree, and each counts its entries in a local epoch
//    (1, 2, ...): the n-th entry has epoch n on every CTA.
//  - The other CTAs call sf_park(words, epoch, bcast) once they have read everything
//    they need from before the entry; it counts them in SF_ARRIVED, waits for the
//    leader's release and returns the leader's `resume` word to every thread.
//  - The leader runs levels touching nothing the parked CTAs may still read (the entry
//    level's control words). Before it writes such words (to hand a frontier back) it
//    calls sf_wait_parked(words, epoch): all other CTAs have then read theirs. Handing
//    back nothing (the search is over) needs no wait.
//  - It then calls sf_release(words, epoch, resume): after it, every parked CTA sees all
//    the leader's earlier global writes (it must read them through L2: __ldcg, volatile).
//  - `resume` is the kernel's to define (merrill.cu: a level >= 0, or ~iterations when the
//    search finished). All three calls are block-uniform (every thread of the CTA).
// Emulated builds (GPUBFS_EMULATE) spin with emu_spin_pause(), a fiber switch.
#pragma once

#define SF_EPOCH 0    // the last released epoch
#define SF_RESUME 1   // the leader's resume word of that epoch
#define SF_ARRIVED 2  // parked CTAs, summed over all epochs
#define SF_WORDS 3

#ifdef GPUBFS_EMULATE
#define SF_PAUSE(ns) emu_spin_pause()
#else
#define SF_PAUSE(ns) __nanosleep(ns)
#endif

// Spins until *word >= target, backing off from 32 to 512 ns between polls: a long
// stretch of small levels (a path's 100,000) must not flood one L2 line with polls,
// and a hand-back is then seen within half a microsecond.
__device__ __forceinline__ void sf_spin_until(const int* word, int target) {
    unsigned int ns = 32;
    while (*(const volatile int*)word < target) {
        SF_PAUSE(ns);
        if (ns < 512) ns <<= 1;
    }
}

__device__ __forceinline__ int sf_park(int* words, int epoch, int* bcast) {
    __syncthreads();  // the CTA's reads of the entry state are done
    if (threadIdx.x == 0) {
        atomicAdd(words + SF_ARRIVED, 1);
        sf_spin_until(words + SF_EPOCH, epoch);
        __threadfence();  // acquire: the leader's writes before its release are visible
        *bcast = *(const volatile int*)(words + SF_RESUME);
    }
    __syncthreads();
    return *bcast;
}

__device__ __forceinline__ void sf_wait_parked(int* words, int epoch) {
    if (threadIdx.x == 0) {
        sf_spin_until(words + SF_ARRIVED, epoch * (int)(gridDim.x - 1));
        __threadfence();
    }
    __syncthreads();
}

__device__ __forceinline__ void sf_release(int* words, int epoch, int resume) {
    __syncthreads();  // every thread's writes are done
    if (threadIdx.x == 0) {
        *(volatile int*)(words + SF_RESUME) = resume;
        __threadfence();  // release: the CTA's writes (ordered by the barrier) come first
        *(volatile int*)(words + SF_EPOCH) = epoch;
    }
}
