// ggml_kquants.h - llama.cpp's K-quant formats Q4_K and Q6_K, on the CPU, byte for byte as ggml's
// reference functions write them (common/golden_kquants/ holds what ggml itself produced).
//
// A K-quant block is a *super-block* of 256 values cut into sub-blocks, with the sub-blocks'
// scales themselves quantized against one fp16 scale per super-block:
//
//   Q4_K  144 bytes, 4.5 bits per value: fp16 d and dmin, 12 bytes holding eight 6-bit scales and
//         eight 6-bit mins (one per sub-block of 32), 128 bytes of 4-bit codes.
//         value = d·sc_j·q − dmin·m_j, q in 0..15 (a scale and a *minimum* per sub-block).
//   Q6_K  210 bytes, 6.5625 bits per value: 128 bytes of low 4 bits and 64 of high 2 bits of the
//         6-bit codes, sixteen int8 scales (one per sub-block of 16), fp16 d.
//         value = d·sc_j·(q − 32), q in 0..63.
//
// The quantizers search for each sub-block's scale (and Q4_K's minimum) that minimizes a weighted
// squared error, then round the sub-blocks' scales to 6 or 8 bits. Every rounding below is the
// one ggml's reference makes, in the same order: `nearest` is its round-half-to-even through the
// float 1.5·2^23, and host code is compiled with one rounding per operation (no FMA contraction).
// step2_quant/README.md ("K-quants") explains the format and the search.
#pragma once

#include "ggml_quants.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

constexpr int QK_K = 256;           // values per super-block
constexpr int K_SCALE_SIZE = 12;    // Q4_K: eight 6-bit scales and eight 6-bit mins

struct block_q4_K {
    ggml_half d;                    // scale of the sub-blocks' scales
    ggml_half dmin;                 // scale of the sub-blocks' mins
    uint8_t scales[K_SCALE_SIZE];   // 6-bit scales and mins, packed (q4_k_scale_min)
    uint8_t qs[QK_K / 2];           // 4-bit codes: byte l of each 32-byte run holds values l (low) and l + 32 (high) of 64
};
static_assert(sizeof(block_q4_K) == 144, "ggml's block_q4_K is 144 bytes");
static_assert(offsetof(block_q4_K, scales) == 4 && offsetof(block_q4_K, qs) == 16, "ggml's block_q4_K layout");

struct block_q6_K {
    uint8_t ql[QK_K / 2];           // low 4 bits of the codes
    uint8_t qh[QK_K / 4];           // high 2 bits of the codes
    int8_t scales[QK_K / 16];       // sub-block scales, 8 bits
    ggml_half d;                    // scale of the scales
};
static_assert(sizeof(block_q6_K) == 210, "ggml's block_q6_K is 210 bytes");
static_assert(offsetof(block_q6_K, qh) == 128 && offsetof(block_q6_K, scales) == 192 && offsetof(block_q6_K, d) == 208,
              "ggml's block_q6_K layout");

// Q8_K: what ggml's CPU quantizes the activations to before a K-quant dot product (it is never
// stored in a model file): 256 int8 codes with one FP32 scale for the whole super-block, and the
// sum of every 16 codes (which pays for Q4_K's minimums, kquants_q8_k.h).
struct block_q8_K {
    float d;                        // scale: value = d·q
    int8_t qs[QK_K];                // codes
    int16_t bsums[QK_K / 16];       // Σ of codes 16j..16j+15
};
static_assert(sizeof(block_q8_K) == 292, "ggml's block_q8_K is 292 bytes");

