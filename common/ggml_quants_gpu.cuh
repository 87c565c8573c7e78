// ggml_quants_gpu.cuh - GPU quantizers for Q4_0, Q8_0 and Q8_1, byte-identical to the CPU
// reference in ggml_quants.h (step 2 checks every byte; step 4 uses the Q8_1 one for activations).
//
// Layout of the work: one 32-value block per group of 8 lanes, 4 consecutive values per lane,
// loaded as one 16-byte float4. A warp therefore reads 512 contiguous bytes (4 blocks) per load:
// fully coalesced. Each group handles kBlocksPerGroup blocks (the split quantizer one or two, see
// its launcher), a grid-width apart, and issues all their loads before touching any, so several
// loads per thread are in flight instead of one memory latency per block. The per-block
// reductions (max |x|, sum of q, sum of x) are xor-shuffles over the 8 lanes of a group (offsets
// 4, 2, 1 stay inside the group), and each value is rounded by the same __host__ __device__
// helper the CPU reference uses.
#pragma once

#include "ggml_quants.h"
#include "launch.h"
#include "pdl.cuh"

namespace quant_gpu {
constexpr int kLanesPerBlock = 8;                                  // 8 lanes x 4 values = one 32-block
constexpr int kValuesPerLane = QK8_0 / kLanesPerBlock;             // 4: one float4
constexpr int kThreads = 256;
constexpr int kGroupsPerCta = kThreads / kLanesPerBlock;           // 32 lane groups per thread block
constexpr int kBlocksPerGroup = 4;                                 // ggml blocks per group, loads in flight
static_assert(kValuesPerLane == 4, "each lane loads exactly one float4");
static_assert(QK4_0 == QK8_0 && QK8_0 == QK8_1, "all three formats use 32-value blocks");
}  // namespace quant_gpu

// Reductions over the LANES lanes of a block's group (8 here; the wide split quantizer's 4).
template <int LANES = quant_gpu::kLanesPerBlock>
__device__ __forceinline__ float group_max(float v) {
#pragma unroll
    for (int o = LANES / 2; o > 0; o /= 2) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}
