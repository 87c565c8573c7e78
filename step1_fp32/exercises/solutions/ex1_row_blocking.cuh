// Solution of exercise 1 (step 1): register blocking along a row (exercises/ex1_row_blocking.cuh).
// Each thread keeps one A value in a register and multiplies it with 4 W values from shared
// memory. W is stored [n][k] with a padded row, so the 8 threads of a row reading W rows
// 4x..4x+3 at one k land in different banks.
#pragma once

#include "../../../common/launch.h"
#include "../ex1_row_blocking.cuh"

__global__ void __launch_bounds__(ex1::kThreadsX* ex1::kTile) gemm_ex1_solution(const float* A, const float* W, float* C,
                                                                                 int M, int N, int K) {
    using namespace ex1;
    __shared__ float As[kTile][kTile + 1];  // [m][k]
    __shared__ float Ws[kTile][kTile + 1];  // [n][k]
    const int x = threadIdx.x, y = threadIdx.y, tid = y * kThreadsX + x;
    const int m0 = blockIdx.y * kTile, n0 = blockIdx.x * kTile;
    constexpr int kThreads = kThreadsX * kTile, kLoads = kTile * kTile / kThreads;
    float acc[kOutputsPerThread] = {};
    for (int k0 = 0; k0 < K; k0 += kTile) {
        for (int i = 0; i < kLoads; ++i) {
            const int idx = tid + i * kThreads, r = idx / kTile, c = idx % kTile;
            As[r][c] = m0 + r < M && k0 + c < K ? A[(size_t)(m0 + r) * K + k0 + c] : 0.f;
            Ws[r][c] = n0 + r < N && k0 + c < K ? W[(size_t)(n0 + r) * K + k0 + c] : 0.f;
        }
        __syncthreads();
        for (int kk = 0; kk < kTile; ++kk) {
            const float a = As[y][kk];
#pragma unroll
            for (int j = 0; j < kOutputsPerThread; ++j) acc[j] += a * Ws[x * kOutputsPerThread + j][kk];
        }
        __syncthreads();
    }
    const int m = m0 + y;
    for (int j = 0; j < kOutputsPerThread; ++j) {
        const int n = n0 + x * kOutputsPerThread + j;
        if (m < M && n < N) C[(size_t)m * N + n] = acc[j];
    }
}

inline void launch_gemm_ex1_solution(const float* A, const float* W, float* C, int M, int N, int K, cudaStream_t s) {
    const dim3 block(ex1::kThreadsX, ex1::kTile), grid((unsigned)ceil_div(N, ex1::kTile), (unsigned)ceil_div(M, ex1::kTile));
    gemm_ex1_solution<<<grid, block, 0, s>>>(A, W, C, M, N, K);
}
