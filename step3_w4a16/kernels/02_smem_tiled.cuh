// 02 shared-memory tiled: a 32x32 tile of outputs shares each weight it dequantizes.
//
// Idea: step 1's tiling, with the dequantization moved to where the tile is loaded. A CTA of
// 32x8 threads owns 32 activation rows x 32 weight rows. Per 32-value K-step (one Q4_0 block per
// weight row) it stages the activations (32x32 FP32) and the weights, dequantized once into FP32
// by the thread that loads them, in shared memory; then every thread computes 4 outputs from
// there. Each weight is now dequantized once per 32 activation rows instead of once per row,
// and each activation read once per 32 weight rows.
// Limit: the weights still travel as single bytes and are expanded to 32-bit floats in shared
// memory (8x their size), and the FP32 pipe does all the work: at M = 512 this is step 1's tiled
// kernel with a dequantization tax; at M = 1, 31 of 32 tile rows are empty.
#pragma once

#include "../../common/gemm_case.h"
#include "../../common/gpu.cuh"
#include "../../common/launch.h"
#include "../w4a16_layout.cuh"

#include <string>

namespace smem_tiled {
constexpr int kTile = 32;                    // outputs per side; also one Q4_0 block of K
constexpr int kRowsPerThread = 4;
constexpr int kThreadsY = kTile / kRowsPerThread;
static_assert(kTile == QK4_0, "one K-step is one Q4_0 block per weight row");
static_assert(kTile * kThreadsY * 4 == kTile * kTile, "each thread loads 4 activations and dequantizes 4 weights");
}  // namespace smem_tiled

__global__ void __launch_bounds__(smem_tiled::kTile* smem_tiled::kThreadsY) w4a16_smem_tiled(W4A16Args p) {
    using namespace smem_tiled;
    __shared__ float a_tile[kTile][kTile];      // [m][k]
    __shared__ float w_tile[kTile][kTile + 1];  // [k][n], padded against bank conflicts of the transposing stores
    const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * kTile + tx;
    const int m0 = blockIdx.y * kTile, n0 = blockIdx.x * kTile;
    const int nblocks = p.K / QK4_0;
    // Loading roles: activation row tid/8, values 4·(tid%8)..+3; weight row tid/8, bytes 2·(tid%8)..+1.
    const int load_row = tid / 8, load_part = tid % 8;
    const int am = m0 + load_row, wn = n0 + load_row;
    float acc[kRowsPerThread] = {};
    for (int b = 0; b < nblocks; ++b) {
        for (int i = 0; i < 4; ++i)
            a_tile[load_row][4 * load_part + i] = am < p.M ? p.a_f32[(size_t)am * p.K + b * QK4_0 + 4 * load_part + i] : 0.f;
        if (wn < p.N) {
            const block_q4_0& blk = p.q4_blocks[(size_t)wn * nblocks + b];
            const float d = half_bits_to_float(blk.d);
            for (int i = 0; i < 2; ++i) {
                const int j = 2 * load_part + i, byte = blk.qs[j];
                w_tile[j][load_row] = (float)((byte & 0x0F) - 8) * d;
                w_tile[j + QK4_0 / 2][load_row] = (float)((byte >> 4) - 8) * d;
            }
        } else {
            for (int i = 0; i < 2; ++i) w_tile[2 * load_part + i][load_row] = w_tile[2 * load_part + i + QK4_0 / 2][load_row] = 0.f;
        }
        __syncthreads();
#pragma unroll 8
        for (int k = 0; k < kTile; ++k) {
            const float w = w_tile[k][tx];
#pragma unroll
            for (int r = 0; r < kRowsPerThread; ++r) acc[r] += a_tile[ty + kThreadsY * r][k] * w;
        }
        __syncthreads();
    }
    const int n = n0 + tx;
    for (int r = 0; r < kRowsPerThread; ++r) {
        const int m = m0 + ty + kThreadsY * r;
        if (m < p.M && n < p.N) p.c[(size_t)m * p.N + n] = acc[r];
    }
}

inline std::string w4a16_smem_tiled_why_not(const GemmCase& c, const Gpu&) {
    return grid_limit_reason('y', ceil_div(c.M, smem_tiled::kTile));
}

inline void launch_w4a16_smem_tiled(const W4A16Args& p, cudaStream_t s) {
    using namespace smem_tiled;
    const dim3 grid((unsigned)ceil_div(p.N, kTile), (unsigned)ceil_div(p.M, kTile)), block(kTile, kThreadsY);
    w4a16_smem_tiled<<<grid, block, 0, s>>>(p);
}
