// Runs algorithms/bfs/gpu/merrill/merrill.cu under the CPU emulator (cuda_emu.hpp) with the host
// protocol of algorithms/bfs/gpu/merrill/strategies.py: fresh (poisoned) buffers and one
// launch per source; a queue that overflows reruns with CULL_ATOMIC inside the launch.
//
// usage: merrill_driver IN OUT
// IN  (int32 words): n m nsrc strategy gather culling pred grid_threshold
//     switch_threshold blocks seed yield_permille vq_cap eq_cap big_cap counter_cap
//     claim_threshold small_threshold count,
//     then row[n+1], col[m], sources[nsrc]
// OUT (int32 words) per source: iterations passes (2: rerun) dist[n] parent[n]
//     counters[3 * counter_cap] (as the kernel left them: garbage when count is 0)
#include "cuda_emu.hpp"
#include "merrill.cu"

#include <cstdio>
#include <vector>

namespace {

std::vector<int> read_ints(const char* path) {
    std::vector<int> out;
    FILE* f = std::fopen(path, "rb");
    if (!f) {
        std::perror(path);
        std::exit(2);
    }
    int buf[4096];
    size_t k;
    while ((k = std::fread(buf, sizeof(int), 4096, f)) > 0) out.insert(out.end(), buf, buf + k);
    std::fclose(f);
    return out;
}

template <int G, bool P, bool C, bool S>
void launch(int blocks, uint64_t seed, double yp, const int* row, const int* col, int n, int src,
            int strategy, int culling, int grid_threshold, int claim_threshold,
            long long switch_threshold, int small_threshold, int* dist, int* parent, unsigned int* bitmask,
            unsigned int* claimed, int* vq0, int* vq1, int* eq0, int* eq1, int* ep0,
            int* ep1, int4* big0, int4* big1, int vq_cap, int eq_cap, int big_cap, int* ctl,
            unsigned long long* big_ctl, int* counters, int counter_cap, unsigned long long* prof,
            int prof_cap) {
    emu::launch(
        blocks, MERRILL_BLOCK,
        [&] {
            merrill_bfs<G, P, C, S>(row, col, n, src, strategy, culling, grid_threshold,
                                 claim_threshold, switch_threshold, small_threshold, dist, parent, bitmask, claimed, vq0, vq1, eq0, eq1, ep0, ep1, big0, big1,
                              vq_cap, eq_cap, big_cap, ctl, big_ctl, counters, counter_cap, prof,
                              prof_cap);
        },
        seed, yp);
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: merrill_driver IN OUT\n");
        return 2;
    }
    std::vector<int> in = read_ints(argv[1]);
    const int n = in[0], m = in[1], nsrc = in[2], strategy = in[3], gather = in[4],
              culling = in[5], pred = in[6], grid_threshold = in[7], switch_threshold = in[8],
              blocks = in[9], seed = in[10], yield_permille = in[11], vq_cap = in[12],
              eq_cap = in[13], big_cap = in[14], counter_cap = in[15], claim_threshold = in[16],
              small_threshold = in[17], count = in[18];
    const int* row = &in[19];
    const int* col = row + n + 1;
    const int* sources = col + m;
    FILE* out = std::fopen(argv[2], "wb");
    const double yp = yield_permille / 1000.0;

    for (int s = 0; s < nsrc; ++s) {
        std::vector<int> dist, parent, ctl, counters;
        {
            dist.assign(n, 0x5A5A5A5A);
            parent.assign(n, 0x5A5A5A5A);
            std::vector<unsigned int> bitmask((n + 31) / 32, 0xA5A5A5A5u), claimed(bitmask);
            std::vector<int> vq0(vq_cap, -7), vq1(vq_cap, -7), eq0(eq_cap, -7), eq1(eq_cap, -7),
                ep0(eq_cap, -7), ep1(eq_cap, -7);
            std::vector<int4> big0(big_cap, int4{-7, -7, -7, -7}), big1(big0);
            ctl.assign(CTL_WORDS, 0x5A5A5A5A);
            std::vector<unsigned long long> big_ctl(3, 0x5A5A5A5A5A5A5A5Aull);
            counters.assign((size_t)CNT_KINDS * counter_cap, 0x5A5A5A5A);
            std::vector<unsigned long long> prof((size_t)PROF_WORDS * (n + 2), 0);
#define EMU_CASE(G, P, C) EMU_CASE_S(G, P, C, true) EMU_CASE_S(G, P, C, false)
#define EMU_CASE_S(G, P, C, S)                                                                   \
    if (gather == G && (pred != 0) == P && (count != 0) == C && (small_threshold > 0) == S)      \
        launch<G, P, C, S>(blocks, seed + s * 7919 + 1, yp, row, col, n, sources[s], strategy, \
                     culling, grid_threshold, claim_threshold, switch_threshold, small_threshold,   \
                     dist.data(),                                                                \
                     parent.data(), bitmask.data(), claimed.data(), vq0.data(), vq1.data(), eq0.data(), eq1.data(), ep0.data(), \
                     ep1.data(), big0.data(), big1.data(), vq_cap, eq_cap, big_cap, ctl.data(),  \
                     big_ctl.data(), counters.data(), counter_cap, prof.data(), n + 2);
            EMU_CASE(0, false, false) EMU_CASE(1, false, false) EMU_CASE(2, false, false)
            EMU_CASE(3, false, false) EMU_CASE(0, true, false) EMU_CASE(1, true, false)
            EMU_CASE(2, true, false) EMU_CASE(3, true, false) EMU_CASE(0, false, true)
            EMU_CASE(1, false, true) EMU_CASE(2, false, true) EMU_CASE(3, false, true)
            EMU_CASE(0, true, true) EMU_CASE(1, true, true) EMU_CASE(2, true, true)
            EMU_CASE(3, true, true)
        }
        if (ctl[CTL_OVERFLOW]) {
            std::fprintf(stderr, "source %d: queues overflowed even with exact culling\n", sources[s]);
            return 3;
        }
        int header[2] = {ctl[CTL_ITERS], 1 + ctl[CTL_RERUNS]};
        std::fwrite(header, sizeof(int), 2, out);
        std::fwrite(dist.data(), sizeof(int), n, out);
        std::fwrite(parent.data(), sizeof(int), n, out);
        std::fwrite(counters.data(), sizeof(int), counters.size(), out);
    }
    std::fclose(out);
    return 0;
}
