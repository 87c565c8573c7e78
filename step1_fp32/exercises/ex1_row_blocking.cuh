// Exercise 1 (step 1): register blocking along a row. Practises 03 (shared-memory tiles) and
// the idea of 04 (several outputs per thread, one operand kept in a register).
//
// Brief: start from 03's 32x32 tiles, but give each thread 4 outputs side by side in one row of
// C: C[m][n0 + 4x .. 4x + 3]. A CTA is 8 x 32 threads (threadIdx.x = x picks the 4 columns,
// threadIdx.y = the row). Per K-tile, each thread reads its A value once and multiplies it with
// 4 W values: 4 FMAs per A load instead of 1. Keep every load and store guarded: M, N and K
// need not be multiples of 32 (the tests use M = 37, N = 100, K = 4100).
// Run it:   make exercise STEP=1 EX=1     (or build/step1_fp32 --kernel ex1: beside smem_tiling)
// Done when it prints PASS; then compare its time with smem_tiling and blocktile_1d.
// Set kEx1Written to true once your kernel is written: a FAIL is then a bug, not the stub.
#pragma once

#include "../../common/launch.h"

constexpr bool kEx1Written = false;

namespace ex1 {
constexpr int kTile = 32, kOutputsPerThread = 4;
constexpr int kThreadsX = kTile / kOutputsPerThread;  // 8
static_assert(kTile % kOutputsPerThread == 0, "a row of the tile splits into whole groups of 4");
}  // namespace ex1

__global__ void __launch_bounds__(ex1::kThreadsX* ex1::kTile) gemm_ex1(const float* A, const float* W, float* C, int M, int N,
                                                                        int K) {
    // TODO 1: declare the two 32x32 shared tiles (pad the rows by one float against bank conflicts).
    // TODO 2: loop over K in steps of 32: all 256 threads load both tiles (zeros outside the
    //         matrices), __syncthreads(), then each thread accumulates its 4 outputs in registers,
    //         and __syncthreads() again before the next tile overwrites the shared memory.
    // TODO 3: store the 4 outputs, each guarded by m < M and n < N.
}

inline void launch_gemm_ex1(const float* A, const float* W, float* C, int M, int N, int K, cudaStream_t s) {
    const dim3 block(ex1::kThreadsX, ex1::kTile), grid((unsigned)ceil_div(N, ex1::kTile), (unsigned)ceil_div(M, ex1::kTile));
    gemm_ex1<<<grid, block, 0, s>>>(A, W, C, M, N, K);
}
