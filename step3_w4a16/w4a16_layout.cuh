// w4a16_layout.cuh - what step 3's kernels read and write, and the nibble-to-fp16 trick.
#pragma once

#include "../common/mma.cuh"
#include "../common/q4_0_layout.cuh"

#include <cuda_fp16.h>

#include <cstdint>

struct W4A16Args {
    const float* a_f32;          // [M][K] FP32 activations (kernels 01, 02)
    const __half* a_f16;         // [M][K] the same rounded to fp16 (every other kernel)
    const block_q4_0* q4_blocks; // [N][K/32] ggml Q4_0 blocks
    const uint8_t* q4_qs;        // repacked Q4_0: [N][K/32][16] nibbles, 16-byte aligned
    const ggml_half* q4_d;       //                [N][K/32] scales
    const uint32_t* g128_q;      // group-128: [N][K/8] words of 8 nibbles
    const ggml_half* g128_s;     //            [N][K/128] scales
    const uint8_t* g128_z;       //            [N][K/128] zero points
    const uint32_t* mma_words;   // group-128 repacked for mma.sync (w4a16_formats.h)
    const uint32_t* mma_scales;
    const uint32_t* block_words;    // the same, in 8-tile row blocks (w4a16_formats.h, the Hopper kernel 07)
    const uint32_t* block_scales;
    const uint32_t* q4_mma_words;   // Q4_0 repacked for mma.sync (w4a16_formats.h, the decoding kernel 06)
    const uint32_t* q4_mma_scales;
    const uint32_t* q4_block_words;  // the same, in 8-tile row blocks (the Hopper kernel 07's Q4_0)
    const uint32_t* q4_block_scales;
    const int8_t* w8_q;          // W8: [N][K] int8
    const ggml_half* w8_s;       //     [N] scales
    float* c;                    // [M][N]
    int M, N, K;
};

// What the baselines read besides: every row's launcher is handed a W4A16Inputs. A kernel's
// launcher uses its W4A16Args part, which alone becomes the kernel's argument (a larger argument
// can change the kernels' code: step 4's w4a8_layout.cuh); the cuBLAS rows read the rest.
struct W4A16Inputs : W4A16Args {
    const __half* w_f16;         // the unquantized weights: [N][K] fp16 (cuBLAS HGEMM) ...
    const float* w_f32;          // ... and FP32 (cuBLAS SGEMM)
};

// The 0x6400 trick. fp16 1024.0 is 0x6400: exponent 10, mantissa 0, and between 1024 and 2048
// the mantissa's last bit is worth exactly 1. OR-ing a 4-bit code q into the low mantissa bits
// gives the fp16 number 1024 + q with no conversion instruction at all; subtracting 1024 + z
// (an exact fp16 operation: the result is a small integer) leaves q - z. With the mask
// 0x000F000F one LOP3 does it for two codes at once, one in each half of a half2:
//     bits 0..3 of the word  -> low half   1024 + q_lo  -> q_lo - z
//     bits 16..19            -> high half  1024 + q_hi  -> q_hi - z
// `bias` is half2(1024 + z_lo, 1024 + z_hi).
__device__ __forceinline__ __half2 nibbles_to_half2(uint32_t word, __half2 bias) {
    uint32_t h;
    asm("lop3.b32 %0, %1, %2, %3, 0xEA;" : "=r"(h) : "r"(word), "n"(0x000F000F), "n"(0x64006400));  // (a & b) | c
    return __hsub2(*reinterpret_cast<__half2*>(&h), bias);
}

// The same for the codes at bits 4..7 and 20..23, without shifting them down first: the mask
// 0x00F000F0 leaves 16q in the mantissa, the fp16 number 1024 + 16q, and one HFMA2 gives
// (1024 + 16q)/16 - (64 + z) = q - z, exactly (1/16 is a power of two, every step a small integer).
// `bias16` is high_nibble_bias(bias) = half2(-(64 + z_lo), -(64 + z_hi)). A repacked word's four
// registers (shifts 0, 4, 8, 12) then cost one shift (by 8) instead of three.
__device__ __forceinline__ __half2 high_nibbles_to_half2(uint32_t word, __half2 bias16) {
    uint32_t h;
    asm("lop3.b32 %0, %1, %2, %3, 0xEA;" : "=r"(h) : "r"(word), "n"(0x00F000F0), "n"(0x64006400));  // (a & b) | c
    return __hfma2(*reinterpret_cast<__half2*>(&h), __float2half2_rn(0.0625f), bias16);
}
__device__ __forceinline__ __half2 high_nibble_bias(__half2 bias) { return __hsub2(__float2half2_rn(960.0f), bias); }

// One 16 x 16 K-step of a repacked group-128 tile as mma's A fragment, fp16 (q - z)·s: `word`
// holds the lane's 8 codes of the K-step. Registers 0 and 2 are row g (scale s_lo, bias z_lo),
// 1 and 3 row g + 8 (s_hi, z16_hi = high_nibble_bias of its bias); 1 and 3 are the high nibbles
// of word and word >> 8, taken in place: one shift per word. Rungs 06 and 07 dequantize so.
__device__ __forceinline__ void g128_a_fragment(uint32_t (&a)[4], uint32_t word, __half2 s_lo, __half2 s_hi, __half2 z_lo,
                                                __half2 z16_hi) {
    const uint32_t word8 = word >> 8;
    a[0] = half2_bits(__hmul2(nibbles_to_half2(word, z_lo), s_lo));
    a[1] = half2_bits(__hmul2(high_nibbles_to_half2(word, z16_hi), s_hi));
    a[2] = half2_bits(__hmul2(nibbles_to_half2(word8, z_lo), s_lo));
    a[3] = half2_bits(__hmul2(high_nibbles_to_half2(word8, z16_hi), s_hi));
}
