// compensation_demo.h - part 1 of step 4 (the compensation formula on the CPU), its arithmetic
// apart from its printing, so that test_w4a8_cpu checks what the lesson demonstrates.
#pragma once

#include "../common/data.h"
#include "../common/ggml_quants.h"
#include "../common/ggml_quants_tensor.h"
#include "../common/parallel_for.h"
#include "../common/q4_0_layout.cuh"
#include "../common/q4_0_q8_1.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

// The ways to compute one block's (or one row's) product that part 1 compares.
struct DotVariants {
    double truth = 0;         // unquantized FP32 inputs, in float64
    double dequantized = 0;   // Σ deq(w)·deq(a): what the quantized data means, exactly
    double forgot = 0;        // d_w·d_a·sumi: unsigned nibbles, no correction
    double comp_dsumq = 0;    // d_w·(d_a·sumi - 8·s), s = d·Σq (ggml's reference quantizer)
    double comp_sumx = 0;     // the same with s = Σx (llama.cpp's CUDA quantizer)
};

inline DotVariants dot_variants(const float* w, const float* a, const block_q4_0* wq, const block_q8_1* aq_dsumq,
                         const block_q8_1* aq_sumx, int64_t k) {
    DotVariants v;
    for (int64_t i = 0; i < k; ++i) v.truth += (double)w[i] * a[i];
    for (int64_t b = 0; b < k / QK4_0; ++b) {
        const double d_w = fp16_to_fp32(wq[b].d), d_a = fp16_to_fp32(aq_dsumq[b].d);
        const int sumi = block_sumi(wq[b], aq_dsumq[b]);
        v.dequantized += d_w * d_a * block_signed_sumi(wq[b], aq_dsumq[b].qs);
        v.forgot += d_w * d_a * sumi;
        v.comp_dsumq += d_w * (d_a * sumi - 8.0 * fp16_to_fp32(aq_dsumq[b].s));
        const double d_a_sumx = fp16_to_fp32(aq_sumx[b].d);
        v.comp_sumx += d_w * (d_a_sumx * block_sumi(wq[b], aq_sumx[b]) - 8.0 * fp16_to_fp32(aq_sumx[b].s));
    }
    return v;
}

// A whole product of N(0,1) data, M x N outputs of K: each variant's NMSE against the FP32 truth
// (in DotVariants' order, truth left out), and the largest |s = d·Σq form - dequantized| over the
// outputs' rms: the fp16 rounding of s, the one thing that tells the two apart.
struct ProductErrors {
    static constexpr int kVariants = 4;  // dequantized, forgot, comp_dsumq, comp_sumx
    double nmse[kVariants] = {0, 0, 0, 0};
    double max_gap_over_rms = 0;
};

inline ProductErrors compensation_product_errors(uint64_t seed, int64_t M, int64_t N, int64_t K) {
    std::vector<float> A(M * K), W(N * K);
    fill_normal(A, seed, 43);
    fill_normal(W, seed, 44);
    const std::vector<block_q4_0> Wq = quantize_rows_q4_0(W, N, K);
    const std::vector<block_q8_1> Aq = quantize_rows_q8_1(A, M, K, Q81Sum::DTimesSumQ);
    const std::vector<block_q8_1> Ax = quantize_rows_q8_1(A, M, K, Q81Sum::SumX);
    double truth2 = 0, max_gap = 0;
    ProductErrors e;
    for (int64_t m = 0; m < M; ++m)
        for (int64_t n = 0; n < N; ++n) {
            const DotVariants v = dot_variants(&W[n * K], &A[m * K], &Wq[n * K / 32], &Aq[m * K / 32], &Ax[m * K / 32], K);
            truth2 += v.truth * v.truth;
            const double got[ProductErrors::kVariants] = {v.dequantized, v.forgot, v.comp_dsumq, v.comp_sumx};
            for (int i = 0; i < ProductErrors::kVariants; ++i) e.nmse[i] += (got[i] - v.truth) * (got[i] - v.truth);
            max_gap = std::max(max_gap, std::fabs(v.comp_dsumq - v.dequantized));
        }
    for (double& x : e.nmse) x /= truth2;
    e.max_gap_over_rms = max_gap / std::sqrt(truth2 / (M * N));
    return e;
}
