// 01 naive: one thread per output, every weight dequantized in the inner loop.
//
// Idea: C[m][n] = Σ_k A[m][k]·w[n][k] with w = (q - 8)·d read straight from ggml's Q4_0 blocks:
// for each 32-value block, the scale d once, then 16 bytes of nibbles (byte j holds element j in
// its low half and element j + 16 in its high half), each turned into (q - 8)·d and multiplied
// with an FP32 activation. Consecutive threads take consecutive weight rows n and share the
// activation row m, so activation loads are broadcasts.
// Limit: every weight byte is read again for every row of activations (from L2 at best), one
// byte per load, and each weight costs an integer-to-float conversion: slow on every axis.
#pragma once

#include "../../common/gemm_case.h"
#include "../../common/gpu.cuh"
#include "../../common/launch.h"
#include "../w4a16_layout.cuh"

#include <string>

namespace naive_w4a16 {

constexpr int kNaiveThreads = 128;

__global__ void __launch_bounds__(kNaiveThreads) w4a16_naive(W4A16Args p) {
    const int n = blockIdx.x * kNaiveThreads + threadIdx.x, m = blockIdx.y;
    if (n >= p.N) return;
    const int nblocks = p.K / QK4_0;
    const block_q4_0* w = p.q4_blocks + (size_t)n * nblocks;
    const float* a = p.a_f32 + (size_t)m * p.K;
    float acc = 0.f;
    for (int b = 0; b < nblocks; ++b) {
        const float d = half_bits_to_float(w[b].d);
        for (int j = 0; j < QK4_0 / 2; ++j) {
            const int byte = w[b].qs[j];
            acc += (float)((byte & 0x0F) - 8) * d * a[b * QK4_0 + j];
            acc += (float)((byte >> 4) - 8) * d * a[b * QK4_0 + j + QK4_0 / 2];
        }
    }
    p.c[(size_t)m * p.N + n] = acc;
}

}  // namespace naive_w4a16

inline std::string w4a16_naive_why_not(const GemmCase& c, const Gpu&) { return grid_limit_reason('y', c.M); }

inline void launch_w4a16_naive(const W4A16Args& p, cudaStream_t s) {
    using namespace naive_w4a16;
    const dim3 grid((unsigned)ceil_div(p.N, kNaiveThreads), (unsigned)p.M);
    w4a16_naive<<<grid, kNaiveThreads, 0, s>>>(p);
}
