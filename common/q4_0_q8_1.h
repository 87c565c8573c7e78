// q4_0_q8_1.h - the W4A8 dot product: Q4_0 weights times Q8_1 activations, block by block.
//
// One 32-value block: weights w_j = (n_j - 8)·d_w with n_j the unsigned nibble (0..15), and
// activations a_j ≈ q_j·d_a. Their dot product splits into an integer part and one correction:
//
//   Σ_j (n_j - 8)·d_w · q_j·d_a  =  d_w · ( d_a · Σ_j n_j·q_j  -  8 · d_a·Σ_j q_j )
//                                =  d_w · ( d_a · sumi  -  8 · s )            s = d_a·Σq
//
// sumi is a dot product of unsigned nibbles with int8 values, which DP4A (and int8 tensor cores)
// do four at a time, and s is stored in the Q8_1 block, so the "-8" costs one multiply-add per
// block instead of a subtraction per value. step4_w4a8/README.md derives it line by line.
//
// Everything here is __host__ __device__: the GPU kernels, the CPU references and the unit tests
// run the same per-block code.
#pragma once

#include "check.h"
#include "ggml_quants.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

// ---------------------------------------------------------------------------------------------
// Four values at a time: the packed-byte arithmetic of DP4A
// ---------------------------------------------------------------------------------------------

// 4 bytes of a Q4_0 block's qs (elements j..j+3 in the low nibbles, j+16..j+19 in the high
// ones) become two words of four unsigned bytes 0..15 each: no "-8" here (the correction does it).
GGML_HD uint32_t low_nibbles(uint32_t packed) { return packed & 0x0F0F0F0Fu; }
GGML_HD uint32_t high_nibbles(uint32_t packed) { return (packed >> 4) & 0x0F0F0F0Fu; }

// acc + Σ_i a.byte[i]·b.byte[i], all four bytes signed: the DP4A instruction (sm_61+). The
// nibble bytes are 0..15, so reading them as signed int8 changes nothing.
GGML_HD int dp4a_s8(uint32_t a, uint32_t b, int acc) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 610
    return __dp4a((int)a, (int)b, acc);
#else
    for (int i = 0; i < 4; ++i) acc += (int)(int8_t)(a >> (8 * i)) * (int)(int8_t)(b >> (8 * i));
    return acc;
#endif
}

// ---------------------------------------------------------------------------------------------
// One block
// ---------------------------------------------------------------------------------------------

