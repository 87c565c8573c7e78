// 03 shared-memory tiling: a block computes a 32 x 32 tile of C from 32 x 32 tiles of A and W.
//
// Idea: the block loads a tile of A (32 rows of m, 32 values of k) and a tile of W (32 rows of n)
// into shared memory, each with lanes along k so the global loads are coalesced, then every
// thread reads 32 values of each from shared memory. Each float loaded from global memory is now
// used 32 times instead of once.
// The W tile is stored transposed (Ws[k][n]) so that a warp, whose lanes hold 32 consecutive n,
// reads 32 different banks; the +1 column of padding keeps the transposing store conflict-free.
// Limit: every FMA still needs two shared-memory loads, and shared memory, not the FMA units,
// becomes the bottleneck. Register blocking (04, 05) raises the FMAs per load.
#pragma once

#include "../../common/gemm_case.h"
#include "../../common/gpu.cuh"
#include "../../common/launch.h"

namespace smem_tiling {

constexpr int kTile = 32;
static_assert(kTile == 32, "03 maps one warp onto one tile row: the tile must be 32 wide");

__global__ void gemm_smem_tiling(const float* A, const float* W, float* C, int M, int N, int K) {
    __shared__ float As[kTile][kTile + 1];  // As[m][k]
    __shared__ float Ws[kTile][kTile + 1];  // Ws[k][n], transposed on the way in
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int m0 = blockIdx.y * kTile, n0 = blockIdx.x * kTile;
    float sum = 0.f;
    for (int k0 = 0; k0 < K; k0 += kTile) {
        const int k = k0 + tx;  // lanes along k: coalesced loads; zeros outside the matrices
        As[ty][tx] = (m0 + ty < M && k < K) ? A[(size_t)(m0 + ty) * K + k] : 0.f;
        Ws[tx][ty] = (n0 + ty < N && k < K) ? W[(size_t)(n0 + ty) * K + k] : 0.f;
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < kTile; ++kk) sum += As[ty][kk] * Ws[kk][tx];
        __syncthreads();
    }
    if (m0 + ty < M && n0 + tx < N) C[(size_t)(m0 + ty) * N + n0 + tx] = sum;
}

}  // namespace smem_tiling

inline std::string gemm_smem_tiling_why_not(const GemmCase& c, const Gpu&) { return grid_limit_reason('y', ceil_div(c.M, smem_tiling::kTile)); }

inline void launch_gemm_smem_tiling(const float* A, const float* W, float* C, int M, int N, int K, cudaStream_t s) {
    using namespace smem_tiling;
    dim3 block(kTile, kTile);
    dim3 grid((unsigned)ceil_div(N, kTile), (unsigned)ceil_div(M, kTile));
    gemm_smem_tiling<<<grid, block, 0, s>>>(A, W, C, M, N, K);
}
