// 04 1D register blocking: each thread computes a column of TM = 8 outputs.
//
// Idea: a 64 x 64 block tile, BK = 8 deep. A thread loads one W value from shared memory into a
// register and reuses it for TM outputs (TM rows of A, read as broadcasts), so it does TM FMAs
// per W load instead of one.
// Improves: about 2 shared-memory loads per 1 FMA (03) become 1 + 1/TM per FMA, and the accumulators
// live in registers.
// Limit: the A values are still loaded once per FMA (broadcast, but an instruction each); blocking
// in both directions (05) reuses both operands.
#pragma once

#include "../../common/gemm_case.h"
#include "../../common/gpu.cuh"
#include "../../common/launch.h"
#include "tile_helpers.cuh"

namespace blocktile_1d {

using namespace tile_helpers;
constexpr int BM = 64, BN = 64, BK = 8, TM = 8;
constexpr int kThreads = BM * BN / TM;  // 512
constexpr int kPad = 4;                 // keeps the transposing stores conflict-free
static_assert(BM % TM == 0, "a thread's column of outputs must tile BM");
}  // namespace blocktile_1d

__global__ void __launch_bounds__(blocktile_1d::kThreads) gemm_blocktile_1d(const float* A, const float* W, float* C,
                                                                              int M, int N, int K) {
    using namespace blocktile_1d;
    __shared__ float As[BK * (BM + kPad)];  // As[k][m]
    __shared__ float Ws[BK * (BN + kPad)];  // Ws[k][n]
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    const int n_local = threadIdx.x % BN;        // consecutive threads: consecutive n
    const int m_local = (threadIdx.x / BN) * TM; // first of this thread's TM rows
    float acc[TM] = {};
    for (int k0 = 0; k0 < K; k0 += BK) {
        load_tile_transposed<BM, BK, kThreads, BM + kPad>(A, M, K, m0, k0, As);
        load_tile_transposed<BN, BK, kThreads, BN + kPad>(W, N, K, n0, k0, Ws);
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < BK; ++kk) {
            const float w = Ws[kk * (BN + kPad) + n_local];
#pragma unroll
            for (int i = 0; i < TM; ++i) acc[i] += As[kk * (BM + kPad) + m_local + i] * w;
        }
        __syncthreads();
    }
    const int n = n0 + n_local;
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const int m = m0 + m_local + i;
        if (m < M && n < N) C[(size_t)m * N + n] = acc[i];
    }
}

inline std::string gemm_blocktile_1d_why_not(const GemmCase& c, const Gpu&) {
    return grid_limit_reason('y', ceil_div(c.M, blocktile_1d::BM));
}

inline void launch_gemm_blocktile_1d(const float* A, const float* W, float* C, int M, int N, int K, cudaStream_t s) {
    using namespace blocktile_1d;
    dim3 grid((unsigned)ceil_div(N, BN), (unsigned)ceil_div(M, BM));
    gemm_blocktile_1d<<<grid, kThreads, 0, s>>>(A, W, C, M, N, K);
}