GGML_HD uint32_t load_u32_le(const uint8_t* p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

// sumi = Σ_j n_j·q_j with unsigned nibbles for a block in words: qs[i] holds elements 4i..4i+3
// (low nibbles) and 4i+16..4i+19 (high), codes[i] the activation codes 4i..4i+3. Eight DP4A, as
// the DP4A kernels do once their loads have brought the block into registers.
GGML_HD int block_sumi_words(const uint32_t qs[4], const uint32_t codes[8]) {
    int sumi = 0;
    for (int i = 0; i < 4; ++i) {
        sumi = dp4a_s8(low_nibbles(qs[i]), codes[i], sumi);
        sumi = dp4a_s8(high_nibbles(qs[i]), codes[i + 4], sumi);
    }
    return sumi;
}

// The same from ggml's blocks in memory.
GGML_HD int block_sumi(const block_q4_0& w, const block_q8_1& a) {
    uint32_t qs[4], codes[8];
    for (int i = 0; i < 4; ++i) qs[i] = load_u32_le(w.qs + 4 * i);
    for (int i = 0; i < 8; ++i) codes[i] = load_u32_le(reinterpret_cast<const uint8_t*>(a.qs) + 4 * i);
    return block_sumi_words(qs, codes);
}

// Σ_j (n_j - 8)·q_j: the signed integer dot product, with the "-8" applied to each nibble.
GGML_HD int block_signed_sumi(const block_q4_0& w, const int8_t* q) {
    int sum = 0;
    for (int j = 0; j < QK4_0 / 2; ++j) {
        sum += ((w.qs[j] & 0x0F) - 8) * q[j];
        sum += ((w.qs[j] >> 4) - 8) * q[j + QK4_0 / 2];
    }
    return sum;
}

// The compensated block term in fp32, written the way llama.cpp's CUDA kernels write it:
// d_w·(sumi·d_a - 8·s). (golden dots.f64 variants 4 and 5; host code: one rounding per operation.)
GGML_HD float compensated_block_term(float d_w, float d_a, float s, int sumi) {
    return mul_rn(d_w, add_rn(mul_rn((float)sumi, d_a), -mul_rn(8.0f, s)));
}

// ---------------------------------------------------------------------------------------------
// Whole rows and matrices, on the CPU
// ---------------------------------------------------------------------------------------------

// Which Q4_0·Q8_1 dot product a kernel computes, and so which reference its error is judged by.
enum class W4A8Form {
    Compensated,  // Σ_b d_w·(d_a·sumi - 8·s): uses the stored s (fp16), as DP4A kernels do
    Signed,       // Σ_b d_w·d_a·Σ(n-8)·q: the exact dequantized dot; ignores s (tensor cores)
};

// One output in float64: the exact value of the chosen form for rows w (Q4_0) and a (Q8_1).
inline double w4a8_dot_f64(const block_q4_0* w, const block_q8_1* a, int64_t nblocks, W4A8Form form) {
    double sum = 0;
    for (int64_t b = 0; b < nblocks; ++b) {
        const double d_w = fp16_to_fp32(w[b].d), d_a = fp16_to_fp32(a[b].d), s = fp16_to_fp32(a[b].s);
        if (form == W4A8Form::Compensated)
            sum += d_w * ((double)block_sumi(w[b], a[b]) * d_a - 8.0 * s);
        else
            sum += d_w * d_a * (double)block_signed_sumi(w[b], a[b].qs);
    }
    return sum;
}

// The same output the way the fp32 kernels compute it, block terms added in order.
inline float w4a8_dot_f32(const block_q4_0* w, const block_q8_1* a, int64_t nblocks) {
    float sum = 0.f;
    for (int64_t b = 0; b < nblocks; ++b)
        sum = add_rn(sum, compensated_block_term(fp16_to_fp32(w[b].d), fp16_to_fp32(a[b].d), fp16_to_fp32(a[b].s),
                                                 block_sumi(w[b], a[b])));
    return sum;
}

// ggml's scalar CPU reference for Q4_0·Q8_0 (golden variant 0): per block the signed sumi, then
// sumf += (sumi·d_w)·d_a in fp32.
inline float ggml_q4_0_q8_0_dot_f32(const block_q4_0* w, const block_q8_0* a, int64_t nblocks) {
    float sum = 0.f;
    for (int64_t b = 0; b < nblocks; ++b)
        sum = add_rn(sum, mul_rn(mul_rn((float)block_signed_sumi(w[b], a[b].qs), fp16_to_fp32(w[b].d)), fp16_to_fp32(a[b].d)));
    return sum;
}

// ---------------------------------------------------------------------------------------------
// Against the dot products ggml recorded (common/golden/, dots.f64)
// ---------------------------------------------------------------------------------------------

// How many of a golden case's recorded dot products our formulas reproduce, from the given
// blocks (rows x nblocks each), for every (weight row i, activation row j):
//   v0  ggml's scalar Q4_0·Q8_0 in fp32 (ggml_q4_0_q8_0_dot_f32)   bit for bit
//   v3  the dequantized dot in float64 (the signed form)             relative 1e-12: ggml adds single
//       products, we add whole blocks; where a Q4_0 scale overflowed, ggml's 0·inf = NaN and our
//       ±inf both say "overflow", and either is accepted
//   v4  the CUDA formula in fp32, activations with s = d·Σq          bit for bit
//   v5  the same with s = Σx (llama.cpp's GPU quantizer)              bit for bit
//   v6  v5's formula in float64                                       bit for bit
// Two NaNs count as equal. `dots` is dots.f64: [i][j][8] doubles.
struct GoldenDotCounts {
    static constexpr int kVariants = 5;
    static constexpr const char* kNames[kVariants] = {"v0 ggml CPU Q4_0*Q8_0, fp32", "v3 dequantized dot, float64",
                                                      "v4 CUDA formula, s = d*sum q", "v5 CUDA formula, s = sum x",
                                                      "v6 v5 in float64"};
    static constexpr const char* kRules[kVariants] = {"bit for bit", "rel. 1e-12", "bit for bit", "bit for bit", "bit for bit"};
    size_t compared = 0;
    size_t bad[kVariants] = {0, 0, 0, 0, 0};
};

inline bool same_double(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

// v3's rule: relative 1e-12 where ggml's value is finite; where either side overflowed (inf or
// NaN), both must have.
inline bool dequantized_dot_matches(double ours, double golden) {
    if (!std::isfinite(ours) || !std::isfinite(golden)) return !std::isfinite(ours) && !std::isfinite(golden);
    return std::fabs(ours - golden) <= 1e-12 * std::fabs(golden);
}

// A GPU's compensated dot product (step 5) against ggml's v4 or v5: within kSumOrderTolerance of
// Σ|deq(w)·deq(a)| where ggml's value is finite (the GPU fuses multiply-adds, so not bit for bit);
// where ggml's overflowed (an fp16 d or s out of range), the GPU's must have overflowed too, as
// inf or NaN: which of the two depends on the order of the additions.
inline bool gpu_dot_matches_golden(double got, double golden, double abs_sum) {
    if (!std::isfinite(golden)) return !std::isfinite(got);
    return std::fabs(got - golden) <= kSumOrderTolerance * std::max(abs_sum, 1e-300);
}

inline void count_golden_dots(const double* dots, int64_t rows, int64_t nblocks, const block_q4_0* w, const block_q8_0* a8_0,
                              const block_q8_1* a8_1, const block_q8_1* a_sumx, GoldenDotCounts& counts) {
    for (int64_t i = 0; i < rows; ++i)
        for (int64_t j = 0; j < rows; ++j) {
            const double* v = &dots[(i * rows + j) * 8];
            const block_q4_0* wi = w + i * nblocks;
            ++counts.compared;
            counts.bad[0] += !same_double((double)ggml_q4_0_q8_0_dot_f32(wi, a8_0 + j * nblocks, nblocks), v[0]);
            counts.bad[1] += !dequantized_dot_matches(w4a8_dot_f64(wi, a8_1 + j * nblocks, nblocks, W4A8Form::Signed), v[3]);
            counts.bad[2] += !same_double((double)w4a8_dot_f32(wi, a8_1 + j * nblocks, nblocks), v[4]);
            counts.bad[3] += !same_double((double)w4a8_dot_f32(wi, a_sumx + j * nblocks, nblocks), v[5]);
            counts.bad[4] += !same_double(w4a8_dot_f64(wi, a_sumx + j * nblocks, nblocks, W4A8Form::Compensated), v[6]);
        }
}
