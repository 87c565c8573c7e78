// 05 2D register blocking: each thread computes an 8 x 8 patch of outputs.
//
// Idea: per k, a thread loads TM values of A and TN values of W into registers and forms their
// outer product: TM*TN FMAs for TM+TN shared-memory loads. The block tile grows to 128 x 128 so
// 256 threads cover it, and every value loaded from global memory is used 128 times.
// Improves: 64 FMAs per 16 shared loads (04: 8 per 9), so the FMA units, not shared memory, can
// now set the pace.
// Limit: the loads are scalar (4 bytes each, global and shared), and a warp's 16 threads read W
// with a stride of 8 floats, so the shared-memory reads conflict 4 ways. 06 vectorizes both.
#pragma once

#include "../../common/gemm_case.h"
#include "../../common/gpu.cuh"
#include "../../common/launch.h"
#include "tile_helpers.cuh"

namespace blocktile_2d {

using namespace tile_helpers;
constexpr int BM = 128, BN = 128, BK = 8, TM = 8, TN = 8;
constexpr int kThreads = (BM / TM) * (BN / TN);  // 256
constexpr int kPad = 4;
static_assert(BM % TM == 0 && BN % TN == 0, "thread patches must tile the block tile");
}  // namespace blocktile_2d

__global__ void __launch_bounds__(blocktile_2d::kThreads) gemm_blocktile_2d(const float* A, const float* W, float* C,
                                                                              int M, int N, int K) {
    using namespace blocktile_2d;
    __shared__ float As[BK * (BM + kPad)];
    __shared__ float Ws[BK * (BN + kPad)];
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    const int tn = threadIdx.x % (BN / TN), tm = threadIdx.x / (BN / TN);
    float acc[TM][TN] = {};
    float a[TM], w[TN];
    for (int k0 = 0; k0 < K; k0 += BK) {
        load_tile_transposed<BM, BK, kThreads, BM + kPad>(A, M, K, m0, k0, As);
        load_tile_transposed<BN, BK, kThreads, BN + kPad>(W, N, K, n0, k0, Ws);
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < BK; ++kk) {
#pragma unroll
            for (int i = 0; i < TM; ++i) a[i] = As[kk * (BM + kPad) + tm * TM + i];
#pragma unroll
            for (int j = 0; j < TN; ++j) w[j] = Ws[kk * (BN + kPad) + tn * TN + j];
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] += a[i] * w[j];
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const int m = m0 + tm * TM + i;
#pragma unroll
        for (int j = 0; j < TN; ++j) {
            const int n = n0 + tn * TN + j;
            if (m < M && n < N) C[(size_t)m * N + n] = acc[i][j];
        }
    }
}

inline std::string gemm_blocktile_2d_why_not(const GemmCase& c, const Gpu&) {
    return grid_limit_reason('y', ceil_div(c.M, blocktile_2d::BM));
}

inline void launch_gemm_blocktile_2d(const float* A, const float* W, float* C, int M, int N, int K, cudaStream_t s) {
    using namespace blocktile_2d;
    dim3 grid((unsigned)ceil_div(N, BN), (unsigned)ceil_div(M, BM));
    gemm_blocktile_2d<<<grid, kThreads, 0, s>>>(A, W, C, M, N, K);
}