namespace kquants {

// Round to nearest, ties to even, for |f| < 2^22: add 1.5·2^23 and read the integer from the
// mantissa (the float addition does the rounding).
inline int nearest(float f) {
    const float biased = f + 12582912.f;
    int32_t bits;
    std::memcpy(&bits, &biased, sizeof bits);
    return (bits & 0x007fffff) - 0x00400000;
}

// Q4_K's 12 bytes: sub-blocks 0-3 keep their 6-bit scale in byte j and min in byte j + 4 (low 6
// bits each); sub-blocks 4-7 keep their low 4 bits of scale and min in byte j + 4 (scale low
// nibble, min high nibble) and their top 2 bits in the spare top bits of bytes j - 4 (scale) and
// j (min):
//
//   byte   0..3   [s4..7 hi:2][ scale 0..3 :6 ]      8..11  [ min 4..7 lo:4 ][ scale 4..7 lo:4 ]
//          4..7   [m4..7 hi:2][  min 0..3  :6 ]
inline void q4_k_scale_min(int j, const uint8_t* packed, int& scale, int& min) {
    if (j < 4) {
        scale = packed[j] & 63;
        min = packed[j + 4] & 63;
    } else {
        scale = (packed[j + 4] & 0xF) | ((packed[j - 4] >> 6) << 4);
        min = (packed[j + 4] >> 4) | ((packed[j] >> 6) << 4);
    }
}

inline void q4_k_pack_scale_min(int j, int scale, int min, uint8_t* packed) {
    if (j < 4) {
        packed[j] = (uint8_t)scale;
        packed[j + 4] = (uint8_t)min;
    } else {  // after sub-blocks 0-3 wrote bytes 0-7
        packed[j + 4] = (uint8_t)((scale & 0xF) | ((min & 0xF) << 4));
        packed[j - 4] |= (uint8_t)((scale >> 4) << 6);
        packed[j] |= (uint8_t)((min >> 4) << 6);
    }
}

// One sub-block of Q4_K: the scale and minimum (returned as a positive number to subtract) of
// codes 0..nmax that minimize Σ w·(scale·q + min − x)², and the codes. First the plain fit
// (min = the smallest value, or 0 if all are positive; scale = range / nmax), then a scan of
// nstep + 1 slightly different scales, each followed by the least-squares scale and min for the
// codes it gives; the best of all by the weighted error wins.
inline float fit_scale_and_min(int n, int nmax, const float* x, const float* w, uint8_t* codes, float* neg_min, uint8_t* trial,
                               float rmin, float rdelta, int nstep) {
    float lo = x[0], hi = x[0], sum_w = w[0], sum_x = sum_w * x[0];
    for (int i = 1; i < n; ++i) {
        lo = x[i] < lo ? x[i] : lo;
        hi = x[i] > hi ? x[i] : hi;
        sum_w += w[i];
        sum_x += w[i] * x[i];
    }
    if (lo > 0) lo = 0;
    if (hi == lo) {  // constant (or all zero after the clamp): nothing to scale
        for (int i = 0; i < n; ++i) codes[i] = 0;
        *neg_min = -lo;
        return 0.f;
    }
    float iscale = nmax / (hi - lo), scale = 1 / iscale, best_error = 0;
    for (int i = 0; i < n; ++i) {
        codes[i] = (uint8_t)std::max(0, std::min(nmax, nearest(iscale * (x[i] - lo))));
        const float diff = scale * codes[i] + lo - x[i];
        best_error += w[i] * (diff * diff);
    }
    for (int step = 0; step <= nstep; ++step) {
        iscale = (rmin + rdelta * step + nmax) / (hi - lo);
        float sum_l = 0, sum_l2 = 0, sum_xl = 0;
        for (int i = 0; i < n; ++i) {
            const int l = std::max(0, std::min(nmax, nearest(iscale * (x[i] - lo))));
            trial[i] = (uint8_t)l;
            sum_l += w[i] * l;
            sum_l2 += w[i] * l * l;
            sum_xl += w[i] * l * x[i];
        }
        const float det = sum_w * sum_l2 - sum_l * sum_l;
        if (!(det > 0)) continue;
        float trial_scale = (sum_w * sum_xl - sum_x * sum_l) / det;
        float trial_min = (sum_l2 * sum_x - sum_l * sum_xl) / det;
        if (trial_min > 0) {  // a positive min would shift every value up: fit the scale alone
            trial_min = 0;
            trial_scale = sum_xl / sum_l2;
        }
        float error = 0;
        for (int i = 0; i < n; ++i) {
            const float diff = trial_scale * trial[i] + trial_min - x[i];
            error += w[i] * (diff * diff);
        }
        if (error < best_error) {
            std::copy(trial, trial + n, codes);
            best_error = error;
            scale = trial_scale;
            lo = trial_min;
        }
    }
    *neg_min = -lo;
    return scale;
}

// One sub-block of Q6_K: the signed scale of codes −nmax..nmax−1 that minimizes Σ x²·(scale·l − x)²,
// searched over 19 candidate scales around −nmax / max (max: the value of largest magnitude, its
// sign kept, so that it lands on −nmax exactly as in Q4_0); codes stored as l + nmax.
inline float fit_signed_scale(int n, int nmax, const float* x, int8_t* codes) {
    float max = 0, amax = 0;
    for (int i = 0; i < n; ++i)
        if (std::fabs(x[i]) > amax) {
            amax = std::fabs(x[i]);
            max = x[i];
        }
    if (amax < 1e-15f) {
        for (int i = 0; i < n; ++i) codes[i] = 0;
        return 0.f;
    }
    auto weighted_sums = [&](float iscale, float& sum_lx, float& sum_l2) {
        sum_lx = sum_l2 = 0;
        for (int i = 0; i < n; ++i) {
            const int l = std::max(-nmax, std::min(nmax - 1, nearest(iscale * x[i])));
            const float w = x[i] * x[i];
            sum_lx += w * x[i] * l;
            sum_l2 += w * l * l;
        }
    };
    auto set_codes = [&](float iscale) {
        for (int i = 0; i < n; ++i) codes[i] = (int8_t)(nmax + std::max(-nmax, std::min(nmax - 1, nearest(iscale * x[i]))));
    };
    float iscale = -nmax / max, sum_lx, sum_l2;
    set_codes(iscale);
    weighted_sums(iscale, sum_lx, sum_l2);
    float scale = sum_l2 ? sum_lx / sum_l2 : 0.0f, best = scale * sum_lx;
    for (int step = -9; step <= 9; ++step) {
        if (step == 0) continue;
        iscale = -(nmax + 0.1f * step) / max;
        weighted_sums(iscale, sum_lx, sum_l2);
        if (sum_l2 > 0 && sum_lx * sum_lx > best * sum_l2) {
            set_codes(iscale);
            scale = sum_lx / sum_l2;
            best = scale * sum_lx;
        }
    }
    return scale;
}

}  // namespace kquants

