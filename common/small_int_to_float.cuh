// small_int_to_float.cuh - an integer to FP32 on the FP32 pipe instead of the conversion unit.
//
// A float whose exponent is that of 1.5·2^23 has a unit in the last place of exactly 1, so an
// integer x with |x| < 2^22 added to the bit pattern of 1.5·2^23 gives the float 1.5·2^23 + x
// exactly; subtracting 1.5·2^23 leaves x. Two full-rate instructions (an integer add, a float
// add) instead of one conversion, which the SM issues at a fraction of the FP32 rate. Step 4's
// Q4_K GEMV converts three integers per 32 values (a sub-block's scale, its minimum, its sum);
// with this and a branch-free unpacking it went from 11.5 to 11.3 µs (LAB_NOTES.md).
#pragma once

#include <cstdint>

constexpr uint32_t kSmallIntMagicBits = 0x4B400000u;  // 1.5·2^23 ...
constexpr float kSmallIntMagic = 12582912.0f;        // ... as a float

// x as a float, exactly, for |x| < 2^22 (the Q4 × Q8 block sums: |Σ n·q| <= 32·15·128).
__device__ __forceinline__ float small_int_to_float(int x) { return __int_as_float((int)kSmallIntMagicBits + x) - kSmallIntMagic; }

// scale · (byte i of w), exactly, in one PRMT and one FFMA: the PRMT writes the byte into the low
// mantissa of 1.5·2^23 (the float 1.5·2^23 + byte), and the FMA's one rounding of
// scale·(1.5·2^23 + byte) − scale·1.5·2^23 leaves scale·byte, exact wherever that product is
// (an fp16 scale times a 6-bit byte: 17 significant bits). minus_scale_magic = −scale·1.5·2^23,
// exact too, made once per scale. I: the byte, 0..3.
template <int I>
__device__ __forceinline__ float byte_times(uint32_t w, float scale, float minus_scale_magic) {
    static_assert(I >= 0 && I < 4, "a word has bytes 0..3");
    constexpr uint32_t kSelector = 0x7650u | I;  // bytes: w's I-th, then the magic's 0x00, 0x40, 0x4B
    return fmaf(scale, __uint_as_float(__byte_perm(w, kSmallIntMagicBits, kSelector)), minus_scale_magic);
}
__device__ __forceinline__ float minus_magic_times(float scale) { return -kSmallIntMagic * scale; }
