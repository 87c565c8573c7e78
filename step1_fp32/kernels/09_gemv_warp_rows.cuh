// 09 GEMV, warp per row: the decode case, M = 1.
//
// Idea: with one token, C[n] = a . W[n] is a dot product per output and every weight is used
// exactly once, so the kernel can only be as fast as it streams W from HBM. Nothing to tile:
// the job is to keep enough bytes in flight. A warp owns ROWS rows; each lane reads 16-byte
// float4s along k, UNROLL of them per row before using any, so ROWS x UNROLL loads are in the
// air at once. W is read with a streaming hint (__ldcs: used once, don't keep in L2); the small
// activation vector is read through the cache, where all warps share it.
// Limit: one warp per ROWS rows means N / ROWS warps in all. For N = 4096 that is too few to
// cover the HBM latency on 132 SMs; 10 splits K as well.
#pragma once

namespace gemv_rows {
constexpr int kRows = 4, kUnroll = 2, kWarps = 8;  // rows per warp, float4 per row in flight, warps per block
}

template <int ROWS, int UNROLL>
__global__ void __launch_bounds__(gemv_rows::kWarps * 32) gemv_warp_rows(const float* __restrict__ a,
                                                                         const float* __restrict__ W,
                                                                         float* __restrict__ c, int N, int K) {
    constexpr int kWarps = gemv_rows::kWarps;
    const int lane = threadIdx.x % 32;
    const int row0 = (blockIdx.x * kWarps + threadIdx.x / 32) * ROWS;
    if (row0 >= N) return;
    const int K4 = K / 4;
    const float4* a4 = reinterpret_cast<const float4*>(a);
    float acc[ROWS] = {};
    for (int base = lane; base < K4; base += 32 * UNROLL) {
        float4 x[UNROLL], w[ROWS][UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) {  // issue every load first ...
            const int k4 = base + u * 32;
            const bool in = k4 < K4;
            x[u] = in ? __ldg(a4 + k4) : make_float4(0.f, 0.f, 0.f, 0.f);
#pragma unroll
            for (int r = 0; r < ROWS; ++r) {
                const int row = min(row0 + r, N - 1);  // rows past N repeat the last row; never stored
                w[r][u] = in ? __ldcs(reinterpret_cast<const float4*>(W + (size_t)row * K) + k4)
                             : make_float4(0.f, 0.f, 0.f, 0.f);
            }
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

inline void launch_gemv_warp_rows(const float* a, const float* W, float* c, int N, int K, cudaStream_t s) {
    using namespace gemv_rows;
    const int blocks = (int)ceil_div(N, kRows * kWarps);
    gemv_warp_rows<kRows, kUnroll><<<blocks, kWarps * 32, 0, s>>>(a, W, c, N, K);
}
