// Exercise 1 (step 2): a Q8_0 quantizer with one warp per block. Practises part 4's GPU
// quantizers and the rules of part 1 (scale amax/127, codes rounded half away from zero).
//
// Brief: lane j of warp b quantizes value j of block b (32 values, 32 lanes: no loop). The warp
// needs the block's largest |x|: find it with __shfl_xor_sync butterflies of fmaxf. Then every
// lane computes d = q8_scale(amax) and id = inverse_or_zero(d) (common/ggml_quants.h: the same
// functions as the CPU reference, so the bytes match ggml's), writes its code q8_value(x, id),
// and lane 0 writes d as fp16 (fp32_to_fp16). Warps past the last block do nothing.
// Run it:   make exercise STEP=2 EX=1     (or build/step2_quant --kernel ex1)
// Done when ggml's golden bytes and the CPU's bytes match (0 differ, PASS); then compare its GB/s
// with quantize_q8_0, whose lanes each take 4 values with one float4 load.
// Set kEx1Written to true once your kernel is written: a FAIL is then a bug, not the stub.
#pragma once

#include "../../common/ggml_quants.h"
#include "../../common/launch.h"

constexpr bool kEx1Written = false;
constexpr int kEx1Threads = 256;  // 8 warps: 8 blocks per CTA

__global__ void __launch_bounds__(kEx1Threads) quantize_q8_0_ex1(const float* x, block_q8_0* y, int64_t nblocks) {
    // TODO 1: block b = this warp's global index, lane = threadIdx.x % 32; leave if b >= nblocks.
    // TODO 2: amax over the 32 lanes with a butterfly of __shfl_xor_sync (offsets 16, 8, 4, 2, 1).
    // TODO 3: d, id, this lane's code into y[b].qs[lane]; lane 0 stores y[b].d.
}

inline void launch_quantize_q8_0_ex1(const float* x, void* y, int64_t n, cudaStream_t s) {
    const int64_t nblocks = n / 32;
    quantize_q8_0_ex1<<<(unsigned)ceil_div(nblocks, kEx1Threads / 32), kEx1Threads, 0, s>>>(x, static_cast<block_q8_0*>(y), nblocks);
}
