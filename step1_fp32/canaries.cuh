// canaries.cuh - deliberately wrong GEMM kernels, one per way a kernel typically goes wrong.
//
// A check counts only if it can fail. Each canary is run by a test (tests.cmake) that passes
// only when step1_fp32's checker rejects it; they never run unless named with --kernel.
//   canary_skip_last_k_tile  stops one 16-wide K tile early: a loop bound off by one tile. Also
//                            fails if the tolerance were loosened (it is ~1e-3 of sum|aw| wrong)
//   canary_skip_one_store    never writes C[M-1][N-1]: a missing edge case; caught by poisoning
//   canary_store_twice       writes C[M-1][N-2]'s value into C[M-1][N-1] too: a wrong index
//   canary_tf32_inputs       rounds A and W to TF32 (10-bit mantissa), as tensor cores in TF32
//                            mode do: a "FP32" result that is not FP32
// The body is 02's warp-per-output dot product with the bug switched in.
#pragma once

#include "../common/gemm_case.h"
#include "../common/gpu.cuh"
#include "../common/launch.h"
#include "../common/warp_reduce.cuh"

enum class Canary { SkipLastKTile, SkipOneStore, StoreTwice, Tf32Inputs };

constexpr int kCanaryWarps = 8;
constexpr int kCanaryKTile = 16;

// Round to the nearest TF32 value (10 explicit mantissa bits), ties away from zero, as the
// tensor cores' cvt.rna.tf32.f32 does; written with integer operations so it runs on any GPU.
__device__ __forceinline__ float round_to_tf32(float x) {
    return __uint_as_float((__float_as_uint(x) + 0x1000u) & 0xFFFFE000u);
}

template <Canary BUG>
__global__ void gemm_canary(const float* A, const float* W, float* C, int M, int N, int K) {
    const int lane = threadIdx.x % 32;
    const long long out = (long long)blockIdx.x * kCanaryWarps + threadIdx.x / 32;
    if (out >= (long long)M * N) return;
    const int m = (int)(out / N), n = (int)(out % N);
    const int k_end = BUG == Canary::SkipLastKTile ? (K - 1) / kCanaryKTile * kCanaryKTile : K;
    float sum = 0.f;
    for (int k = lane; k < k_end; k += 32) {
        float a = A[(size_t)m * K + k], w = W[(size_t)n * K + k];
        if (BUG == Canary::Tf32Inputs) {
            a = round_to_tf32(a);
            w = round_to_tf32(w);
        }
        sum += a * w;
    }
    sum = warp_reduce_sum(sum);
    if (lane != 0) return;
    const bool last = m == M - 1 && n == N - 1;
    if ((BUG == Canary::SkipOneStore || BUG == Canary::StoreTwice) && last) return;
    C[(size_t)m * N + n] = sum;
    if (BUG == Canary::StoreTwice && m == M - 1 && n == N - 2) C[(size_t)m * N + n + 1] = sum;
}

// store_twice writes C[M-1][N-2]'s value into C[M-1][N-1]: it needs two columns.
inline std::string canary_store_twice_why_not(const GemmCase& c, const Gpu&) { return c.N >= 2 ? "" : "needs N >= 2"; }

template <Canary BUG>
inline void launch_gemm_canary(const float* A, const float* W, float* C, int M, int N, int K, cudaStream_t s) {
    gemm_canary<BUG><<<(unsigned)ceil_div((int64_t)M * N, kCanaryWarps), kCanaryWarps * 32, 0, s>>>(A, W, C, M, N, K);
}