// k values (a multiple of 256) into k / 256 blocks.
inline void quantize_row_q4_K_ref(const float* x, block_q4_K* y, int64_t k) {
    using namespace kquants;
    constexpr int kSub = 32, kSubs = QK_K / kSub;
    for (int64_t b = 0; b < k / QK_K; ++b, x += QK_K) {
        uint8_t codes[QK_K], trial[kSub];
        float weights[kSub], scales[kSubs], mins[kSubs], max_scale = 0, max_min = 0;
        for (int j = 0; j < kSubs; ++j) {
            // Each value weighs its magnitude plus the sub-block's rms: large values matter more.
            float sum_x2 = 0;
            for (int l = 0; l < kSub; ++l) sum_x2 += x[kSub * j + l] * x[kSub * j + l];
            const float rms = std::sqrt(sum_x2 / kSub);
            for (int l = 0; l < kSub; ++l) weights[l] = rms + std::fabs(x[kSub * j + l]);
            scales[j] = fit_scale_and_min(kSub, 15, x + kSub * j, weights, codes + kSub * j, &mins[j], trial, -1.f, 0.1f, 20);
            max_scale = std::max(max_scale, scales[j]);
            max_min = std::max(max_min, mins[j]);
        }
        // The sub-blocks' scales and mins to 6 bits, against the largest of each.
        const float inv_scale = max_scale > 0 ? 63.f / max_scale : 0.f, inv_min = max_min > 0 ? 63.f / max_min : 0.f;
        std::memset(y[b].scales, 0, sizeof y[b].scales);
        for (int j = 0; j < kSubs; ++j)
            q4_k_pack_scale_min(j, std::min(63, (int)(uint8_t)nearest(inv_scale * scales[j])),
                                std::min(63, (int)(uint8_t)nearest(inv_min * mins[j])), y[b].scales);
        y[b].d = fp32_to_fp16(max_scale / 63.f);
        y[b].dmin = fp32_to_fp16(max_min / 63.f);
        // The codes again, against the scales as stored (6 bits, fp16 d): what a reader will use.
        for (int j = 0; j < kSubs; ++j) {
            int sc, m;
            q4_k_scale_min(j, y[b].scales, sc, m);
            const float d = fp16_to_fp32(y[b].d) * sc;
            if (!d) continue;  // a zero scale: the search's codes stay
            const float dm = fp16_to_fp32(y[b].dmin) * m;
            for (int l = 0; l < kSub; ++l) codes[kSub * j + l] = (uint8_t)std::max(0, std::min(15, nearest((x[kSub * j + l] + dm) / d)));
        }
        // 64 values per 32 bytes: value l in the low nibble of byte l, value l + 32 in its high one.
        for (int j = 0; j < QK_K; j += 64)
            for (int l = 0; l < 32; ++l) y[b].qs[j / 2 + l] = (uint8_t)(codes[j + l] | (codes[j + l + 32] << 4));
    }
}

