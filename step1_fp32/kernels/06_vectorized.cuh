// 06 vectorized: 16-byte loads from global memory and from shared memory.
//
// Idea: K-contiguous rows make float4 loads along k natural: one instruction moves 4 floats of A
// or W. In shared memory each thread's 8 rows (and 8 columns) are two groups of 4 consecutive
// values, BM/2 apart, so they are read as two float4 each, and a warp's 16 column groups are 256
// contiguous bytes: no bank conflicts. C is written as float4 too.
// Improves: 4x fewer load instructions everywhere; no shared-memory conflicts in the inner loop.
// Limit: a warp's threads still spread over the whole block tile, and the loop waits for global
// loads before every tile: warp tiling (07) and double buffering (08) address these.
#pragma once

#include "../../common/gemm_case.h"
#include "../../common/gpu.cuh"
#include "../../common/launch.h"
#include "tile_helpers.cuh"

namespace vectorized {

using namespace tile_helpers;
constexpr int BM = 128, BN = 128, BK = 8, TM = 8, TN = 8;
constexpr int kThreads = (BM / TM) * (BN / TN);  // 256
constexpr int kLd = BM + 4;                      // row length in shared memory (both tiles)
static_assert(BM == BN, "one shared-memory row length serves both tiles");
static_assert(TM == 8 && TN == 8, "a thread's patch is 2 x 2 groups of 4 x 4");
}  // namespace vectorized

__global__ void __launch_bounds__(vectorized::kThreads) gemm_vectorized(const float* A, const float* W, float* C,
                                                                          int M, int N, int K) {
    using namespace vectorized;
    __shared__ __align__(16) float As[BK * kLd];
    __shared__ __align__(16) float Ws[BK * kLd];
    TileLoaderVec4<BM, BK, kThreads, kLd> load_a;
    TileLoaderVec4<BN, BK, kThreads, kLd> load_w;
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    const int tx = threadIdx.x % (BN / TN), ty = threadIdx.x / (BN / TN);
    float acc[TM][TN] = {};
    for (int k0 = 0; k0 < K; k0 += BK) {
        load_a.fetch(A, M, K, m0, k0);
        load_w.fetch(W, N, K, n0, k0);
        load_a.store(As);
        load_w.store(Ws);
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < BK; ++kk) {
            float a[TM], w[TN];
#pragma unroll
            for (int half = 0; half < 2; ++half) {
                *reinterpret_cast<float4*>(&a[half * 4]) =
                    *reinterpret_cast<const float4*>(&As[kk * kLd + half * (BM / 2) + ty * 4]);
                *reinterpret_cast<float4*>(&w[half * 4]) =
                    *reinterpret_cast<const float4*>(&Ws[kk * kLd + half * (BN / 2) + tx * 4]);
            }
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] += a[i] * w[j];
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const int m = m0 + (i / 4) * (BM / 2) + ty * 4 + i % 4;
#pragma unroll
        for (int half = 0; half < 2; ++half) {
            const int n = n0 + half * (BN / 2) + tx * 4;
            const float* v = &acc[i][half * 4];
            store_c_quad(C, M, N, m, n, make_float4(v[0], v[1], v[2], v[3]));
        }
    }
}

inline std::string gemm_vectorized_why_not(const GemmCase& c, const Gpu&) { return float4_tile_reason(c, vectorized::BM); }

inline void launch_gemm_vectorized(const float* A, const float* W, float* C, int M, int N, int K, cudaStream_t s) {
    using namespace vectorized;
    dim3 grid((unsigned)ceil_div(N, BN), (unsigned)ceil_div(M, BM));
    gemm_vectorized<<<grid, kThreads, 0, s>>>(A, W, C, M, N, K);
}
