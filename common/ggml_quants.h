// ggml_quants.h - llama.cpp's Q4_0, Q8_0 and Q8_1 block formats, byte for byte (step 2's lesson).
//
// A row of K values (K % 32 == 0) is stored as K/32 independent blocks. Each block keeps one
// scale d (an IEEE half, 2 bytes) and 32 small integers q; a value is q * d.
//
//   block_q4_0  18 B  d | qs[16]: element j in the low nibble of qs[j], element j+16 in the high
//                      nibble; nibble n means n - 8 (so -8..7). 4.5 bits per value.
//   block_q8_0  34 B  d | qs[32] int8.                                             8.5 bits per value.
//   block_q8_1  36 B  d | s | qs[32] int8, s = d * sum(q) (ggml's reference) or
//                      sum(x) (llama.cpp's CUDA kernels). 9 bits per value.
//
// The rounding rules below are ggml's reference quantizers (ggml-quants.c), restated in our own
// code (step2_quant/README.md explains each one); the golden vectors in common/golden/ were produced by ggml itself and the tests
// compare every byte. Every function is __host__ __device__: the GPU quantizers call the very
// same per-value helpers, so CPU and GPU cannot drift apart.
//
// Exactness rules this code relies on (see step2_quant/README.md, "Where rounding comes from"):
//   - x * id + 8.5f must be two roundings, never one fused multiply-add: on the device we say
//     so with __fmul_rn / __fadd_rn; on the host the build passes -ffp-contract=off.
//   - no fast math: 1/d and x/d must be IEEE-rounded divisions.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#include <cuda_fp16.h>
#define GGML_HD __host__ __device__ __forceinline__
#else
#define GGML_HD inline
#endif

constexpr int QK4_0 = 32;
constexpr int QK8_0 = 32;
constexpr int QK8_1 = 32;

typedef uint16_t ggml_half;  // IEEE binary16 bits, little-endian in memory

struct block_q4_0 {
    ggml_half d;
    uint8_t qs[QK4_0 / 2];
};
static_assert(sizeof(block_q4_0) == 18, "block_q4_0 must be 18 bytes, as in ggml");
static_assert(offsetof(block_q4_0, qs) == 2, "block_q4_0: qs follows the 2-byte scale");

struct block_q8_0 {
    ggml_half d;
    int8_t qs[QK8_0];
};
static_assert(sizeof(block_q8_0) == 34, "block_q8_0 must be 34 bytes, as in ggml");
static_assert(offsetof(block_q8_0, qs) == 2, "block_q8_0: qs follows the 2-byte scale");

// 4-byte aligned like ggml's, whose d and s share a 32-bit half2.
struct alignas(4) block_q8_1 {
    ggml_half d;
    ggml_half s;
    int8_t qs[QK8_1];
};
static_assert(sizeof(block_q8_1) == 36, "block_q8_1 must be 36 bytes, as in ggml");
static_assert(offsetof(block_q8_1, s) == 2 && offsetof(block_q8_1, qs) == 4, "block_q8_1: d, s, then qs");
static_assert(alignof(block_q8_1) == 4, "block_q8_1 is 4-byte aligned");

enum class QuantFormat { Q4_0, Q8_0, Q8_1 };

inline const char* format_name(QuantFormat f) {
    return f == QuantFormat::Q4_0 ? "q4_0" : f == QuantFormat::Q8_0 ? "q8_0" : "q8_1";
}
inline size_t block_bytes(QuantFormat f) {
    return f == QuantFormat::Q4_0 ? sizeof(block_q4_0) : f == QuantFormat::Q8_0 ? sizeof(block_q8_0) : sizeof(block_q8_1);
}

// What Q8_1's s holds.
enum class Q81Sum {
    DTimesSumQ,  // ggml's reference: s = fp16(d * sum(q)), d the fp32 scale. Makes step 4's
                 // compensation term exact up to s's own fp16 rounding.
    SumX,        // llama.cpp's CUDA quantize_q8_1: s = fp16(sum(x)) of the unquantized inputs,
                 // added in a 32-lane butterfly; and q = round(x / d) (a division).
};

// ---------------------------------------------------------------------------------------------
// fp32 <-> fp16, bit-exact with ggml's software conversion
// ---------------------------------------------------------------------------------------------

GGML_HD uint32_t f32_bits(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}
GGML_HD float f32_from_bits(uint32_t u) {
    float f;
    memcpy(&f, &u, 4);
    return f;
}