// The code of value i (0..255) of a Q4_K super-block: value i sits in the 32-byte run i / 64, low
// nibble for i % 64 < 32, high nibble otherwise (sub-block j = i / 32: low for even j).
inline int q4_k_code(const block_q4_K& w, int i) {
    const uint8_t byte = w.qs[(i / 64) * 32 + i % 32];
    return (i % 64) < 32 ? byte & 0xF : byte >> 4;
}

inline void dequantize_row_q4_K(const block_q4_K* x, float* y, int64_t k) {
    for (int64_t b = 0; b < k / QK_K; ++b) {
        const float d = fp16_to_fp32(x[b].d), dmin = fp16_to_fp32(x[b].dmin);
        for (int j = 0; j < QK_K / 32; ++j) {
            int sc, m;
            kquants::q4_k_scale_min(j, x[b].scales, sc, m);
            const float scale = d * sc, min = dmin * m;
            for (int i = 32 * j; i < 32 * j + 32; ++i) *y++ = scale * q4_k_code(x[b], i) - min;
        }
    }
}

namespace kquants {
// Q6_K's 256 codes (0..63) into its ql and qh: per 128 values, the low nibbles of values l and
// l + 64 in ql[l], of l + 32 and l + 96 in ql[l + 32]; the four values' top 2 bits in qh[l], 2 bits each.
inline void pack_q6_k_codes(const int8_t* codes, block_q6_K& y) {
    for (int j = 0; j < QK_K; j += 128)
        for (int l = 0; l < 32; ++l) {
            const int q0 = codes[j + l], q1 = codes[j + l + 32], q2 = codes[j + l + 64], q3 = codes[j + l + 96];
            y.ql[j / 2 + l] = (uint8_t)((q0 & 0xF) | ((q2 & 0xF) << 4));
            y.ql[j / 2 + l + 32] = (uint8_t)((q1 & 0xF) | ((q3 & 0xF) << 4));
            y.qh[j / 4 + l] = (uint8_t)((q0 >> 4) | ((q1 >> 4) << 2) | ((q2 >> 4) << 4) | ((q3 >> 4) << 6));
        }
}
}  // namespace kquants

