// w4a8_layout.cuh - what step 4's kernels read and write.
//
// Weights come in ggml's Q4_0 blocks, repacked into two 16-byte aligned streams
// (common/q4_0_layout.cuh) or into mma.sync fragment order (w4a8_mma_layout.h), or as Q4_K
// repacked (common/q4_k_layout.h); w4a8_problem.cuh makes the forms the selected kernels read.
// Activations are quantized on the GPU into ggml's Q8_1 blocks (36 bytes, 4-byte aligned), or,
// for the GEMV, into the same bytes split in two arrays (codes, then (d, s) pairs) so that a lane
// can read a block's codes with 16-byte loads (ggml_quants_gpu.cuh, quantize_q8_1_split_gpu).
#pragma once

#include "../common/ggml_quants.h"
#include "../common/q4_0_layout.cuh"

#include <cuda_fp16.h>

#include <cstdint>
#include <cstring>
#include <vector>

struct W4A8Args {
    const block_q4_0* w_blocks;  // [N][K/32] ggml Q4_0 blocks
    const uint8_t* w_qs;         // repacked: [N][K/32][16] nibbles, 16-byte aligned
    const ggml_half* w_d;        // repacked: [N][K/32] scales
    const block_q8_1* a;         // [M][K/32] activations, quantized on the GPU
    const int8_t* a_qs;          // the same activations, split layout: codes [M][K] ...
    const uint32_t* a_ds;        // ... and (d, s) half pairs [M][K/32] (GEMV and tensor-core kernels)
    const float* a_d;            // ... and d once more as FP32 [M][K/32] (the tensor-core kernel 09)
    const uint32_t* mma_words;   // weights repacked for int8 mma.sync (w4a8_mma_layout.h) ...
    const uint32_t* mma_scales;  // ... and their scales
    float* c;                    // [M][N]
    int M, N, K;
    const uint8_t* q4k_headers;  // Q4_K weights repacked (common/q4_k_layout.h): [N][K/256][16] headers ...
    const uint8_t* q4k_codes;    // ... and [N][K/32][16] codes, Q4_0's nibble order
};

// What the baselines read besides: every row's launcher is handed a W4A8Inputs (w4a8_problem.cuh
// makes them). A kernel's launcher uses its W4A8Args part, which alone becomes the kernel's
// argument: a larger argument made ptxas keep it in memory and reload it in the main loop of
// rung 09 (3% slower, timed on the H200). The cuBLAS rows read the rest.
struct W4A8Inputs : W4A8Args {
    const float* a_f32;          // [M][K] FP32 activations (the pre-pass's input) ...
    const float* w_f32;          // ... and [N][K] FP32 weights (cuBLAS SGEMM)
    const int8_t* a_i8;          // the codes as int8 matrices (cuBLAS int8): [M][K] activations ...
    const int8_t* w_i8;          // ... [N][K] weights n - 8
    int32_t* c_i32;              // ... and their [M][N] integer product
    // Q6_K weights repacked (common/q6_k_layout.h), which rung 13 reads through an argument of its
    // own: [N][K/32][16] low nibbles, [N][K/32][8] top bits, [N][K/256][16] scales, [N][K/256] d.
    const uint8_t* q6k_low;
    const uint8_t* q6k_high;
    const int8_t* q6k_scales;
    const ggml_half* q6k_d;
    // Q4_K repacked for the tensor-core GEMV (q4_k_mma_layout.h), rung 14's own argument likewise:
    // codes in fragment order, sub-block scale words, (d, dmin) pairs per super-block, and (rung
    // 15 only) d·sc per sub-block as FP32 pairs.
    const uint32_t* q4k_mma_words;
    const uint32_t* q4k_mma_sub_scales;
    const uint2* q4k_mma_d_dmin;
    const float2* q4k_mma_d_sc;
    // The activations' s widened to FP32, [M][K/32] (rung 15, beside the codes a_qs and d as FP32, a_d).
    const float* a_s;
    // mma_words and mma_scales in row blocks of 8 tiles (w4a8_mma_layout.h), rung 16's own argument:
    // a stage of a row block is one bulk copy of words and one of scales.
    const uint32_t* mma_block_words;
    const uint32_t* mma_block_scales;
    // Rung 16's schedule (common/split_tail.cuh): the GPU's SMs, and the workspace where the
    // pieces of a tail tile leave their partial sums.
    int sms;
    float* split_partials;
};

// The (d, s) pair of a Q8_1 block, one 4-byte load.
__device__ __forceinline__ float2 q8_1_scales(const block_q8_1& a) {
    return __half22float2(*reinterpret_cast<const __half2*>(&a.d));
}

// A 4-byte word at an address that is only 2-byte aligned (inside an 18-byte Q4_0 block).
__device__ __forceinline__ uint32_t load_u32_2_aligned(const uint8_t* p) {
    const uint16_t* h = reinterpret_cast<const uint16_t*>(p);
    return (uint32_t)h[0] | (uint32_t)h[1] << 16;
}
