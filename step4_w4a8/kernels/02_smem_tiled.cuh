// 02 shared-memory tiling: a 16 x 16 tile of outputs shares the blocks it reads.
//
// Idea: the 256 threads of a CTA compute a 16 x 16 tile of C. Per step they copy kTiledBlocks
// K-blocks of 16 weight rows and of 16 activation rows into shared memory (whole ggml blocks,
// as 2- and 4-byte words), then each thread forms its output from there with 01's scalar loop.
// Every block fetched from global memory now serves 16 outputs instead of one.
// Limit: the arithmetic is still one multiply-add per value, plus the shifts and masks that
// take the nibbles apart: instructions, not memory, now set the pace. DP4A (03) does four
// multiply-adds in one instruction.
#pragma once

#include "../../common/gemm_case.h"
#include "../../common/gpu.cuh"
#include "../../common/launch.h"
#include "../w4a8_layout.cuh"

namespace smem_tiled {
constexpr int kTile = 16;                    // outputs per side: 16 x 16 = 256 threads
constexpr int kThreads = kTile * kTile;
constexpr int kTiledBlocks = 8;              // K-blocks (32 values each) per shared-memory step
constexpr int kWWords = sizeof(block_q4_0) / 2;  // a Q4_0 block is 9 2-byte words
constexpr int kAWords = sizeof(block_q8_1) / 4;  // a Q8_1 block is 9 4-byte words
static_assert(sizeof(block_q4_0) % 2 == 0 && sizeof(block_q8_1) % 4 == 0, "blocks are copied as whole words");
}  // namespace smem_tiled

__global__ void __launch_bounds__(smem_tiled::kThreads) w4a8_smem_tiled(W4A8Args p) {
    using namespace smem_tiled;
    __shared__ block_q4_0 Ws[kTile][kTiledBlocks];
    __shared__ block_q8_1 As[kTile][kTiledBlocks];
    const int tx = threadIdx.x % kTile, ty = threadIdx.x / kTile;
    const int n0 = blockIdx.x * kTile, m0 = blockIdx.y * kTile;
    const int nblocks = p.K / QK4_0;
    float acc = 0.f;
    for (int b0 = 0; b0 < nblocks; b0 += kTiledBlocks) {
        // Copy the tiles as words; blocks outside the matrices become zeros (they add nothing).
        for (int i = threadIdx.x; i < kTile * kTiledBlocks * kWWords; i += kThreads) {
            const int row = i / (kTiledBlocks * kWWords), b = i / kWWords % kTiledBlocks, word = i % kWWords;
            const bool in = n0 + row < p.N && b0 + b < nblocks;
            reinterpret_cast<uint16_t*>(&Ws[row][b])[word] =
                in ? reinterpret_cast<const uint16_t*>(p.w_blocks + (size_t)(n0 + row) * nblocks + b0 + b)[word] : 0;
        }
        for (int i = threadIdx.x; i < kTile * kTiledBlocks * kAWords; i += kThreads) {
            const int row = i / (kTiledBlocks * kAWords), b = i / kAWords % kTiledBlocks, word = i % kAWords;
            const bool in = m0 + row < p.M && b0 + b < nblocks;
            reinterpret_cast<uint32_t*>(&As[row][b])[word] =
                in ? reinterpret_cast<const uint32_t*>(p.a + (size_t)(m0 + row) * nblocks + b0 + b)[word] : 0u;
        }
        __syncthreads();
        for (int b = 0; b < kTiledBlocks; ++b) {
            const block_q4_0& w = Ws[tx][b];
            const block_q8_1& a = As[ty][b];
            int sumi = 0;
#pragma unroll
            for (int j = 0; j < QK4_0 / 2; ++j) {
                const int byte = w.qs[j];
                sumi += (byte & 0x0F) * a.qs[j] + (byte >> 4) * a.qs[j + QK4_0 / 2];
            }
            const float2 ds = q8_1_scales(a);
            acc += half_bits_to_float(w.d) * (ds.x * (float)sumi - 8.0f * ds.y);
        }
        __syncthreads();
    }
    const int m = m0 + ty, n = n0 + tx;
    if (m < p.M && n < p.N) p.c[(size_t)m * p.N + n] = acc;
}

inline std::string w4a8_smem_tiled_why_not(const GemmCase& c, const Gpu&) {
    return grid_limit_reason('y', ceil_div(c.M, smem_tiled::kTile));
}

inline void launch_w4a8_smem_tiled(const W4A8Args& p, cudaStream_t s) {
    using namespace smem_tiled;
    const dim3 grid((unsigned)ceil_div(p.N, kTile), (unsigned)ceil_div(p.M, kTile));
    w4a8_smem_tiled<<<grid, kThreads, 0, s>>>(p);
}
