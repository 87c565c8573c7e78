// 09 GEMV, a warp per row pair: the decode case, M = 1.
//
// Idea: with one token, C[n] = a . W[n] is one dot product per output and every weight is used
// exactly once, so the kernel can only be as fast as it streams W from HBM. There is nothing to
// tile; the whole job is keeping enough bytes in flight. A warp owns ROWS rows, and each lane
// issues UNROLL 16-byte float4 loads per row before using any: ROWS x UNROLL loads in the air.
// W is read with a streaming hint (__ldcs: used once, do not keep it in L2); the small activation
// vector goes through the cache, where all warps share it.
// Limit: rows per warp divide the number of warps: N = 4096 gives 2048 warps, about 16 per SM,
// too few to cover HBM latency. 10 gives every row its own warp, and more than one when N is small.
#pragma once

#include "../../common/gemm_case.h"
#include "../../common/gpu.cuh"
#include "../../common/launch.h"
#include "../../common/warp_reduce.cuh"
#include "tile_helpers.cuh"  // the float4 loads' limits

namespace gemv_rows {
constexpr int kRows = 2, kUnroll = 4, kWarps = 8;  // rows per warp, float4 per row in flight, warps per block
}

template <int ROWS, int UNROLL>
__global__ void __launch_bounds__(gemv_rows::kWarps * 32) gemv_warp_rows(const float* __restrict__ a,
                                                                         const float* __restrict__ W,
                                                                         float* __restrict__ c, int N, int K) {
    const int lane = threadIdx.x % 32;
    const int row0 = (blockIdx.x * gemv_rows::kWarps + threadIdx.x / 32) * ROWS;
    if (row0 >= N) return;
    const int K4 = K / 4;
    const float4* a4 = reinterpret_cast<const float4*>(a);
    const float4* w4[ROWS];
#pragma unroll
    for (int r = 0; r < ROWS; ++r)  // rows past N repeat the last row; they are never stored
        w4[r] = reinterpret_cast<const float4*>(W + (size_t)min(row0 + r, N - 1) * K);
    float acc[ROWS] = {};
    for (int base = lane; base < K4; base += 32 * UNROLL) {
        float4 x[UNROLL], w[ROWS][UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) {  // issue every load first ...
            const int k4 = base + u * 32;
            const bool in = k4 < K4;
            x[u] = in ? __ldg(a4 + k4) : make_float4(0.f, 0.f, 0.f, 0.f);
#pragma unroll
            for (int r = 0; r < ROWS; ++r) w[r][u] = in ? __ldcs(w4[r] + k4) : make_float4(0.f, 0.f, 0.f, 0.f);
        }
#pragma unroll
        for (int u = 0; u < UNROLL; ++u)  // ... then use them
#pragma unroll
            for (int r = 0; r < ROWS; ++r)
                acc[r] += x[u].x * w[r][u].x + x[u].y * w[r][u].y + x[u].z * w[r][u].z + x[u].w * w[r][u].w;
    }
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
        const float sum = warp_reduce_sum(acc[r]);
        if (lane == 0 && row0 + r < N) c[row0 + r] = sum;
    }
}

inline std::string gemv_warp_rows_why_not(const GemmCase& c, const Gpu&) { return gemv_float4_reason(c); }

inline void launch_gemv_warp_rows(const float* a, const float* W, float* c, int N, int K, cudaStream_t s) {
    using namespace gemv_rows;
    const int blocks = (int)ceil_div(N, kRows * kWarps);
    gemv_warp_rows<kRows, kUnroll><<<blocks, kWarps * 32, 0, s>>>(a, W, c, N, K);
}
