// Exercise 2 (step 2): a Q4_0 quantizer with one warp per block, ties and all. Practises part 1's
// Q4_0 rules, the one that is easy to get wrong on a GPU most of all: the scale comes from the
// value of largest magnitude *with its sign*, and when several values share that magnitude, the
// first one (smallest index) wins, as in ggml's loop `if (fabsf(x[j]) > amax)`.
//
// Brief: lane j holds value j of block b. Reduce (|x|, index) pairs across the warp so that the
// larger |x| wins and, on equal |x|, the smaller index. A NaN is never "greater" in ggml's loop,
// and the loop starts at 0, so a lane whose |x| is not > 0 offers 0 (and, if 0 wins, the signed
// maximum is +0, not the winner's -0). Fetch the winner's signed value with __shfl_sync. Then
// d = q4_0_scale(max), id = inverse_or_zero(d); lanes 0..15 write byte j = nibble(x[j]) |
// nibble(x[j + 16]) << 4 with q4_0_nibble (lane j gets x[j + 16] from lane j + 16 by a shuffle);
// lane 0 writes d as fp16.
// Run it:   make exercise STEP=2 EX=2     (golden cases q4_rounding_ties and ties_pm_max test the rule)
// Set kEx2Written to true once your kernel is written: a FAIL is then a bug, not the stub.
#pragma once

#include "../../common/ggml_quants.h"
#include "../../common/launch.h"

constexpr bool kEx2Written = false;
constexpr int kEx2Threads = 256;

__global__ void __launch_bounds__(kEx2Threads) quantize_q4_0_ex2(const float* x, block_q4_0* y, int64_t nblocks) {
    // TODO 1: block b, lane; leave if b >= nblocks.
    // TODO 2: the (|x|, index) reduction with the tie rule; the winner's signed value.
    // TODO 3: d, id; lanes 0..15 pack and store their byte; lane 0 stores d.
}

inline void launch_quantize_q4_0_ex2(const float* x, void* y, int64_t n, cudaStream_t s) {
    const int64_t nblocks = n / 32;
    quantize_q4_0_ex2<<<(unsigned)ceil_div(nblocks, kEx2Threads / 32), kEx2Threads, 0, s>>>(x, static_cast<block_q4_0*>(y), nblocks);
}
