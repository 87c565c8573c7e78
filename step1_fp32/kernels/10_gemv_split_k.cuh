// 10 GEMV, split K: one warp per row, or several when N is small.
//
// Idea: what keeps HBM busy is the number of warps streaming, not rows per warp. Here each row
// gets SPLIT warps, warp s streaming float4s [s*K/SPLIT, (s+1)*K/SPLIT) of it in long contiguous
// runs (what DRAM pages like), UNROLL loads per lane in flight. The SPLIT partial sums meet in
// shared memory. SPLIT is chosen at run time: the smallest of 1, 2, 4, 8 that gives the GPU at
// least kMinWarpsPerSm streaming warps per SM (measured on the H200: below ~24 per SM the
// bandwidth drops; above, extra splits only add reduction work).
// Improves: N = 4096 gets 4096 warps (31 per SM) instead of 2048; N = 512 gets 8 warps a row.
// Limit: this is the bandwidth roofline: FP32 weights cost 4 bytes each, and the only way to go
// faster is to read fewer bytes. Step 2 stores weights in 4.5 bits: that is quantization.
#pragma once

#include "../../common/gemm_case.h"
#include "../../common/gpu.cuh"
#include "../../common/launch.h"
#include "../../common/warp_reduce.cuh"
#include "tile_helpers.cuh"  // the float4 loads' limits

namespace gemv_split {
constexpr int kWarps = 8;           // warps per block: kWarps / SPLIT rows per block
constexpr int kUnroll = 4;          // float4 loads in flight per lane
constexpr int kMinWarpsPerSm = 24;  // split rows until the grid has at least this many warps per SM
}

template <int SPLIT, int UNROLL>
__global__ void __launch_bounds__(gemv_split::kWarps * 32) gemv_split_k(const float* __restrict__ a,
                                                                        const float* __restrict__ W,
                                                                        float* __restrict__ c, int N, int K) {
    constexpr int kWarps = gemv_split::kWarps, kRowsPerBlock = kWarps / SPLIT;
    static_assert(kWarps % SPLIT == 0, "a block holds whole rows");
    __shared__ float partial[kWarps];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int row = blockIdx.x * kRowsPerBlock + warp / SPLIT, slice = warp % SPLIT;
    const int K4 = K / 4;
    const int begin = (int)((long long)slice * K4 / SPLIT), end = (int)((long long)(slice + 1) * K4 / SPLIT);
    const float4* a4 = reinterpret_cast<const float4*>(a);
    const float4* w4 = reinterpret_cast<const float4*>(W + (size_t)min(row, N - 1) * K);  // rows past N: never stored
    float acc = 0.f;
    for (int base = begin + lane; base < end; base += 32 * UNROLL) {
        float4 x[UNROLL], w[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) {  // issue every load first ...
            const int k4 = base + u * 32;
            const bool in = k4 < end;
            x[u] = in ? __ldg(a4 + k4) : make_float4(0.f, 0.f, 0.f, 0.f);
            w[u] = in ? __ldcs(w4 + k4) : make_float4(0.f, 0.f, 0.f, 0.f);
        }
#pragma unroll
        for (int u = 0; u < UNROLL; ++u)  // ... then use them
            acc += x[u].x * w[u].x + x[u].y * w[u].y + x[u].z * w[u].z + x[u].w * w[u].w;
    }
    acc = warp_reduce_sum(acc);
    if (lane == 0) partial[warp] = acc;
    __syncthreads();
    const int out_row = blockIdx.x * kRowsPerBlock + threadIdx.x;
    if (threadIdx.x < kRowsPerBlock && out_row < N) {
        float sum = 0.f;
#pragma unroll
        for (int s = 0; s < SPLIT; ++s) sum += partial[threadIdx.x * SPLIT + s];
        c[out_row] = sum;
    }
}

template <int SPLIT>
inline void launch_gemv_split(const float* a, const float* W, float* c, int N, int K, cudaStream_t s) {
    constexpr int kRowsPerBlock = gemv_split::kWarps / SPLIT;
    gemv_split_k<SPLIT, gemv_split::kUnroll>
        <<<(unsigned)ceil_div(N, kRowsPerBlock), gemv_split::kWarps * 32, 0, s>>>(a, W, c, N, K);
}

// The smallest split (1, 2, 4, 8) that gives at least kMinWarpsPerSm warps per SM.
inline int gemv_split_for(int N, int sms) {
    int split = 1;
    while (split < 8 && (long long)N * split < (long long)gemv_split::kMinWarpsPerSm * sms) split *= 2;
    return split;
}

inline std::string gemv_split_k_why_not(const GemmCase& c, const Gpu&) { return gemv_float4_reason(c); }

inline void launch_gemv_split_k(const float* a, const float* W, float* c, int N, int K, int sms, cudaStream_t s) {
    switch (gemv_split_for(N, sms)) {
        case 1: launch_gemv_split<1>(a, W, c, N, K, s); break;
        case 2: launch_gemv_split<2>(a, W, c, N, K, s); break;
        case 4: launch_gemv_split<4>(a, W, c, N, K, s); break;
        default: launch_gemv_split<8>(a, W, c, N, K, s); break;
    }
}
