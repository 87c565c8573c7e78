// format_comparison.h - part 1 of step 3 (the formats and their error, the 0x6400 trick), its
// arithmetic apart from its printing, so that test_w4a16_cpu checks what the lesson demonstrates.
#pragma once

#include "../common/check.h"
#include "../common/data.h"
#include "../common/ggml_quants.h"
#include "../common/q4_0_layout.cuh"
#include "w4a16_formats.h"

#include <cstdint>
#include <vector>

// One format's bits per weight and weight NMSE (Σ(deq - w)² / Σw²) on N(0,1) weights, and on the
// same weights with 1 in 256 multiplied by 20 (the outliers real layers have).
struct FormatError {
    const char* name;
    double bits;
    double nmse_normal, nmse_outliers;
};

// The comparison part 1 prints, on a kRows x kCols matrix: Q4_0, group-128, W8 per row, fp16.
constexpr int64_t kComparisonRows = 256, kComparisonCols = 4096;
constexpr float kOutlierFactor = 20.f;

inline std::vector<FormatError> compare_format_errors(uint64_t seed) {
    constexpr int64_t N = kComparisonRows, K = kComparisonCols;
    std::vector<float> normal(N * K);
    fill_normal(normal, seed, 31);
    std::vector<float> outliers = normal;
    for (size_t i = 0; i < outliers.size(); i += 256) outliers[i + (i / 256) % 256] *= kOutlierFactor;
    struct Format {
        const char* name;
        double bits;
        std::vector<float> (*deq)(const std::vector<float>&, int64_t, int64_t);
    };
    const Format formats[] = {
        {"Q4_0: blocks of 32, fp16 d, (q - 8)*d", 4.0 + 16.0 / QK4_0,
         [](const std::vector<float>& w, int64_t n, int64_t k) { return dequantize_q4_0_rows(quantize_rows_q4_0(w, n, k), n, k); }},
        {"group-128: fp16 s, zero z, fp16((q - z)*s)", 4.0 + 24.0 / kGroupSize,
         [](const std::vector<float>& w, int64_t n, int64_t k) { return dequantize_g128(quantize_g128(w, n, k)); }},
        {"W8 per row: fp16 d, q*d", 8.0 + 16.0 / K,
         [](const std::vector<float>& w, int64_t n, int64_t k) { return dequantize_w8(quantize_w8_per_row(w, n, k)); }},
        {"fp16 (what HGEMM reads)", 16.0, [](const std::vector<float>& w, int64_t, int64_t) { return from_fp16(to_fp16(w)); }},
    };
    std::vector<FormatError> rows;
    for (const Format& f : formats)
        rows.push_back({f.name, f.bits, nmse(f.deq(normal, N, K), normal), nmse(f.deq(outliers, N, K), outliers)});
    return rows;
}

// The 0x6400 trick for one code q and zero point z, as the kernels do it on two codes at once:
// the fp16 bits 0x6400 | q, their value (1024 + q: from 1024 to 2048 the last mantissa bit is
// worth 1), and that value minus fp16 1024 + z, in fp16: q - z, exactly.
struct HalfTrick {
    uint16_t bits;
    float value;
    float minus_zero;
};

inline HalfTrick half_trick(int q, int z) {
    const uint16_t bits = (uint16_t)(0x6400 | q);
    const float value = fp16_to_fp32(bits);
    return {bits, value, fp16_to_fp32(fp32_to_fp16(value - fp16_to_fp32(fp32_to_fp16(1024.0f + (float)z))))};
}
