// q4_k_q8_1.h - the Q4_K × Q8_1 dot product, sub-block by sub-block, as llama.cpp's CUDA backend
// computes it: the compensation formula of q4_0_q8_1.h with Q4_0's −8 replaced by a minimum.
//
// Sub-block j of a Q4_K super-block (32 values, one Q8_1 block of activations beside it) holds
// weights w = d·sc_j·q − dmin·m_j, q in 0..15. With activations a ≈ d_a·q_a:
//
//   Σ w·a = d·sc_j·d_a·Σ q·q_a  −  dmin·m_j·d_a·Σ q_a  =  d·sc_j·d_a·sumi_j  −  dmin·m_j·s
//
// sumi_j is an integer dot product of unsigned 4-bit codes with int8 activations (DP4A or int8
// tensor cores, as for Q4_0), and s = d_a·Σ q_a is stored in the Q8_1 block: one multiply-add per
// sub-block corrects for the minimum, where Q4_0 needed one for its fixed −8. step4_w4a8/KQUANTS.md
// derives it ("The same trick with a minimum").
#pragma once

#include "ggml_kquants.h"
#include "ggml_quants.h"

#include <cmath>
#include <cstdint>

// Σ q·q_a over sub-block j of a Q4_K super-block (values 32j..32j+31, q4_k_code in ggml_kquants.h).
inline int q4_k_subblock_sumi(const block_q4_K& w, int j, const int8_t* q_a) {
    int sumi = 0;
    for (int l = 0; l < 32; ++l) sumi += q4_k_code(w, 32 * j + l) * q_a[l];
    return sumi;
}

// One output in float64: rows w (nsuper Q4_K super-blocks) and a (8·nsuper Q8_1 blocks), by the
// formula above, with the s stored in each Q8_1 block.
inline double q4_k_q8_1_dot_f64(const block_q4_K* w, const block_q8_1* a, int64_t nsuper) {
    double sum = 0;
    for (int64_t b = 0; b < nsuper; ++b) {
        const double d = fp16_to_fp32(w[b].d), dmin = fp16_to_fp32(w[b].dmin);
        for (int j = 0; j < QK_K / 32; ++j) {
            int sc, m;
            kquants::q4_k_scale_min(j, w[b].scales, sc, m);
            const block_q8_1& aj = a[b * (QK_K / 32) + j];
            sum += d * sc * fp16_to_fp32(aj.d) * q4_k_subblock_sumi(w[b], j, aj.qs) - dmin * m * fp16_to_fp32(aj.s);
        }
    }
    return sum;
}
