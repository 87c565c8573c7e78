// kquants_q8_k.h - the Q4_K × Q8_K and Q6_K × Q8_K dot products as ggml's CPU computes them (its
// generic references, ggml_vec_dot_q4_K_q8_K_generic and ..._q6_K_..., which its SIMD versions
// follow up to the order of additions).
//
// On the CPU, ggml quantizes the activations to Q8_K: one FP32 scale d_a per 256 values, the same
// super-block as the weights'. Then a whole super-block is integer work. With weights
// w = d·sc_j·q − dmin·m_j (sub-block j of 32) and activations a = d_a·q_a:
//
//   Σ w·a = d·d_a·Σ_j sc_j·Σ q·q_a  −  dmin·d_a·Σ_j m_j·Σ q_a
//
// Both sums over j are integers: the sub-block scales sc_j and mins m_j are small integers (6
// bits), and Σ q_a per sub-block is read from Q8_K's bsums. Two FP32 products per super-block
// remain. llama.cpp's CUDA backend (q4_k_q8_1.h) quantizes activations to Q8_1 instead, a scale
// per 32 values, so each sub-block costs FP32 work there: step4_w4a8/KQUANTS.md compares the two.
//
// The order of ggml's FP32 additions, reproduced so that the result is the same float: the
// integer products sc_j·q·q_a go into 8 lanes by the value's position mod 8 (its SIMD width), each
// super-block adds d·lane into 8 FP32 partial sums and subtracts dmin·d_a·(Σ m·bsums) from a running
// total, and the 8 partial sums are added to that total at the end, lane 0 first. Q6_K's is the
// same loop with signed 6-bit codes (q − 32), an int8 scale per 16 values and no minimum.
#pragma once

#include "ggml_kquants.h"

#include <cstdint>

// n values (whole super-blocks) of Q4_K weights x and Q8_K activations y, in ggml's CPU arithmetic.
inline float vec_dot_q4_K_q8_K(const block_q4_K* x, const block_q8_K* y, int64_t n) {
    float lanes[8] = {};
    float total = 0;
    for (int64_t b = 0; b < n / QK_K; ++b) {
        int32_t lane_sums[8] = {};
        int32_t min_sum = 0;
        for (int j = 0; j < QK_K / 32; ++j) {
            int sc, m;
            kquants::q4_k_scale_min(j, x[b].scales, sc, m);
            min_sum += m * (y[b].bsums[2 * j] + y[b].bsums[2 * j + 1]);
            for (int i = 32 * j; i < 32 * j + 32; ++i) lane_sums[i % 8] += sc * q4_k_code(x[b], i) * y[b].qs[i];
        }
        const float d = fp16_to_fp32(x[b].d) * y[b].d;
        for (int l = 0; l < 8; ++l) lanes[l] += d * (float)lane_sums[l];
        const float dmin = fp16_to_fp32(x[b].dmin) * y[b].d;
        total -= dmin * (float)min_sum;
    }
    for (int l = 0; l < 8; ++l) total += lanes[l];
    return total;
}

// n values (whole super-blocks) of Q6_K weights x and Q8_K activations y, in ggml's CPU arithmetic.
inline float vec_dot_q6_K_q8_K(const block_q6_K* x, const block_q8_K* y, int64_t n) {
    float lanes[8] = {};
    for (int64_t b = 0; b < n / QK_K; ++b) {
        int32_t lane_sums[8] = {};
        for (int i = 0; i < QK_K; ++i) lane_sums[i % 8] += x[b].scales[i / 16] * q6_k_code(x[b], i) * y[b].qs[i];
        const float d = fp16_to_fp32(x[b].d) * y[b].d;
        for (int l = 0; l < 8; ++l) lanes[l] += d * (float)lane_sums[l];
    }
    float total = 0;
    for (int l = 0; l < 8; ++l) total += lanes[l];
    return total;
}
