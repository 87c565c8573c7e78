// Exercise 2 (step 3): a group-128 GEMV with the 0x6400 trick, one 32-bit word per lane.
// Practises part 1's group-128 format and the trick (w4a16_layout.cuh, nibbles_to_half2).
//
// Brief: for M <= 8 tokens. Warp w owns weight row n = w; lane l walks the row's words
// l, l + 32, ... (p.g128_q, [N][K/8], 8 nibbles per word, element 8i + j in bits 4j of word i).
// For each word: the group is (8 · word) / 128; its scale s (p.g128_s) and zero z (p.g128_z).
// nibbles_to_half2(word >> 4j, half2(1024 + z)) gives q - z for elements 8i + j and 8i + j + 4;
// multiply by half2(s) with __hmul2 (that product, rounded to fp16, is the format's weight);
// convert to float2 and multiply with the activations (p.a_f16, fp16, [M][K]) in FP32. One sum
// per token, a warp reduction, lane 0 stores C[t][n].
// Run it:   make exercise STEP=3 EX=2     (or build/step3_w4a16 --kernel ex2 --m 1 --n 4096 --k 14336)
// Then compare with gemv_g128: what do its 16-byte loads and staged activations buy?
// Set kEx2Written to true once your kernel is written: a FAIL is then a bug, not the stub.
#pragma once

#include "../../common/gemm_case.h"
#include "../../common/gpu.cuh"
#include "../../common/launch.h"
#include "../w4a16_formats.h"
#include "../w4a16_layout.cuh"

#include <string>

constexpr bool kEx2Written = false;
constexpr int kEx2Threads = 256;
constexpr int kEx2MaxTokens = 8;

__global__ void __launch_bounds__(kEx2Threads) w4a16_ex2(W4A16Args p) {
    // TODO 1: the warp's row, the lane; leave if the row is past N.
    // TODO 2: for each token t < M: walk the words, dequantize 8 weights per word, sum w·a in FP32.
    // TODO 3: reduce across the warp; lane 0 writes C[t][row].
}

inline std::string w4a16_ex2_why_not(const GemmCase& c, const Gpu&) {
    return c.M <= kEx2MaxTokens ? "" : "exercise 2 is a GEMV: needs M <= " + std::to_string(kEx2MaxTokens);
}

inline void launch_w4a16_ex2(const W4A16Args& p, cudaStream_t s) {
    w4a16_ex2<<<(unsigned)ceil_div(p.N, kEx2Threads / 32), kEx2Threads, 0, s>>>(p);
}
