// q6_k_q8_1.h - the Q6_K × Q8_1 dot product, as llama.cpp's CUDA backend computes it: per 16
// values (one Q6_K sub-block, half a Q8_1 block) an integer dot product of the signed codes q − 32
// with the int8 activations, times the sub-block's int8 scale; per Q8_1 block one FP32 scale d_a;
// per super-block one fp16 d:
//
//   Σ w·a = d · Σ_j d_a(j) · ( sc_2j · Σ_{l<16} (q−32)·q_a  +  sc_2j+1 · Σ_{l≥16} (q−32)·q_a )
//
// No compensation here: Q4_0's trick moves a constant offset onto the activations' sum, which
// Q8_1 stores once per 32 values (s), but Q6_K's scales change every 16 values, so the offset 32
// would need the sum of each half, which Q8_1 does not store. The kernels subtract 32 from each
// code instead (four at a time: one byte-wise subtraction per word), and need no s.
// step4_w4a8/KQUANTS.md ("Q6_K") derives it.
#pragma once

#include "ggml_kquants.h"
#include "ggml_quants.h"

#include <cstdint>

// Σ (q−32)·q_a over the 16 values 16s..16s+15 of a Q6_K super-block (s: its sub-block, 0..15);
// q_a holds the activation codes of those 16 values.
inline int q6_k_subblock_sumi(const block_q6_K& w, int s, const int8_t* q_a) {
    int sumi = 0;
    for (int l = 0; l < 16; ++l) sumi += q6_k_code(w, 16 * s + l) * q_a[l];
    return sumi;
}

// One output in float64: rows w (nsuper Q6_K super-blocks) and a (8·nsuper Q8_1 blocks).
inline double q6_k_q8_1_dot_f64(const block_q6_K* w, const block_q8_1* a, int64_t nsuper) {
    double sum = 0;
    for (int64_t b = 0; b < nsuper; ++b) {
        const double d = fp16_to_fp32(w[b].d);
        for (int j = 0; j < QK_K / 32; ++j) {
            const block_q8_1& aj = a[b * (QK_K / 32) + j];
            const int halves = w[b].scales[2 * j] * q6_k_subblock_sumi(w[b], 2 * j, aj.qs) +
                               w[b].scales[2 * j + 1] * q6_k_subblock_sumi(w[b], 2 * j + 1, aj.qs + 16);
            sum += d * fp16_to_fp32(aj.d) * halves;
        }
    }
    return sum;
}
