// 01 naive: one thread per output element.
//
// Idea: thread (x, y) of the grid computes C[m][n] = sum_k A[m][k] * W[n][k] with m from x and
// n from y, straight from global memory.
// Limit: the 32 threads of a warp have 32 consecutive m, so each load of A touches 32 different
// rows (32 cache lines for 32 useful floats) and each store to C is strided by N. Nothing is
// reused from fast memory on purpose; every product costs two global loads.
#pragma once

#include "../../common/gemm_case.h"
#include "../../common/gpu.cuh"
#include "../../common/launch.h"

namespace naive {

constexpr int kNaiveBlock = 32;  // 32 x 32 threads per block

__global__ void gemm_naive(const float* A, const float* W, float* C, int M, int N, int K) {
    const int m = blockIdx.x * blockDim.x + threadIdx.x;
    const int n = blockIdx.y * blockDim.y + threadIdx.y;
    if (m >= M || n >= N) return;
    float sum = 0.f;
    for (int k = 0; k < K; ++k) sum += A[(size_t)m * K + k] * W[(size_t)n * K + k];
    C[(size_t)m * N + n] = sum;
}

}  // namespace naive

// The grid's y covers N (blocks of kNaiveBlock columns).
inline std::string gemm_naive_why_not(const GemmCase& c, const Gpu&) { return grid_limit_reason('y', ceil_div(c.N, naive::kNaiveBlock)); }

inline void launch_gemm_naive(const float* A, const float* W, float* C, int M, int N, int K, cudaStream_t s) {
    using namespace naive;
    dim3 block(kNaiveBlock, kNaiveBlock);
    dim3 grid((unsigned)ceil_div(M, kNaiveBlock), (unsigned)ceil_div(N, kNaiveBlock));
    gemm_naive<<<grid, block, 0, s>>>(A, W, C, M, N, K);
}
