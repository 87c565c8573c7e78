// Exercise 1 (step 4): the compensation formula inside a DP4A GEMV. Practises the formula of
// part 1, d_w·(d_a·sumi - 8·s), and 03's DP4A on unsigned nibbles.
//
// Brief: for M <= 8 tokens. Warp w owns weight row n = w; lane l takes the K-blocks l, l + 32, ...
// of that row in ggml's own layout (p.w_blocks: 18-byte Q4_0 blocks, only 2-byte aligned: read
// their 4-byte words with load_u32_2_aligned) and the same blocks of each token's Q8_1
// activations (p.a: 36-byte blocks, 4-byte aligned). Per block: sumi = four dp4a_s8 on the low
// nibbles (elements 4i..4i+3 against codes 4i..4i+3) plus four on the high nibbles (against codes
// 16 + 4i..), no -8 anywhere; then add d_w·(d_a·sumi - 8·s) (q8_1_scales gives (d_a, s)). A warp
// reduction per token, lane 0 stores C[t][n].
// Run it:   make exercise STEP=4 EX=1     (or build/step4_w4a8 --kernel ex1 --m 1 --n 4096 --k 14336)
// Then compare with gemv_dp4a: its repacked 16-byte loads against your 2-byte-aligned ones.
// Set kEx1Written to true once your kernel is written: a FAIL is then a bug, not the stub.
#pragma once

#include "../../common/gemm_case.h"
#include "../../common/gpu.cuh"
#include "../../common/launch.h"
#include "../../common/q4_0_q8_1.h"
#include "../w4a8_layout.cuh"

#include <string>

constexpr bool kEx1Written = false;
constexpr int kEx1Threads = 256;
constexpr int kEx1MaxTokens = 8;

__global__ void __launch_bounds__(kEx1Threads) w4a8_ex1(W4A8Args p) {
    // TODO 1: the warp's row, the lane; leave if the row is past N.
    // TODO 2: for each token t < M: walk the row's blocks 32 apart; sumi from 8 dp4a_s8; the
    //         compensated block term, added in FP32.
    // TODO 3: reduce across the warp; lane 0 writes C[t][row].
}

inline std::string w4a8_ex1_why_not(const GemmCase& c, const Gpu&) {
    return c.M <= kEx1MaxTokens ? "" : "exercise 1 is a GEMV: needs M <= " + std::to_string(kEx1MaxTokens);
}

inline void launch_w4a8_ex1(const W4A8Args& p, cudaStream_t s) {
    w4a8_ex1<<<(unsigned)ceil_div(p.N, kEx1Threads / 32), kEx1Threads, 0, s>>>(p);
}