inline void quantize_row_q6_K_ref(const float* x, block_q6_K* y, int64_t k) {
    using namespace kquants;
    constexpr int kSub = 16, kSubs = QK_K / kSub;
    for (int64_t b = 0; b < k / QK_K; ++b, x += QK_K) {
        int8_t codes[QK_K];
        float scales[kSubs], max_scale = 0, max_abs_scale = 0;
        for (int j = 0; j < kSubs; ++j) {
            scales[j] = fit_signed_scale(kSub, 32, x + kSub * j, codes + kSub * j);
            if (std::fabs(scales[j]) > max_abs_scale) {
                max_abs_scale = std::fabs(scales[j]);
                max_scale = scales[j];
            }
        }
        std::memset(&y[b], 0, sizeof y[b]);
        if (max_abs_scale < 1e-15f) {  // an all-zero super-block: everything 0
            y[b].d = fp32_to_fp16(0.f);
            continue;
        }
        // The sub-blocks' scales to int8 against the largest (signed, so it lands on -128).
        const float iscale = -128.f / max_scale;
        y[b].d = fp32_to_fp16(1 / iscale);
        for (int j = 0; j < kSubs; ++j) y[b].scales[j] = (int8_t)std::min(127, nearest(iscale * scales[j]));
        // The codes again, against the scales as stored.
        for (int j = 0; j < kSubs; ++j) {
            const float d = fp16_to_fp32(y[b].d) * y[b].scales[j];
            if (!d) continue;
            for (int l = 0; l < kSub; ++l)
                codes[kSub * j + l] = (int8_t)(std::max(-32, std::min(31, nearest(x[kSub * j + l] / d))) + 32);
        }
        pack_q6_k_codes(codes, y[b]);
    }
}

// The code of value i (0..255) of a Q6_K super-block, minus 32: of each 128 values, parts of 32
// take the low nibbles of ql bytes 0-31 and 32-63, then their high nibbles, each with two bits of
// the qh byte beside them (bits 0-1, 2-3, 4-5, 6-7 for parts 0-3).
inline int q6_k_code(const block_q6_K& x, int i) {
    const int j = i / 128 * 128, part = (i % 128) / 32, l = i % 32;
    const uint8_t low = x.ql[j / 2 + l + 32 * (part % 2)];
    return ((part < 2 ? low & 0xF : low >> 4) | (((x.qh[j / 4 + l] >> (2 * part)) & 3) << 4)) - 32;
}

inline void dequantize_row_q6_K(const block_q6_K* x, float* y, int64_t k) {
    for (int64_t b = 0; b < k / QK_K; ++b, y += QK_K) {
        const float d = fp16_to_fp32(x[b].d);
        for (int i = 0; i < QK_K; ++i) y[i] = d * x[b].scales[i / 16] * q6_k_code(x[b], i);
    }
}

// ggml's reference Q8_K quantizer. The value of largest magnitude (the first, on ties) becomes
// code −127: the scale is 1/(−127/max), negative when that value is positive. ggml says the sign
// convention serves one of its SIMD paths; the products come out the same either way. A
// super-block of zeros gets d = 0 and zero codes; ggml leaves its bsums unwritten, we write zeros.
inline void quantize_row_q8_K_ref(const float* x, block_q8_K* y, int64_t k) {
    for (int64_t b = 0; b < k / QK_K; ++b, x += QK_K) {
        block_q8_K& out = y[b];
        float max = 0, amax = 0;
        for (int j = 0; j < QK_K; ++j)
            if (std::fabs(x[j]) > amax) amax = std::fabs(x[j]), max = x[j];
        if (amax == 0) {
            out = block_q8_K{};
            continue;
        }
        const float iscale = -127.f / max;
        for (int j = 0; j < QK_K; ++j) out.qs[j] = (int8_t)std::min(127, kquants::nearest(iscale * x[j]));
        for (int j = 0; j < QK_K / 16; ++j) {
            int sum = 0;
            for (int i = 0; i < 16; ++i) sum += out.qs[16 * j + i];
            out.bsums[j] = (int16_t)sum;
        }
        out.d = 1 / iscale;
    }
}
