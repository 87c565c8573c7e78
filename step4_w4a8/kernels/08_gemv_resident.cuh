// 08 GEMV with resident activations: each thread owns one K-block of the activations, in
// registers, for the whole kernel; the weight rows stream past it.
//
// Idea: in 06/07 a lane walks a row's K-blocks, so for every 16-byte weight block it also loads
// that block's activations: 36 bytes per token (32 codes and (d, s)) from L1, for 16 bytes from
// HBM. Those loads, not the weights and not the math, are what 07 waits on: the same kernel with
// the activation loads replaced by constants runs at the speed of a plain read of the weights.
// So turn the loop around (common/gemv_resident.cuh): a CTA spans K, thread b keeps block b of
// every token's activations in registers (loaded once, after the PDL wait), and each weight row
// costs a thread one 16-byte load, 8 DP4A per token and its share of the row's sum (a warp
// shuffle tree and one value per warp in shared memory). A CTA takes ROWS rows per stage and has
// the next stage's loads in flight while it computes; launched with PDL like 07, its first
// weight loads go out while the quantizer still runs.
// Improves: no activation traffic in the loop: at M = 1 the whole operation runs close to a plain
// read of the weights.
// Limit: the row sums (shuffles, at M >= 2 one transposed butterfly for all of a stage's sums,
// one __syncthreads per stage) and the registers (every token's activations) grow with M; on the
// H200 it is slower than 07 at M = 4, N = 4096, K = 14336. One CTA spans K: K <= 16384 (512 threads).
#pragma once

#include "../../common/gemm_case.h"
#include "../../common/gemv_resident.cuh"
#include "../../common/gpu.cuh"
#include "../../common/q4_0_q8_1.h"
#include "../w4a8_layout.cuh"

namespace gemv_resident_w4a8 {

// One token's Q8_1 block of activations, as a thread keeps it in registers.
struct Q8_1Activation {
    uint32_t q[8];  // 32 int8 codes
    float d, s;
};
// Block `block` of token `token` from the split layout (codes, then (d, s) pairs): two 16-byte
// loads and a 4-byte one. Every resident format with Q8_1 activations (Q4_0, Q4_K, Q6_K) reads so.
__device__ __forceinline__ Q8_1Activation load_q8_1_split(const int8_t* a_qs, const uint32_t* a_ds, int K, int token, int block) {
    const size_t b = (size_t)token * (K / QK8_1) + block;
    const uint4* codes = reinterpret_cast<const uint4*>(a_qs + b * QK8_1);
    const uint4 lo = codes[0], hi = codes[1];
    const uint32_t ds_bits = a_ds[b];
    const float2 ds = __half22float2(*reinterpret_cast<const __half2*>(&ds_bits));
    return {{lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w}, ds.x, ds.y};
}

struct ResidentQ4_0Q8_1 {
    using Args = W4A8Args;
    struct Weight {
        uint4 q;     // 32 nibbles, element j (low) and j + 16 (high) in byte j
        uint32_t d;  // the block's fp16 scale, bits
    };
    using Activation = Q8_1Activation;
    __device__ static Weight load_weight(const Args& p, int row, int block) {
        const size_t b = (size_t)row * (p.K / QK4_0) + block;
        return {__ldcs(reinterpret_cast<const uint4*>(p.w_qs) + b), p.w_d[b]};
    }
    __device__ static Activation load_activation(const Args& p, int token, int block) {
        return load_q8_1_split(p.a_qs, p.a_ds, p.K, token, block);
    }
    // d_w (d_a sumi - 8 s): the compensated formula, rounded as 06 rounds its first block.
    __device__ static float dot(const Weight& w, const Activation& a) {
        const uint32_t words[4] = {w.q.x, w.q.y, w.q.z, w.q.w};
        const int sumi = block_sumi_words(words, a.q);
        return half_bits_to_float((ggml_half)w.d) * fmaf(a.d, (float)sumi, -8.0f * a.s);
    }
    __device__ static float finish(const Args&, int, float sum) { return sum; }
};

constexpr int kResidentMaxTokens = 8;

}  // namespace gemv_resident_w4a8

inline std::string w4a8_gemv_resident_why_not(const GemmCase& c, const Gpu&) {
    using namespace gemv_resident_w4a8;
    return gemv_resident_why_not(c.M, c.K, kResidentMaxTokens);
}
inline void launch_w4a8_gemv_resident(const W4A8Args& p, cudaStream_t s) {
    using namespace gemv_resident_w4a8;
    launch_gemv_resident<ResidentQ4_0Q8_1, true, kResidentMaxTokens>(p, s);
}
