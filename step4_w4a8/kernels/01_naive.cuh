// 01 naive: one thread per output, scalar integer arithmetic, ggml's blocks straight from memory.
//
// Idea: C[m][n] = Σ_b d_w·(d_a·sumi_b - 8·s_b) (common/q4_0_q8_1.h). For each block the thread
// reads 16 bytes of nibbles one byte at a time, multiplies each unsigned nibble with its int8
// activation (element j pairs with nibble j's low half, element j+16 with its high half) and
// applies the block's scales once. Consecutive threads take consecutive weight rows n and share
// the activation row m, so activation loads are broadcasts.
// Limit: 32 multiply-adds, 48 byte loads and a dozen shifts and masks per block; every weight
// byte is read again for every row of activations, from L2 at best. Shared memory (02) and
// four-at-a-time arithmetic (03) come next.
#pragma once

#include "../../common/gemm_case.h"
#include "../../common/gpu.cuh"
#include "../../common/launch.h"
#include "../w4a8_layout.cuh"

namespace naive_w4a8 {

constexpr int kNaiveThreads = 128;

__global__ void __launch_bounds__(kNaiveThreads) w4a8_naive(W4A8Args p) {
    const int n = blockIdx.x * kNaiveThreads + threadIdx.x, m = blockIdx.y;
    if (n >= p.N) return;
    const int nblocks = p.K / QK4_0;
    const block_q4_0* w = p.w_blocks + (size_t)n * nblocks;
    const block_q8_1* a = p.a + (size_t)m * nblocks;
    float acc = 0.f;
    for (int b = 0; b < nblocks; ++b) {
        int sumi = 0;
        for (int j = 0; j < QK4_0 / 2; ++j) {
            const int byte = w[b].qs[j];
            sumi += (byte & 0x0F) * a[b].qs[j] + (byte >> 4) * a[b].qs[j + QK4_0 / 2];
        }
        const float2 ds = q8_1_scales(a[b]);  // (d_a, s)
        acc += half_bits_to_float(w[b].d) * (ds.x * (float)sumi - 8.0f * ds.y);
    }
    p.c[(size_t)m * p.N + n] = acc;
}

}  // namespace naive_w4a8

inline std::string w4a8_naive_why_not(const GemmCase& c, const Gpu&) { return grid_limit_reason('y', c.M); }

inline void launch_w4a8_naive(const W4A8Args& p, cudaStream_t s) {
    using namespace naive_w4a8;
    const dim3 grid((unsigned)ceil_div(p.N, kNaiveThreads), (unsigned)p.M);
    w4a8_naive<<<grid, kNaiveThreads, 0, s>>>(p);
}
