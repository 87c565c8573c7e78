// 13 Q6_K GEMV for decoding: 12's skeleton (08's resident activations) with the weights in Q6_K,
// the K-quant that a "Q4_K_M" file keeps for its most sensitive tensors (KQUANTS.md, "Q6_K").
//
// Idea: a Q6_K super-block is 256 six-bit codes, sixteen int8 scales (one per 16 values) and one
// fp16 d. Thread b still owns the 32 values of K-block b, one Q8_1 block of activations: its run
// of the super-block, whose two halves have a scale each. No compensation term here: the codes'
// offset 32 is subtracted from each code, four at a time (common/q6_k_q8_1.h says why Q8_1's s
// cannot carry it), so a run costs 8 DP4A, two integer sums, and one FP32 product per token:
//   d · d_a · (sc_2j · Σ_{l<16} (q−32)·q_a + sc_2j+1 · Σ_{l≥16} (q−32)·q_a).
// The weights are repacked once, offline (common/q6_k_layout.h), so that a run's bits sit
// together: 16 bytes of low nibbles in Q4_0's order and 8 bytes of top bits, the unpacking
// written once for the CPU tests and the GPU (q6_k_run_sumi). No byte is added: 6.5625 bits per
// weight, so a GEMV over Q6_K reads 46% more than one over Q4_K.
// Improves: Q6_K decoding from the same skeleton as Q4_0 and Q4_K, with the activations loaded
// once per CTA.
// Limit: every thread loads four pieces per row (low, high, its scale pair, its super-block's d),
// where 12 loads two; 08's limits at larger M (row sums and registers grow with M). K must be a
// multiple of 256 (whole super-blocks) and at most 16384.
#pragma once

#include "../../common/gemm_case.h"
#include "../../common/gemv_resident.cuh"
#include "../../common/ggml_kquants.h"
#include "../../common/gpu.cuh"
#include "../../common/q6_k_layout.h"
#include "../w4a8_layout.cuh"
#include "08_gemv_resident.cuh"
#include "12_gemv_q4_k.cuh"

namespace gemv_q6_k {

// The kernel's argument, made from the W4A8Inputs every row is handed: only what this kernel
// reads (a larger argument can cost a kernel its registers: w4a8_layout.cuh).
struct Q6_KArgs {
    const uint8_t* low;     // [N][K/32][16] each run's low nibbles, Q4_0's order ...
    const uint8_t* high;    // ... [N][K/32][8] their top bits ...
    const int8_t* scales;   // ... [N][K/256][16] ggml's scales ...
    const ggml_half* d;     // ... and [N][K/256] each super-block's d
    const int8_t* a_qs;     // the activations, Q8_1 split layout: codes [M][K] ...
    const uint32_t* a_ds;   // ... and (d, s) pairs [M][K/32]
    float* c;               // [M][N]
    int M, N, K;
};

struct ResidentQ6_KQ8_1 {
    using Args = Q6_KArgs;
    struct Weight {
        uint4 low;        // the run's 32 low nibbles
        uint2 high;       // their top bits
        uint16_t scales;  // the run's two int8 scales: the first half's in the low byte
        uint16_t d;       // the super-block's fp16 d, bits
    };
    using Activation = gemv_resident_w4a8::Q8_1Activation;  // the same Q8_1 blocks as 08 and 12

    __device__ static Weight load_weight(const Args& p, int row, int block) {
        const size_t run = (size_t)row * (p.K / 32) + block, super = run / kQ6KRuns;  // block % 8: the run in its super-block
        return {__ldcs(reinterpret_cast<const uint4*>(p.low) + run), __ldcs(reinterpret_cast<const uint2*>(p.high) + run),
                __ldcs(reinterpret_cast<const unsigned short*>(p.scales) + run),  // scales 2j and 2j + 1 of super-block run / 8
                __ldcs(reinterpret_cast<const unsigned short*>(p.d) + super)};
    }
    __device__ static Activation load_activation(const Args& p, int token, int block) {
        return gemv_resident_w4a8::load_q8_1_split(p.a_qs, p.a_ds, p.K, token, block);
    }
    // d·d_a·(sc_2j·first + sc_2j+1·second): the integers exact (|·| < 2^24), one rounding per product.
    __device__ static float dot(const Weight& w, const Activation& a) {
        const uint32_t low[4] = {w.low.x, w.low.y, w.low.z, w.low.w}, high[2] = {w.high.x, w.high.y};
        int first, second;
        q6_k_run_sumi(low, high, a.q, first, second);
        const int halves = (int8_t)(w.scales & 0xFF) * first + (int8_t)(w.scales >> 8) * second;
        return half_bits_to_float((ggml_half)w.d) * a.d * (float)halves;
    }
    __device__ static float finish(const Args&, int, float sum) { return sum; }
};

}  // namespace gemv_q6_k

inline std::string w4a8_gemv_q6_k_why_not(const GemmCase& c, const Gpu&) { return kquant_gemv_why_not("Q6_K", c); }
inline void launch_w4a8_gemv_q6_k(const W4A8Args& args, cudaStream_t s) {
    const W4A8Inputs& in = static_cast<const W4A8Inputs&>(args);
    const gemv_q6_k::Q6_KArgs p{in.q6k_low, in.q6k_high, in.q6k_scales, in.q6k_d, in.a_qs, in.a_ds, in.c, in.M, in.N, in.K};
    launch_gemv_resident<gemv_q6_k::ResidentQ6_KQ8_1, true, gemv_resident_w4a8::kResidentMaxTokens>(p, s);
}
