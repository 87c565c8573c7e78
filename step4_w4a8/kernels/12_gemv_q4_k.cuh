// 12 Q4_K GEMV for decoding: 08's resident activations, with the weights in llama.cpp's K-quant
// format (KQUANTS.md). The first kernel of the K-quant chapter.
//
// Idea: a Q4_K super-block is eight sub-blocks of 32 values, and sub-block j beside its Q8_1 block
// of activations contributes d·sc_j·(d_a·sumi_j) − dmin·m_j·s: Q4_0's compensation with the −8
// replaced by a minimum (common/q4_k_q8_1.h). So keep 08 as it is (common/gemv_resident.cuh: a CTA
// spans K, thread b keeps activation block b of every token in registers, weight rows stream past)
// and change only the format: thread b owns sub-block b. The weights are repacked once, offline
// (common/q4_k_layout.h): each sub-block's 32 codes are 16 bytes in Q4_0's nibble order, so the
// DP4A unpacking is 08's; each super-block's 16-byte header (d, dmin, the 12 bytes of 6-bit scales
// and mins, their bits rearranged so that sub-block j's lie in two words) sits in a stream of its
// own, which the 8 threads of its sub-blocks share (a word each, then shuffles). Each thread
// unpacks its own 6-bit scale and min (a few integer instructions per 32 values; widening them
// offline would add bytes to the weights, which a GEMV waits on).
// Improves: a K-quant GEMV that reads 4.5 bits per weight, as many as Q4_0: on the H200 1.5x
// llama.cpp's own Q4_K GEMV at M = 1 (KQUANTS.md).
// Limit: more instructions per byte than 08 (shuffles, unpacking, two more multiplies per token):
// at M = 1 it issues on 60% of the cycles where 08 needs 43%, and is 8% slower on the same bytes;
// 08's limits at larger M (the row sums and the registers grow with M). K must be a multiple of
// 256 (whole super-blocks) and at most 16384.
#pragma once

#include "../../common/gemm_case.h"
#include "../../common/gemv_resident.cuh"
#include "../../common/ggml_kquants.h"
#include "../../common/gpu.cuh"
#include "../../common/q4_0_q8_1.h"
#include "../../common/q4_k_layout.h"
#include "../../common/small_int_to_float.cuh"
#include "../w4a8_layout.cuh"
#include "08_gemv_resident.cuh"

namespace gemv_q4_k {

// The 8 threads of one super-block are 8 consecutive lanes of a warp (thread b owns sub-block b,
// and 8 divides 32): they split the 16-byte header between them, lane j loading word j % 4 (d and
// dmin, then the three words of scales and mins, q4_k_lane_header's order), and pass the words
// around with shuffles once the loads have landed (ready(), once per row, not per token). A whole header per thread would hold
// 4 registers per row in flight where Q4_0 holds 1: 95 registers instead of 72 at M = 1, one CTA
// of 448 threads per SM instead of two, half the bytes in flight (13.0 against 12.5 us, H200).
struct ResidentQ4_KQ8_1 {
    using Args = W4A8Args;
    struct Weight {
        uint4 q;               // the sub-block's 32 codes, Q4_0's nibble order
        uint32_t header_word;  // word j % 4 of its super-block's header (q4_k_lane_header), j = block % 8
    };
    struct Ready {
        uint4 q;
        float d_sc, dmin_m;  // d·sc_j and dmin·m_j
    };
    using Activation = gemv_resident_w4a8::ResidentQ4_0Q8_1::Activation;  // the same Q8_1 blocks as 08

    // The codes stream past once (__ldcs: evict first, as 08's); the header words go through the
    // read-only path (__ldg), which the H200 timed 4.5% faster at M = 1 (11.1 -> 10.6 us; the
    // codes that way made both 08 and 12 slower: LAB_NOTES.md).
    __device__ static Weight load_weight(const Args& p, int row, int block) {
        const size_t sub = (size_t)row * (p.K / 32) + block;  // its super-block: sub / 8 (8 sub-blocks each)
        return {__ldcs(reinterpret_cast<const uint4*>(p.q4k_codes) + sub),
                __ldg(reinterpret_cast<const uint32_t*>(p.q4k_headers) + sub / kQ4KSubBlocks * 4 + block % 4)};
    }
    __device__ static Activation load_activation(const Args& p, int token, int block) {
        return gemv_resident_w4a8::ResidentQ4_0Q8_1::load_activation(p, token, block);
    }
    // Every lane of the warp runs this (the skeleton's promise), so the shuffles are converged.
    // Three shuffles: (d, dmin), the word with the lane's scale byte, the word of min nibbles.
    __device__ static Ready ready(const Weight& w) {
        const int j = threadIdx.x % kQ4KSubBlocks;  // thread b owns sub-block b
        const uint32_t d_dmin_bits = __shfl_sync(0xFFFFFFFFu, w.header_word, 0, kQ4KSubBlocks);
        const uint32_t sc_word = __shfl_sync(0xFFFFFFFFu, w.header_word, 1 + j / 4, kQ4KSubBlocks);
        const uint32_t m_low_word = __shfl_sync(0xFFFFFFFFu, w.header_word, 3, kQ4KSubBlocks);
        int sc, m;
        q4_k_lane_scale_min(j, sc_word, m_low_word, sc, m);
        const float2 d_dmin = __half22float2(*reinterpret_cast<const __half2*>(&d_dmin_bits));
        return {w.q, d_dmin.x * small_int_to_float(sc), d_dmin.y * small_int_to_float(m)};
    }
    // d·sc_j·(d_a·sumi) − dmin·m_j·s.
    __device__ static float dot(const Ready& w, const Activation& a) {
        const uint32_t words[4] = {w.q.x, w.q.y, w.q.z, w.q.w};
        const int sumi = block_sumi_words(words, a.q);
        return fmaf(w.d_sc * a.d, small_int_to_float(sumi), -w.dmin_m * a.s);
    }
    __device__ static float finish(const Args&, int, float sum) { return sum; }
};

}  // namespace gemv_q4_k

// The shapes a K-quant GEMV on 08's skeleton takes (rungs 12 and 13): whole super-blocks, 08's limits.
inline std::string kquant_gemv_why_not(const char* format, const GemmCase& c) {
    if (c.K % QK_K != 0) return std::string(format) + ": K must be a multiple of 256 (whole super-blocks)";
    return gemv_resident_why_not(c.M, c.K, gemv_resident_w4a8::kResidentMaxTokens);
}
inline std::string w4a8_gemv_q4_k_why_not(const GemmCase& c, const Gpu&) { return kquant_gemv_why_not("Q4_K", c); }
inline void launch_w4a8_gemv_q4_k(const W4A8Args& p, cudaStream_t s) {
    launch_gemv_resident<gemv_q4_k::ResidentQ4_KQ8_1, true, gemv_resident_w4a8::kResidentMaxTokens>(p, s);
}
