// 02 coalesced: one warp per output element, its lanes walking along K.
//
// Idea: in llama.cpp's convention both A and W are stored K-contiguous ("row of length K"), so the
// only way a warp's 32 loads can hit 32 neighbouring floats is to spread the warp along K: lane l
// reads A[m][k+l] and W[n][k+l] (two 128-byte lines per warp load), then the warp adds its 32
// partial sums with shuffles (warp_reduce_sum,
// common/warp_reduce.cuh).
// Improves: every cache line fetched is fully used, and the C store is one per warp.
// Limit: still no reuse. Each output reads 2K floats, so an M x N result streams 2*M*N*K floats
// through L1/L2: for GEMM that is far more than the matrices themselves. Tiling (03) fixes that.
#pragma once

#include "../../common/launch.h"
#include "../../common/warp_reduce.cuh"

namespace coalesced {

constexpr int kCoalescedWarps = 8;  // warps (= outputs) per block

__global__ void gemm_coalesced(const float* A, const float* W, float* C, int M, int N, int K) {
    const int lane = threadIdx.x % 32;
    const long long out = (long long)blockIdx.x * kCoalescedWarps + threadIdx.x / 32;
    if (out >= (long long)M * N) return;  // whole warp leaves together
    const int m = (int)(out / N), n = (int)(out % N);
    const float* a = A + (size_t)m * K;
    const float* w = W + (size_t)n * K;
    float sum = 0.f;
    for (int k = lane; k < K; k += 32) sum += a[k] * w[k];
    sum = warp_reduce_sum(sum);
    if (lane == 0) C[(size_t)m * N + n] = sum;
}

}  // namespace coalesced

inline void launch_gemm_coalesced(const float* A, const float* W, float* C, int M, int N, int K, cudaStream_t s) {
    using namespace coalesced;
    const long long outputs = (long long)M * N;
    gemm_coalesced<<<(unsigned)ceil_div(outputs, kCoalescedWarps), kCoalescedWarps * 32, 0, s>>>(A, W, C, M, N, K);
}
