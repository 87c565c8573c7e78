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

// x as a float, exactly, for |x| < 2^22 (the Q4 × Q8 block sums: |Σ n·q| <= 32·15·128).
__device__ __forceinline__ float small_int_to_float(int x) {
    constexpr int kMagicBits = 0x4B400000;       // 1.5·2^23
    constexpr float kMagic = 12582912.0f;
    return __int_as_float(kMagicBits + x) - kMagic;
}