// Round to nearest, ties to even; correct subnormals; keeps the sign of zero; |x| >= 65520
// becomes +-inf; NaN becomes sign | 0x7E00. On the GPU a value that is not NaN goes through the
// conversion instruction, which rounds the same way (one instruction instead of a dozen: the
// quantizers are on the critical path of step 4's kernels); step 2's GPU checks compare the bytes.
GGML_HD ggml_half fp32_to_fp16(float f) {
    const uint32_t x = f32_bits(f);
    const uint32_t sign = (x >> 16) & 0x8000u;
    const uint32_t ax = x & 0x7FFFFFFFu;
    if (ax > 0x7F800000u) return (ggml_half)(sign | 0x7E00u);  // NaN
#if defined(__CUDA_ARCH__)
    return __half_as_ushort(__float2half_rn(f));  // one instruction, rounding to nearest even as below
#endif
    if (ax >= 0x477FF000u) return (ggml_half)(sign | 0x7C00u); // >= 65520: rounds past 65504
    if (ax < 0x38800000u) {
        // Below 2^-14: an fp16 subnormal (or zero), in units of 2^-24. |f| * 2^24 is exact
        // (a power-of-two scale of a value >= 2^-149), and rint rounds it to even.
        const float units = rintf(f32_from_bits(ax) * 16777216.0f);
        return (ggml_half)(sign | (uint32_t)units);  // 1024 units carries into the smallest normal
    }
    // Normal: drop 13 mantissa bits with round-to-nearest-even (a carry may bump the exponent,
    // which is right), then rebias the exponent from 127 to 15.
    const uint32_t rounded = ax + 0x0FFFu + ((ax >> 13) & 1u);
    return (ggml_half)(sign | ((rounded - (112u << 23)) >> 13));
}

// Exact for every half, subnormals included.
GGML_HD float fp16_to_fp32(ggml_half h) {
    const uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    const uint32_t exp = (h >> 10) & 0x1Fu;
    const uint32_t mant = h & 0x3FFu;
#if defined(__CUDA_ARCH__)
    if (exp != 31) return __half2float(__ushort_as_half(h));  // one instruction, exact as below
#endif
    if (exp == 0) {  // zero or subnormal: mant * 2^-24, exact in fp32
        const float v = (float)mant * (1.0f / 16777216.0f);
        return f32_from_bits(sign | f32_bits(v));
    }
    if (exp == 31) return f32_from_bits(sign | 0x7F800000u | (mant << 13));  // inf / NaN
    return f32_from_bits(sign | ((exp + 112u) << 23) | (mant << 13));
}

// ---------------------------------------------------------------------------------------------
// Per-value rounding: the exact arithmetic of ggml's reference, shared by CPU and GPU
// ---------------------------------------------------------------------------------------------

GGML_HD float mul_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
    return __fmul_rn(a, b);  // a rounded product that the compiler may not fuse into an FMA
#else
    return a * b;            // host: the build passes -ffp-contract=off
#endif
}
GGML_HD float add_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
    return __fadd_rn(a, b);
#else
    return a + b;
#endif
}

// Q4_0: d = max / -8, where max is the signed value of largest magnitude (first one wins).
// The most negative code (-8) lands on max itself, so the sign of d follows max.
GGML_HD float q4_0_scale(float signed_max) { return signed_max / -8.0f; }

// The nibble of one value: fp32(fp32(x * id) + 8.5), truncated toward zero, clamped to 15.
// That is floor(x * id + 0.5) + 8 with ties going up; only the top needs a clamp (x * id >= -8).
GGML_HD uint8_t q4_0_nibble(float x, float id) {
    const int v = (int)add_rn(mul_rn(x, id), 8.5f);
    return (uint8_t)(v < 15 ? v : 15);
}

// Q8_0 / Q8_1: d = amax / 127; q = roundf(x * id), ties away from zero.
GGML_HD float q8_scale(float amax) { return amax / 127.0f; }
GGML_HD int8_t q8_value(float x, float id) { return (int8_t)roundf(mul_rn(x, id)); }
// llama.cpp's CUDA activation quantizer divides instead: q = roundf(x / d), 0 when amax == 0.
GGML_HD int8_t q8_value_div(float x, float d) { return d == 0.0f ? (int8_t)0 : (int8_t)roundf(x / d); }

GGML_HD float inverse_or_zero(float d) { return d != 0.0f ? 1.0f / d : 0.0f; }

// ---------------------------------------------------------------------------------------------
// CPU reference quantizers and dequantizers (k = number of values, a multiple of 32)
// ---------------------------------------------------------------------------------------------

