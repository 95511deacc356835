// Runs algorithms/bfs/gpu/lbbfs/lbbfs.cu under the CPU emulator (cuda_emu.hpp) with the
// host protocol of algorithms/bfs/gpu/lbbfs/strategies.py: one launch per source, buffers
// filled with garbage first (the kernel must initialise what it reads).
//
// usage: lbbfs_driver IN OUT      run BFS traversals
//        lbbfs_driver --mergepath check the merge-path helpers against a naive expand
// IN: int32 words n m nsrc strategy pred wide blocks seed yield_permille shift profile,
//     then f0 (a double, two words), row[n+1] (int64, two words each), col[m], sources.
// OUT per source: int64 ctl[CTL_WORDS], int64 prof[PROF_WORDS], int32 dist[n],
//     int32 parent[n], int32 fv[n+1], int64 fe[n+1].
#include "cuda_emu.hpp"
#include "lbbfs.cu"

#include <cstdio>
#include <cstring>
#include <random>
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

template <class E, bool P>
void run_one(FILE* out, int blocks, uint64_t seed, double yp, const std::vector<long long>& row64,
             const int* col, int n, int m, int src, int strategy, double f0, int shift,
             bool profile) {
    std::vector<E> row(row64.begin(), row64.end());
    std::vector<int> dist(n, 0x5A5A5A5A), parent(n, 0x5A5A5A5A), fv(n + 1, 0x5A5A5A5A);
    std::vector<long long> fe(n + 1, 0x5A5A5A5A5A5A5A5All);
    std::vector<unsigned int> bitmask((n + 31) / 32 + 1, 0xA5A5A5A5u);
    std::vector<E> qs0(n, (E)-7), qs1(n, (E)-7), qb0(n, (E)-7), qb1(n, (E)-7);
    std::vector<int> qv0(n, -7), qv1(n, -7);
    const bool perfect = strategy == LB_PERFECT;
    std::vector<E> loc(perfect ? (m > 0 ? m : 1) : 1, (E)-7);
    std::vector<int> locpar(loc.size(), -7);
    std::vector<unsigned long long> ctl(CTL_WORDS, 0x5A5A5A5A5A5A5A5Aull);
    std::vector<unsigned long long> prof(PROF_WORDS, 0x5A5A5A5A5A5A5A5Aull);
    const int* colp = m > 0 ? col : nullptr;
    emu::launch(
        blocks, LBBFS_CTA,
        [&] {
            lbbfs_bfs<E, P>(row.data(), colp, n, src, strategy, f0, shift, dist.data(),
                            P ? parent.data() : nullptr, bitmask.data(), qs0.data(), qs1.data(),
                            qb0.data(), qb1.data(), qv0.data(), qv1.data(), loc.data(),
                            locpar.data(), ctl.data(), fv.data(), fe.data(),
                            profile ? prof.data() : nullptr);
        },
        seed, yp);
    if (!P) parent.assign(n, -1);
    std::vector<long long> ctl64(ctl.begin(), ctl.end()), prof64(prof.begin(), prof.end());
    std::fwrite(ctl64.data(), sizeof(long long), ctl64.size(), out);
    std::fwrite(prof64.data(), sizeof(long long), prof64.size(), out);
    std::fwrite(dist.data(), sizeof(int), n, out);
    std::fwrite(parent.data(), sizeof(int), n, out);
    std::fwrite(fv.data(), sizeof(int), n + 1, out);
    std::fwrite(fe.data(), sizeof(long long), n + 1, out);
}

// The merge-path helpers against a naive expand, on random degree sequences with runs
// of zeros, for every diagonal and every vertical cut, and a split of the path into
// pieces of every length walked by mergepath_expand.
int check_mergepath() {
    std::mt19937_64 rng(5);
    int failures = 0;
    for (int trial = 0; trial < 300; ++trial) {
        const int count = 1 + (int)(rng() % 40);
        std::vector<long long> s(count);
        std::vector<int> owner;
        long long total = 0;
        for (int i = 0; i < count; ++i) {
            s[i] = total;
            const int kind = (int)(rng() % 4);
            const long long deg = kind == 0 ? 0 : kind == 1 ? (long long)(rng() % 3)
                                                            : (long long)(rng() % (trial % 7 == 0 ? 60 : 6));
            for (long long k = 0; k < deg; ++k) owner.push_back(i);
            total += deg;
        }
        const long long* a = s.data();
        // Vertical cut: number of s values <= x; output x belongs to that minus one.
        for (long long x = 0; x < total; ++x) {
            const int up = mergepath_vertical<long long>(a, count, x);
            if (up - 1 != owner[x]) ++failures;
        }
        // Diagonals: the point is on the path (a prefix of the merged sequence).
        std::vector<int> path_a;  // A items consumed after each step of the naive merge
        {
            int ai = 0;
            long long bj = 0;
            path_a.push_back(0);
            while (ai < count || bj < total) {
                if (ai < count && (bj >= total || a[ai] <= bj)) ++ai;
                else ++bj;
                path_a.push_back(ai);
            }
        }
        const long long steps = (long long)count + total;
        for (long long d = 0; d <= steps; ++d) {
            const int ai = mergepath_search<long long>(a, count, 0ll, total, d);
            if (ai != path_a[d]) ++failures;
        }
        // Pieces of `per` steps, each from its own search, emit every output once.
        for (int per = 1; per <= 9; ++per) {
            std::vector<int> got(total, -1);
            for (long long d = 0; d < steps; d += per) {
                const int ai = mergepath_search<long long>(a, count, 0ll, total, d);
                const int len = (int)(d + per <= steps ? per : steps - d);
                mergepath_expand<long long>(a, count, ai, d - ai, total, len,
                                            [&](long long j, int item) {
                                                if (got[j] != -1) ++failures;
                                                got[j] = item;
                                            });
            }
            for (long long j = 0; j < total; ++j)
                if (got[j] != owner[j]) ++failures;
        }
    }
    std::printf("mergepath failures: %d\n", failures);
    return failures == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc == 2 && std::strcmp(argv[1], "--mergepath") == 0) return check_mergepath();
    if (argc != 3) {
        std::fprintf(stderr, "usage: lbbfs_driver IN OUT | lbbfs_driver --mergepath\n");
        return 2;
    }
    std::vector<int> in = read_ints(argv[1]);
    const int n = in[0], m = in[1], nsrc = in[2], strategy = in[3], pred = in[4], wide = in[5],
              blocks = in[6], seed = in[7], yield_permille = in[8], shift = in[9],
              profile = in[10];
    double f0;
    std::memcpy(&f0, &in[11], sizeof(double));
    std::vector<long long> row(n + 1);
    std::memcpy(row.data(), &in[13], sizeof(long long) * (n + 1));
    const int* col = &in[13 + 2 * (n + 1)];
    const int* sources = col + m;
    FILE* out = std::fopen(argv[2], "wb");
    const double yp = yield_permille / 1000.0;
    for (int s = 0; s < nsrc; ++s) {
        const uint64_t sd = (uint64_t)seed + (uint64_t)s * 7919u;
#define EMU_CASE(E, P)                                                                          \
    if ((wide != 0) == (sizeof(E) == 8) && (pred != 0) == P)                                    \
        run_one<E, P>(out, blocks, sd, yp, row, col, n, m, sources[s], strategy, f0, shift,      \
                      profile != 0);
        EMU_CASE(int, false)
        EMU_CASE(int, true)
        EMU_CASE(long long, false)
        EMU_CASE(long long, true)
#undef EMU_CASE
    }
    std::fclose(out);
    return 0;
}
