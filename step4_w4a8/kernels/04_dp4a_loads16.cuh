// 04 DP4A with 16-byte loads: the weights repacked so that one load brings a whole block.
//
// Idea: 03 spends eight 2-byte loads on a block's 16 bytes of nibbles because ggml's 18-byte
// blocks are only 2-byte aligned. Repacked offline into two streams (w4a8_layout.cuh), a block's
// nibbles are 16 aligned bytes: one 16-byte load (uint4) gives the four words 03 assembled, and
// the scale comes from its own stream. The activations, 36-byte Q8_1 blocks, are read as 4-byte
// words as before. Same bytes, same result, 8x fewer load instructions for the weights.
// Limit: still a thread per output reading its whole weight row: at M = 512 every weight byte is
// fetched 512 times. Tiling with DP4A (05) shares them.
#pragma once

#include "../../common/gemm_case.h"
#include "../../common/gpu.cuh"
#include "../../common/launch.h"
#include "../../common/q4_0_q8_1.h"
#include "../w4a8_layout.cuh"

namespace dp4a_loads16 {

constexpr int kLoads16Threads = 128;

__global__ void __launch_bounds__(kLoads16Threads) w4a8_dp4a_loads16(W4A8Args p) {
    const int n = blockIdx.x * kLoads16Threads + threadIdx.x, m = blockIdx.y;
    if (n >= p.N) return;
    const int nblocks = p.K / QK4_0;
    const uint4* wq = reinterpret_cast<const uint4*>(p.w_qs) + (size_t)n * nblocks;
    const ggml_half* wd = p.w_d + (size_t)n * nblocks;
    const block_q8_1* a = p.a + (size_t)m * nblocks;
    float acc = 0.f;
    for (int b = 0; b < nblocks; ++b) {
        const uint4 packed = wq[b];  // the block's 32 nibbles in one load
        const uint32_t words[4] = {packed.x, packed.y, packed.z, packed.w};
        const int sumi = block_sumi_words(words, reinterpret_cast<const uint32_t*>(a[b].qs));
        const float2 ds = q8_1_scales(a[b]);
        acc += half_bits_to_float(wd[b]) * (ds.x * (float)sumi - 8.0f * ds.y);
    }
    p.c[(size_t)m * p.N + n] = acc;
}

}  // namespace dp4a_loads16

inline std::string w4a8_dp4a_loads16_why_not(const GemmCase& c, const Gpu&) { return grid_limit_reason('y', c.M); }

inline void launch_w4a8_dp4a_loads16(const W4A8Args& p, cudaStream_t s) {
    using namespace dp4a_loads16;
    const dim3 grid((unsigned)ceil_div(p.N, kLoads16Threads), (unsigned)p.M);
    w4a8_dp4a_loads16<<<grid, kLoads16Threads, 0, s>>>(p);
}
