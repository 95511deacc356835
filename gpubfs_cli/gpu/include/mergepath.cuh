// Merge-path expand (load-balanced search): which item produced each output, when item
// i produces deg(i) outputs and s = exclusive prefix sum of the degrees.
//
// The expand is a merge of two sorted sequences: A = s[0..a_count) (where each item's
// outputs start) and B = b_begin, b_begin + 1, ... (the output indices). A[i] goes
// before B[j] when A[i] <= B[j]; walking the merged path, an A step makes item i the
// current item, a B step emits output j for the current item. So output j belongs to
// item (number of s values <= j) - 1, and zero-degree items are A steps that emit
// nothing. The path has a_count + b_count steps; cutting it at equispaced diagonals
// (Odeh et al.'s merge path) gives every CTA, then every thread, the same number of
// steps: a binary search along each diagonal finds where the path crosses it.
//
// `A` is anything indexable (a global or a shared pointer); T is the type of the
// output indices and of s (int or long long). Used by algorithms/bfs/gpu/lbbfs.
#pragma once

#include "common.cuh"

// How many A items lie on the path before diagonal `diag` (0 <= diag <= a_count +
// b_count); the other diag - result steps are outputs b_begin, b_begin + 1, ...
template <class T, class A>
__device__ __forceinline__ int mergepath_search(const A& a, int a_count, T b_begin, T b_count,
                                                T diag) {
    int lo = (int)(diag > b_count ? diag - b_count : T(0));
    int hi = (int)(diag < (T)a_count ? diag : (T)a_count);
    while (lo < hi) {
        const int mid = (lo + hi) >> 1;
        // A[mid] before B[diag - 1 - mid]: the path crosses the diagonal further on.
        if (a[mid] <= b_begin + (diag - 1 - (T)mid)) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

// The vertical cut: how many A items lie on the path before output x is emitted
// (the number of s values <= x, an upper bound). Item result - 1 produces x.
template <class T, class A>
__device__ __forceinline__ int mergepath_vertical(const A& a, int a_count, T x) {
    int lo = 0, hi = a_count;
    while (lo < hi) {
        const int mid = (lo + hi) >> 1;
        if (a[mid] <= x) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

// The sequential expand of one thread's part of the path: `steps` steps from the
// point (ai A items consumed, output bj next), the current item being ai - 1.
// emit(j, item) is called for each output step. Returns the A items consumed.
template <class T, class A, class Emit>
__device__ __forceinline__ int mergepath_expand(const A& a, int a_count, int ai, T bj, T b_end,
                                                int steps, Emit&& emit) {
    for (int k = 0; k < steps; ++k) {
        if (ai < a_count && (bj >= b_end || a[ai] <= bj)) {
            ++ai;
        } else {
            emit(bj, ai - 1);
            ++bj;
        }
    }
    return ai;
}

// ---- Block-cooperative searches (the coarse, per-CTA partition) ----
//
// A single thread's binary search over a global array costs log2(R) dependent loads
// (some 20 round trips to L2 for a frontier of a million). Here the threads of a CTA
// test pivots spread over the range at once and a barrier counts how many pivots lie
// before the partition point: log_{K+1}(R) rounds of one parallel load (K pivots per
// search, half the CTA each, as two searches run side by side).

// The i-th of min(span, k) pivots over [lo, lo + span): consecutive when span <= k,
// else evenly spread (strictly increasing, all inside the range).
__device__ __forceinline__ int cta_search_pivot(int lo, int span, int k, int i) {
    return span <= k ? lo + i : lo + (int)(((long long)span * (i + 1)) / (k + 1));
}

// Two partition points at once. For each search, pred is true on a prefix of [lo, hi)
// and false after it; on return lo is the first x in [lo, hi] with pred(x) false (hi
// when pred holds throughout). Every thread of the block calls it with the same
// arguments; pred1 is evaluated by the first half of the block, pred2 by the second.
// An empty range (lo == hi) costs nothing.
template <class P1, class P2>
__device__ __forceinline__ void cta_partition_points(int& lo1, int hi1, const P1& pred1, int& lo2,
                                                     int hi2, const P2& pred2) {
    const int k = (int)(blockDim.x >> 1);
    const bool second = (int)threadIdx.x >= k;
    const int r = second ? (int)threadIdx.x - k : (int)threadIdx.x;
    while (lo1 < hi1 || lo2 < hi2) {
        const int span1 = hi1 - lo1, span2 = hi2 - lo2;
        const int np1 = span1 < k ? span1 : k, np2 = span2 < k ? span2 : k;
        bool pr = false;
        if (!second && r < np1) pr = pred1(cta_search_pivot(lo1, span1, k, r));
        if (second && r < np2) pr = pred2(cta_search_pivot(lo2, span2, k, r));
        const int c1 = __syncthreads_count(pr && !second);
        const int c2 = __syncthreads_count(pr && second);
        // c pivots hold: the point lies after pivot c - 1 and at or before pivot c.
        if (np1 > 0) {
            if (c1 < np1) hi1 = cta_search_pivot(lo1, span1, k, c1);
            if (c1 > 0) lo1 = cta_search_pivot(lo1, span1, k, c1 - 1) + 1;
        }
        if (np2 > 0) {
            if (c2 < np2) hi2 = cta_search_pivot(lo2, span2, k, c2);
            if (c2 > 0) lo2 = cta_search_pivot(lo2, span2, k, c2 - 1) + 1;
        }
    }
}

// The A side of the merge-path point at diagonal `diag` (as mergepath_search), searched
// within [lo, hi] (a known bracket, or the whole feasible range).
template <class T, class A>
struct MergepathBefore {
    A a;  // a pointer (by value: no local copy to point at)
    T b_begin, diag;
    __device__ bool operator()(int mid) const { return a[mid] <= b_begin + (diag - 1 - (T)mid); }
};

// The vertical cut before output x (as mergepath_vertical).
template <class T, class A>
struct VerticalBefore {
    A a;  // a pointer (by value: no local copy to point at)
    T x;
    __device__ bool operator()(int mid) const { return a[mid] <= x; }
};