template <int LANES = quant_gpu::kLanesPerBlock>
__device__ __forceinline__ int group_sum(int v) {
#pragma unroll
    for (int o = LANES / 2; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

// Q8's scale for the block whose 4 values this lane holds: amax over the group / 127.
__device__ __forceinline__ float group_q8_scale(float4 v) {
    return q8_scale(group_max(fmaxf(fmaxf(fabsf(v.x), fabsf(v.y)), fmaxf(fabsf(v.z), fabsf(v.w)))));
}

// Stores 4 bytes at an address that is only 2-byte aligned (inside 18- and 34-byte blocks).
__device__ __forceinline__ void store_4_bytes_2_aligned(void* dst, uint32_t bytes) {
    uint16_t* half_words = static_cast<uint16_t*>(dst);
    half_words[0] = (uint16_t)(bytes & 0xFFFFu);
    half_words[1] = (uint16_t)(bytes >> 16);
}

// Calls body(block, part, in, values) for each of this lane group's kPer blocks (default
// kBlocksPerGroup), after loading all of them. part is the lane's place in its group (values
// 4*part..4*part+3); in is false past the last block: such lanes still take part in the
// shuffles, with zeros, and must store nothing.
template <int kPer = quant_gpu::kBlocksPerGroup, class Body>
__device__ __forceinline__ void for_each_block(const float* x, int64_t nblocks, Body body) {
    const int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    const int64_t group = t / quant_gpu::kLanesPerBlock, groups = (int64_t)gridDim.x * quant_gpu::kGroupsPerCta;
    const int part = (int)(t % quant_gpu::kLanesPerBlock);
    float4 v[kPer];
#pragma unroll
    for (int i = 0; i < kPer; ++i) {
        const int64_t b = group + i * groups;
        v[i] = b < nblocks ? __ldcs(reinterpret_cast<const float4*>(x) + b * quant_gpu::kLanesPerBlock + part)
                           : make_float4(0.f, 0.f, 0.f, 0.f);
    }
#pragma unroll
    for (int i = 0; i < kPer; ++i) body(group + i * groups, part, group + i * groups < nblocks, v[i]);
}

// Q4_0. The scale comes from the *first* value of largest magnitude, so the reduction carries
// (|x|, position, x) and breaks ties toward the smaller position, exactly as ggml's sequential
// "strictly greater" scan. The 32 nibbles are packed as element j | element j+16 << 4: lane p
// (p < 4) holds elements 4p..4p+3 and fetches elements 16+4p.. from lane p+4.
__global__ void __launch_bounds__(quant_gpu::kThreads) quantize_q4_0_kernel(const float* __restrict__ x,
                                                                            block_q4_0* __restrict__ y, int64_t nblocks) {
    for_each_block(x, nblocks, [&](int64_t b, int part, bool in, float4 v) {
        const float vals[4] = {v.x, v.y, v.z, v.w};
        float best_abs = 0.0f, best = 0.0f;
        int best_pos = 0;
#pragma unroll
        for (int j = 0; j < 4; ++j)
            if (fabsf(vals[j]) > best_abs) {
                best_abs = fabsf(vals[j]);
                best = vals[j];
                best_pos = part * 4 + j;
            }
#pragma unroll
        for (int o = quant_gpu::kLanesPerBlock / 2; o > 0; o /= 2) {
            const float other_abs = __shfl_xor_sync(0xffffffffu, best_abs, o);
            const float other = __shfl_xor_sync(0xffffffffu, best, o);
            const int other_pos = __shfl_xor_sync(0xffffffffu, best_pos, o);
            if (other_abs > best_abs || (other_abs == best_abs && other_pos < best_pos)) {
                best_abs = other_abs;
                best = other;
                best_pos = other_pos;
            }
        }
        const float max = best_abs > 0.0f ? best : 0.0f;  // an all-zero block keeps ggml's +0 start: d = -0
        const float d = q4_0_scale(max);
        const float id = inverse_or_zero(d);
        uint32_t nibbles = 0;  // this lane's 4 nibbles, one per byte
#pragma unroll
        for (int j = 0; j < 4; ++j) nibbles |= (uint32_t)q4_0_nibble(vals[j], id) << (8 * j);
        const uint32_t high = __shfl_down_sync(0xffffffffu, nibbles, 4);  // elements +16, from lane part+4
        if (!in || part >= 4) return;
        store_4_bytes_2_aligned(y[b].qs + 4 * part, nibbles | (high << 4));  // qs[4p..4p+3]
        if (part == 0) y[b].d = fp32_to_fp16(d);
    });
}

// One lane's share of a Q8 block: the block's scale and this lane's 4 codes, packed into a word.
// DIVIDE selects llama.cpp-CUDA's q = round(x / d) over the reference's q = round(x * (1/d)).
struct LaneQ8 {
    float d;
    uint32_t packed_q;  // 4 int8 codes, element 4*part in the low byte
    int sum_q;          // the 4 codes added
};

template <bool DIVIDE>
__device__ __forceinline__ LaneQ8 quantize_lane_q8(float4 v) {
    const float vals[4] = {v.x, v.y, v.z, v.w};
    LaneQ8 r{group_q8_scale(v), 0u, 0};
    const float id = inverse_or_zero(r.d);
#pragma unroll
    for (int j = 0; j < 4; ++j) {
        const int8_t q = DIVIDE ? q8_value_div(vals[j], r.d) : q8_value(vals[j], id);
        r.packed_q |= (uint32_t)(uint8_t)q << (8 * j);
        r.sum_q += q;
    }
    return r;
}

// Q8_0: amax over the group, d = amax / 127, q = round(x * id).
__global__ void __launch_bounds__(quant_gpu::kThreads) quantize_q8_0_kernel(const float* __restrict__ x,
                                                                            block_q8_0* __restrict__ y, int64_t nblocks) {
    for_each_block(x, nblocks, [&](int64_t b, int part, bool in, float4 v) {
        const LaneQ8 lane = quantize_lane_q8<false>(v);
        if (!in) return;
        store_4_bytes_2_aligned(y[b].qs + 4 * part, lane.packed_q);
        if (part == 0) y[b].d = fp32_to_fp16(lane.d);
    });
}

// The sum of the block's 32 inputs in the order of llama.cpp's 32-lane butterfly (offsets
// 16, 8, 4, 2, 1 over the value index i = 4 * part + j): offsets 16, 8, 4 pair lanes part^4,
// part^2, part^1 (same j); offsets 2 and 1 pair values j^2 and j^1 inside a lane.
__device__ __forceinline__ float butterfly_sum_group(float4 v) {
    float s[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
    for (int o = quant_gpu::kLanesPerBlock / 2; o > 0; o /= 2)
#pragma unroll
        for (int j = 0; j < 4; ++j) s[j] += __shfl_xor_sync(0xffffffffu, s[j], o);
    return (s[0] + s[2]) + (s[1] + s[3]);
}

// Q8_1: Q8_0's d and q (or llama.cpp-CUDA's division), plus s in the chosen convention. Returns
// this lane's codes and the block's (d, s) as the 4 bytes that start a block_q8_1.
template <Q81Sum SUM>
__device__ __forceinline__ LaneQ8 quantize_lane_q8_1(float4 v, uint32_t* ds_bits) {
    const LaneQ8 lane = quantize_lane_q8<SUM == Q81Sum::SumX>(v);
    const float s = SUM == Q81Sum::SumX ? butterfly_sum_group(v) : mul_rn((float)group_sum(lane.sum_q), lane.d);
    *ds_bits = (uint32_t)fp32_to_fp16(lane.d) | (uint32_t)fp32_to_fp16(s) << 16;
    return lane;
}

template <Q81Sum SUM>
__global__ void __launch_bounds__(quant_gpu::kThreads) quantize_q8_1_kernel(const float* __restrict__ x,
                                                                            block_q8_1* __restrict__ y, int64_t nblocks) {
    for_each_block(x, nblocks, [&](int64_t b, int part, bool in, float4 v) {
        uint32_t ds;
        const LaneQ8 lane = quantize_lane_q8_1<SUM>(v, &ds);
        if (!in) return;
        *reinterpret_cast<uint32_t*>(y[b].qs + 4 * part) = lane.packed_q;  // 36-byte blocks: 4-byte aligned
        if (part == 0) *reinterpret_cast<uint32_t*>(&y[b].d) = ds;
    });
}

// Q8_1 in a split layout: the same bytes as block_q8_1, but all codes in one array (qs[n], a
// block's 32 codes 32-byte aligned) and all (d, s) pairs in another (ds[n/32], the block's first
// 4 bytes). A GEMV lane then reads a block's codes with two 16-byte loads instead of nine 4-byte
// ones (step 4, kernel 06). Given d_f32, it also writes each block's d as FP32 (the fp16 value
// widened, so exactly the same number): a tensor-core kernel then loads its scales with no
// conversion (step 4, kernel 09); given s_f32, it writes each s widened likewise (step 4,
// kernel 15, which pays Q4_K's minimum with s); given no ds, it writes no fp16 pairs. It calls
// allow_dependent_launch() first, so a kernel launched after it with PDL (pdl.cuh) may start at
// once and overlap its own first loads with this one.
// s = d·Σq (the reference's convention, the one step 4's kernels are checked against); one block
// per lane group (the launcher below says why).
__global__ void __launch_bounds__(quant_gpu::kThreads)
    quantize_q8_1_split_kernel(const float* __restrict__ x, int8_t* __restrict__ qs, uint32_t* __restrict__ ds,
                               float* __restrict__ d_f32, float* __restrict__ s_f32, int64_t nblocks) {
    allow_dependent_launch();
    for_each_block<1>(x, nblocks, [&](int64_t b, int part, bool in, float4 v) {
        uint32_t ds_bits;
        const LaneQ8 lane = quantize_lane_q8_1<Q81Sum::DTimesSumQ>(v, &ds_bits);
        if (!in) return;
        reinterpret_cast<uint32_t*>(qs)[b * 8 + part] = lane.packed_q;
        if (part != 0) return;
        if (ds) ds[b] = ds_bits;
        if (d_f32) d_f32[b] = fp16_to_fp32((ggml_half)(ds_bits & 0xFFFFu));
        if (s_f32) s_f32[b] = fp16_to_fp32((ggml_half)(ds_bits >> 16));
    });
}

// The split layout for large tensors (s = d·Σq): 4 lanes per block, 8 values each (two float4
// loads), so a warp instruction serves 8 blocks instead of 4 and each reduction is one shuffle
// level shorter: fewer instructions per block where there are many blocks (step 4's pre-pass at
// M = 512). The same per-value helpers, so the same bytes. WITH_DS = false leaves out s and the
// (d, s) pairs (codes and FP32 d only, for the tensor-core kernel 09).
constexpr int kWideLanesPerBlock = 4;
template <bool WITH_DS>
__global__ void __launch_bounds__(quant_gpu::kThreads)
    quantize_q8_1_split_wide_kernel(const float* __restrict__ x, int8_t* __restrict__ qs, uint32_t* __restrict__ ds,
                                    float* __restrict__ d_f32, float* __restrict__ s_f32, int64_t nblocks) {
    allow_dependent_launch();
    const int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x, b = t / kWideLanesPerBlock;
    const int part = (int)(t % kWideLanesPerBlock);
    const bool in = b < nblocks;  // lanes past the end take part in the shuffles and store nothing
    float4 lo = make_float4(0.f, 0.f, 0.f, 0.f), hi = lo;
    if (in) {
        const float4* src = reinterpret_cast<const float4*>(x) + b * 8 + part * 2;
        lo = __ldcs(src), hi = __ldcs(src + 1);
    }
    const float v[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
    const float amax = group_max<kWideLanesPerBlock>(fmaxf(fmaxf(fmaxf(fabsf(v[0]), fabsf(v[1])), fmaxf(fabsf(v[2]), fabsf(v[3]))),
                                                            fmaxf(fmaxf(fabsf(v[4]), fabsf(v[5])), fmaxf(fabsf(v[6]), fabsf(v[7])))));
    const float d = q8_scale(amax), id = inverse_or_zero(d);
    uint32_t words[2] = {0u, 0u};
    int sum_q = 0;
#pragma unroll
    for (int j = 0; j < 8; ++j) {
        const int8_t q = q8_value(v[j], id);
        words[j / 4] |= (uint32_t)(uint8_t)q << (8 * (j % 4));
        sum_q += q;
    }
    if constexpr (WITH_DS) sum_q = group_sum<kWideLanesPerBlock>(sum_q);
    if (!in) return;
    reinterpret_cast<uint2*>(qs)[b * kWideLanesPerBlock + part] = make_uint2(words[0], words[1]);
    if (part != 0) return;
    const ggml_half d_half = fp32_to_fp16(d);
    if constexpr (WITH_DS) {
        const ggml_half s_half = fp32_to_fp16(mul_rn((float)sum_q, d));
        if (ds) ds[b] = (uint32_t)d_half | (uint32_t)s_half << 16;
        if (s_f32) s_f32[b] = fp16_to_fp32(s_half);
    }
    if (d_f32) d_f32[b] = fp16_to_fp32(d_half);
}

// Launchers: n values (a multiple of 32) from x into the block array y.
inline unsigned quantize_grid(int64_t n, int blocks_per_group = quant_gpu::kBlocksPerGroup) {
    return (unsigned)ceil_div(n / QK8_0, quant_gpu::kGroupsPerCta * blocks_per_group);
}
inline void quantize_q4_0_gpu(const float* x, block_q4_0* y, int64_t n, cudaStream_t s) {
    quantize_q4_0_kernel<<<quantize_grid(n), quant_gpu::kThreads, 0, s>>>(x, y, n / QK4_0);
}
inline void quantize_q8_0_gpu(const float* x, block_q8_0* y, int64_t n, cudaStream_t s) {
    quantize_q8_0_kernel<<<quantize_grid(n), quant_gpu::kThreads, 0, s>>>(x, y, n / QK8_0);
}
inline void quantize_q8_1_gpu(const float* x, block_q8_1* y, int64_t n, Q81Sum sum_mode, cudaStream_t s) {
    if (sum_mode == Q81Sum::SumX)
        quantize_q8_1_kernel<Q81Sum::SumX><<<quantize_grid(n), quant_gpu::kThreads, 0, s>>>(x, y, n / QK8_1);
    else
        quantize_q8_1_kernel<Q81Sum::DTimesSumQ><<<quantize_grid(n), quant_gpu::kThreads, 0, s>>>(x, y, n / QK8_1);
}
// The split quantizer is the pre-pass of step 4's kernels, so its latency is on their critical
// path. Up to 8192 blocks (decoding), a group of 8 lanes takes one block: each lane's chain of
// dependent work is one block long. Beyond, the wide kernel. Timed on the H200 (2026-11-30),
// quantizer alone: M = 1 and 4, K = 14336: 1.5 us with one block per 8-lane group, 2.8 with four;
// M = 512, K = 4096: 4.3 us wide, 4.7 with 8 lanes and one or two blocks per group, 5.4 with four;
// M = 512, K = 14336, 8 lanes: 10.6 us with two blocks per group, 12.0 with one, 11.2 with four
// (wide: mma_int8's whole operation ~2 us faster than with two).
constexpr int64_t kSplitWideFrom = 8192;
// ds may be null when d_f32 or s_f32 is not: codes and FP32 d (rung 09), or codes, FP32 d and s (rung 15).
inline void quantize_q8_1_split_gpu(const float* x, int8_t* qs, uint32_t* ds, int64_t n, cudaStream_t s, float* d_f32 = nullptr,
                                    float* s_f32 = nullptr) {
    const int64_t nblocks = n / QK8_1;
    if (nblocks > kSplitWideFrom) {
        const unsigned grid = (unsigned)ceil_div(nblocks * kWideLanesPerBlock, quant_gpu::kThreads);
        if (ds || s_f32)
            quantize_q8_1_split_wide_kernel<true><<<grid, quant_gpu::kThreads, 0, s>>>(x, qs, ds, d_f32, s_f32, nblocks);
        else
            quantize_q8_1_split_wide_kernel<false><<<grid, quant_gpu::kThreads, 0, s>>>(x, qs, ds, d_f32, s_f32, nblocks);
    } else {
        quantize_q8_1_split_kernel<<<quantize_grid(n, 1), quant_gpu::kThreads, 0, s>>>(x, qs, ds, d_f32, s_f32, nblocks);
    }
}