// The signed value of largest magnitude in a 32-block. Strictly greater: the first one wins.
// It starts at +0, so an all-zero block gets d = +0 / -8 = -0.
inline float q4_0_block_max(const float* x) {
    float amax = 0.0f, max = 0.0f;
    for (int j = 0; j < QK4_0; ++j)
        if (fabsf(x[j]) > amax) {
            amax = fabsf(x[j]);
            max = x[j];
        }
    return max;
}

inline void quantize_row_q4_0_ref(const float* x, block_q4_0* y, int64_t k) {
    for (int64_t b = 0; b < k / QK4_0; ++b, x += QK4_0) {
        const float d = q4_0_scale(q4_0_block_max(x));
        const float id = inverse_or_zero(d);  // from the fp32 d, before it is rounded to fp16
        y[b].d = fp32_to_fp16(d);
        for (int j = 0; j < QK4_0 / 2; ++j)
            y[b].qs[j] = (uint8_t)(q4_0_nibble(x[j], id) | (q4_0_nibble(x[j + QK4_0 / 2], id) << 4));
    }
}

inline float q8_block_amax(const float* x) {
    float amax = 0.0f;
    for (int j = 0; j < QK8_0; ++j) amax = fmaxf(amax, fabsf(x[j]));
    return amax;
}

inline void quantize_row_q8_0_ref(const float* x, block_q8_0* y, int64_t k) {
    for (int64_t b = 0; b < k / QK8_0; ++b, x += QK8_0) {
        const float d = q8_scale(q8_block_amax(x));
        const float id = inverse_or_zero(d);
        y[b].d = fp32_to_fp16(d);
        for (int j = 0; j < QK8_0; ++j) y[b].qs[j] = q8_value(x[j], id);
    }
}

// The order in which llama.cpp's CUDA kernel adds a block's 32 inputs: a warp butterfly with
// xor offsets 16, 8, 4, 2, 1. Floating-point addition is not associative, so to reproduce its
// s bit for bit we add in the same tree.
inline float butterfly_sum32(const float* x) {
    float v[32];
    for (int j = 0; j < 32; ++j) v[j] = x[j];
    for (int offset = 16; offset > 0; offset /= 2) {
        float next[32];
        for (int j = 0; j < 32; ++j) next[j] = v[j] + v[j ^ offset];
        for (int j = 0; j < 32; ++j) v[j] = next[j];
    }
    return v[0];
}

inline void quantize_row_q8_1_ref(const float* x, block_q8_1* y, int64_t k, Q81Sum sum_mode = Q81Sum::DTimesSumQ) {
    for (int64_t b = 0; b < k / QK8_1; ++b, x += QK8_1) {
        const float d = q8_scale(q8_block_amax(x));
        const float id = inverse_or_zero(d);
        int sum_q = 0;
        for (int j = 0; j < QK8_1; ++j) {
            y[b].qs[j] = sum_mode == Q81Sum::SumX ? q8_value_div(x[j], d) : q8_value(x[j], id);
            sum_q += y[b].qs[j];
        }
        y[b].d = fp32_to_fp16(d);
        y[b].s = fp32_to_fp16(sum_mode == Q81Sum::SumX ? butterfly_sum32(x) : mul_rn((float)sum_q, d));
    }
}

// The 4-bit code of element `col` of a Q4_0 block: element j is the low nibble of qs[j], element
// j + 16 its high nibble.
inline int q4_0_code(const block_q4_0& b, int col) { return col < 16 ? b.qs[col] & 0x0F : b.qs[col - 16] >> 4; }

inline void dequantize_row_q4_0(const block_q4_0* x, float* y, int64_t k) {
    for (int64_t b = 0; b < k / QK4_0; ++b, y += QK4_0) {
        const float d = fp16_to_fp32(x[b].d);
        for (int j = 0; j < QK4_0 / 2; ++j) {
            y[j] = (float)((x[b].qs[j] & 0x0F) - 8) * d;
            y[j + QK4_0 / 2] = (float)((x[b].qs[j] >> 4) - 8) * d;
        }
    }
}

// Q8_1 has the same d and qs as Q8_0 and dequantizes the same way; s is metadata.
template <class BlockQ8>
inline void dequantize_row_q8(const BlockQ8* x, float* y, int64_t k) {
    for (int64_t b = 0; b < k / QK8_0; ++b, y += QK8_0) {
        const float d = fp16_to_fp32(x[b].d);
        for (int j = 0; j < QK8_0; ++j) y[j] = (float)x[b].qs[j] * d;
    }
}
