// Exercise 2 (step 4): a warp per output, lanes over K-blocks, for any M. Practises step 1's 02
// (coalesced: neighbouring lanes read neighbouring memory) on quantized blocks, against 03's
// thread per output.
//
// Brief: warp w of CTA row m computes C[m][n], n = blockIdx.x · 8 + w (8 warps per CTA). Its
// lanes take the blocks lane, lane + 32, ... of weight row n (p.w_blocks) and of activation row m
// (p.a), add d_w·(d_a·sumi - 8·s) per block (as 01 or 03 do; scalar or dp4a_s8 arithmetic, your
// choice), and reduce across the warp; lane 0 stores. Guard n < N.
// Run it:   make exercise STEP=4 EX=2     (or build/step4_w4a8 --kernel ex2 --m 37 --n 4100 --k 4128)
// Then compare with dp4a at M = 512 and at M = 1: where does a warp per output pay, and why?
// Set kEx2Written to true once your kernel is written: a FAIL is then a bug, not the stub.
#pragma once

#include "../../common/launch.h"
#include "../../common/q4_0_q8_1.h"
#include "../w4a8_layout.cuh"

constexpr bool kEx2Written = false;
constexpr int kEx2Warps = 8;

__global__ void __launch_bounds__(kEx2Warps * 32) w4a8_ex2(W4A8Args p) {
    // TODO 1: n from blockIdx.x and the warp index, m = blockIdx.y; leave if n >= N.
    // TODO 2: each lane adds the block terms of its blocks.
    // TODO 3: reduce across the warp; lane 0 writes C[m][n].
}

inline void launch_w4a8_ex2(const W4A8Args& p, cudaStream_t s) {
    w4a8_ex2<<<dim3((unsigned)ceil_div(p.N, kEx2Warps), (unsigned)p.M), kEx2Warps * 32, 0, s>>>(p);
}
