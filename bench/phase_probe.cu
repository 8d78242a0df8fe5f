/* Probe: what reading a middle [A, R, B] of halves costs when B * 2 is not a multiple of 16 (rows
 * start off 16 bytes), by the access pattern alone. A block of 256 threads takes one (slab, tile)
 * unit, BX lanes across a row and 256 / BX rows at once, U 16-byte loads in flight a thread, and
 * folds every half it loads into floats (the column mapping is ignored: this times the loads). The
 * tiles of a row:
 *   overlap: tiles of BX - 1 vectors' columns, each row read as the BX aligned vectors that cover
 *            its tile at the row's phase (opnn's PH plans): one vector a row read twice;
 *   exact:   tiles of BX vectors in the row's aligned vectors, none read twice (what a kernel that
 *            combined neighbouring tiles' edge columns would read);
 *   aligned: B rounded up to 8 halves, tiles of BX vectors (the bound: rows on 16 bytes);
 *   flat:    the same bytes as `overlap` reads, as one contiguous run split evenly over the blocks.
 * Times are median event intervals of 20 launches, inputs rotated between two buffers. Not part of
 * the build:
 *   nvcc -O3 -arch=sm_90 -std=c++17 bench/phase_probe.cu -o phase_probe
 *   ./phase_probe A R B    (default: a few shapes)
 * bench/RESULTS.md (session 28) has an H200's figures: the probe's exact tiles read f16 [32, 1001,
 * 2001] at 0.94 of the read kernel at its size, where opnn's shift kernel reads 0.80. */
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cuda_fp16.h>
#include <vector>

#include "probe.cuh"

enum {
    OVERLAP,
    EXACT,
    ALIGNED,
    FLAT,
    NMODES
};
static const char *const mode_names[] = {"overlap", "exact", "aligned", "flat"};

struct job {
    const char *in;
    int64_t a, r, row_bytes, tiles, step_bytes; /* step: bytes from one tile to the next */
    int64_t flat_bytes;                         /* FLAT: bytes in all */
};

template <int BX, int U, int MINB, bool FL>
__global__ void __launch_bounds__(256, MINB) probe(job j, float *out)
{
    const int tx = threadIdx.x % BX, ty = threadIdx.x / BX, BY = 256 / BX;
    float acc[8] = {};
    if (FL) {
        const int64_t per = (j.flat_bytes / gridDim.x) & ~(int64_t)15;
        const char *p = j.in + blockIdx.x * per;
        for (int64_t o = threadIdx.x * 16; o < per; o += 256 * 16 * U) {
            uint4 v[U];
#pragma unroll
            for (int u = 0; u < U; u++)
                v[u] = o + u * 256 * 16 < per
                           ? __ldg(reinterpret_cast<const uint4 *>(p + o + u * 256 * 16))
                           : make_uint4(0, 0, 0, 0);
#pragma unroll
            for (int u = 0; u < U; u++)
                add_halves(acc, v[u]);
        }
    } else {
        const int64_t a = blockIdx.x / j.tiles, t = blockIdx.x % j.tiles;
        const char *slab = j.in + a * j.r * j.row_bytes;
        for (int64_t r = ty; r < j.r; r += U * BY) {
            uint4 v[U];
#pragma unroll
            for (int u = 0; u < U; u++) {
                const int64_t rr = min(r + u * BY, j.r - 1);
                uintptr_t q = (uintptr_t)(slab + rr * j.row_bytes + t * j.step_bytes);
                v[u] = __ldg(reinterpret_cast<const uint4 *>((q & ~(uintptr_t)15) + tx * 16));
            }
#pragma unroll
            for (int u = 0; u < U; u++)
                if (r + u * BY < j.r)
                    add_halves(acc, v[u]);
        }
    }
    float s = 0;
#pragma unroll
    for (int e = 0; e < 8; e++)
        s += acc[e];
    out[(int64_t)blockIdx.x * 256 + threadIdx.x] = s;
}

typedef void (*kern_t)(job, float *);

template <int BX, int U, int MINB> static void run_shape(int64_t A, int64_t R, int64_t B)
{
    const int64_t row_al = (B + 7) / 8 * 16; /* ALIGNED rows */
    const int64_t W = BX * 16;               /* bytes a row of lanes reads */
    const int64_t ov_tiles = (B * 2 + W - 16 - 1) / (W - 16);
    const int64_t bytes =
        std::max(A * R * std::max<int64_t>(B * 2, row_al), A * ov_tiles * R * W) + 4096;
    const char *bufs[2];
    float *out;
    for (auto &b : bufs) {
        char *p;
        CK(cudaMalloc(&p, bytes));
        CK(cudaMemset(p, 0, bytes));
        b = p;
    }
    int64_t max_grid = A * ov_tiles + 1024;
    CK(cudaMalloc(&out, max_grid * 256 * sizeof(float)));
    int dev, sms;
    CK(cudaGetDevice(&dev));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    printf("[%lld, %lld, %lld] f16 (%.1f MB), BX %d, U %d, %d blocks an SM:", (long long)A,
           (long long)R, (long long)B, A * R * B * 2 / 1e6, BX, U, MINB);
    int64_t ov_bytes = 0, ov_grid = 0;
    for (int m = 0; m < NMODES; m++) {
        job j = {nullptr, A, R, B * 2, 0, 0, 0};
        if (m == OVERLAP || m == FLAT) {
            j.step_bytes = W - 16;
            j.tiles = (B * 2 + j.step_bytes - 1) / j.step_bytes;
        } else if (m == EXACT) {
            j.step_bytes = W;
            j.tiles = (B * 2 + 15 + W - 1) / W;
        } else {
            j.row_bytes = row_al;
            j.step_bytes = W;
            j.tiles = (row_al + W - 1) / W;
        }
        int64_t grid = A * j.tiles;
        if (m == OVERLAP) {
            ov_bytes = grid * R * W;
            ov_grid = grid;
        }
        kern_t k = probe<BX, U, MINB, false>;
        if (m == FLAT) {
            j.flat_bytes = ov_bytes;
            grid = ov_grid;
            k = probe<BX, U, MINB, true>;
        }
        const float us = median_launch_us([&](int i) {
            job ji = j;
            ji.in = bufs[i & 1];
            k<<<grid, 256>>>(ji, out);
        });
        printf(" %s %.1f us (%lld blocks, %.0f GB/s of the input)", mode_names[m], us,
               (long long)grid, A * R * B * 2 / (us * 1e3));
    }
    printf("; %d SMs\n", sms);
    CK(cudaFree(out));
    for (auto b : bufs)
        CK(cudaFree((void *)b));
}

int main(int argc, char **argv)
{
    std::vector<int64_t> s;
    if (argc == 4)
        s = {atoll(argv[1]), atoll(argv[2]), atoll(argv[3])};
    else
        s = {30, 1001, 3001, 32, 1001, 2001, 64, 2001, 1001, 128, 1001, 257, 32, 1001, 3001};
    for (size_t i = 0; i + 2 < s.size(); i += 3) {
        run_shape<32, 8, 3>(s[i], s[i + 1], s[i + 2]);
        run_shape<16, 8, 3>(s[i], s[i + 1], s[i + 2]);
        run_shape<32, 4, 4>(s[i], s[i + 1], s[i + 2]);
        run_shape<32, 16, 2>(s[i], s[i + 1], s[i + 2]);
    }
    return 0;
}
