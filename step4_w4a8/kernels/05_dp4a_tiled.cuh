// 05 tiled DP4A: step 1's register-blocked tile, with packed int8 words in place of floats.
//
// Idea: a CTA of 256 threads computes a 128 x 128 tile of C, each thread an 8 x 8 patch (rows
// and columns in two groups of 4, as in step 1's 06). Per step, kStepBlocks K-blocks of the
// 128 activation rows and 128 weight rows go to shared memory, stored "transposed" (word k of
// all rows side by side) so that a thread reads 4 rows' words in one 16-byte load. Per word
// position a thread then holds 8 activation words and 8 nibble words and does 8 x 8 x 2 DP4A:
// an outer product of packed bytes. After each block, the 64 sums get their scales:
// acc += d_w * (d_a * sumi - 8 s), three floating-point instructions per output per block.
// Improves: each weight byte fetched from memory feeds 128 rows of activations and each
// activation byte 128 weight rows; DP4A does 4 multiply-adds per instruction.
// Limit: DP4A issues at the integer multiply-add rate, 64 per clock per SM from sm_70 on: 256
// multiply-adds per clock, twice FP32's FMAs but a sixteenth of the int8 tensor cores' 4096 on
// the H200. Every block also ends in 3 FP32 instructions per output. Tensor cores come next.
#pragma once

#include "../../common/gemm_case.h"
#include "../../common/gpu.cuh"
#include "../../common/launch.h"
#include "../../common/q4_0_q8_1.h"
#include "../../common/tile_store.cuh"
#include "../w4a8_layout.cuh"

namespace dp4a_tiled {
constexpr int BM = 128, BN = 128;   // output tile
constexpr int TM = 8, TN = 8;       // outputs per thread: two groups of 4 rows, two of 4 columns
constexpr int kThreads = (BM / TM) * (BN / TN);  // 256
constexpr int kStepBlocks = 4;      // K-blocks (32 values each) per shared-memory step
constexpr int kAWords = 8;          // a block's 32 int8 activations: 8 words
constexpr int kWWords = 4;          // a block's 32 nibbles: 4 words
constexpr int kQ8_1Words = sizeof(block_q8_1) / 4;  // 9: the (d, s) word, then 8 words of q
constexpr int LDA = BM + 8;         // shared-memory row length; +8 spreads the loader's stores over banks
constexpr int LDW = BN;
static_assert(BM == (BM / TM) * TM && BM / TM == 16 && BN / TN == 16, "16 x 16 threads of 8 x 8 outputs");
static_assert(TM == 8 && TN == 8, "a thread's patch is 2 x 2 groups of 4 x 4");
static_assert(LDA % 4 == 0 && LDW % 4 == 0, "16-byte reads of 4 rows need 16-byte aligned shared-memory rows");
static_assert((kQ8_1Words * kStepBlocks * BM) % kThreads == 0, "the activation loader splits evenly");
static_assert((kStepBlocks * BN) % kThreads == 0, "the weight loader splits evenly");
}  // namespace dp4a_tiled

struct Dp4aTileSmem {
    uint32_t a[dp4a_tiled::kStepBlocks * dp4a_tiled::kAWords][dp4a_tiled::LDA];  // a[block*8 + word][row]
    float2 a_scales[dp4a_tiled::kStepBlocks][dp4a_tiled::BM];                     // (d_a, -8 s) per row
    uint32_t w[dp4a_tiled::kStepBlocks * dp4a_tiled::kWWords][dp4a_tiled::LDW];  // w[block*4 + word][row]
    float w_scales[dp4a_tiled::kStepBlocks][dp4a_tiled::BN];                      // d_w per row
};

// Activation blocks [m0, m0+BM) x [b0, b0+kStepBlocks) into shared memory. Four consecutive
// threads read four consecutive words of one row (rows are contiguous runs of 36-byte blocks),
// so a warp reads 8 runs of 16 bytes. Outside the matrix: zeros, which add nothing.
__device__ __forceinline__ void load_activation_tile(const W4A8Args& p, int m0, int b0, int nblocks, Dp4aTileSmem& s) {
    using namespace dp4a_tiled;
    constexpr int kWordsPerRow = kQ8_1Words * kStepBlocks;  // 36
#pragma unroll
    for (int i = 0; i < kWordsPerRow * BM / kThreads; ++i) {
        const int idx = i * kThreads + threadIdx.x;
        const int row = idx / 4 % BM, word_in_row = idx % 4 + 4 * (idx / (4 * BM));
        const int b = word_in_row / kQ8_1Words, word = word_in_row % kQ8_1Words;
        const bool in = m0 + row < p.M && b0 + b < nblocks;
        const uint32_t v =
            in ? reinterpret_cast<const uint32_t*>(p.a + (size_t)(m0 + row) * nblocks + b0 + b)[word] : 0u;
        if (word == 0) {
            const float2 ds = __half22float2(*reinterpret_cast<const __half2*>(&v));
            s.a_scales[b][row] = make_float2(ds.x, -8.0f * ds.y);
        } else {
            s.a[b * kAWords + word - 1][row] = v;
        }
    }
}

// Weight blocks [n0, n0+BN) x [b0, b0+kStepBlocks) from the repacked streams: one 16-byte load
// of nibbles and one scale per (row, block); a warp covers 32 rows of one block.
__device__ __forceinline__ void load_weight_tile(const W4A8Args& p, int n0, int b0, int nblocks, Dp4aTileSmem& s) {
    using namespace dp4a_tiled;
#pragma unroll
    for (int i = 0; i < kStepBlocks * BN / kThreads; ++i) {
        const int idx = i * kThreads + threadIdx.x;
        const int row = idx % BN, b = idx / BN;
        const bool in = n0 + row < p.N && b0 + b < nblocks;
        const size_t block = (size_t)(n0 + row) * nblocks + b0 + b;
        const uint4 q = in ? reinterpret_cast<const uint4*>(p.w_qs)[block] : make_uint4(0, 0, 0, 0);
        s.w[b * kWWords + 0][row] = q.x;
        s.w[b * kWWords + 1][row] = q.y;
        s.w[b * kWWords + 2][row] = q.z;
        s.w[b * kWWords + 3][row] = q.w;
        s.w_scales[b][row] = in ? half_bits_to_float(p.w_d[block]) : 0.f;
    }
}

// Four consecutive 32-bit values of a shared-memory row, as one 16-byte load.
template <class T>
__device__ __forceinline__ void load4(const T* src, T* dst) {
    *reinterpret_cast<uint4*>(dst) = *reinterpret_cast<const uint4*>(src);
}

__global__ void __launch_bounds__(dp4a_tiled::kThreads) w4a8_dp4a_tiled(W4A8Args p) {
    using namespace dp4a_tiled;
    __shared__ __align__(16) Dp4aTileSmem s;
    const int tm = threadIdx.x / (BN / TN), tn = threadIdx.x % (BN / TN);
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    const int nblocks = p.K / QK4_0;
    float acc[TM][TN] = {};
    for (int b0 = 0; b0 < nblocks; b0 += kStepBlocks) {
        load_activation_tile(p, m0, b0, nblocks, s);
        load_weight_tile(p, n0, b0, nblocks, s);
        __syncthreads();
#pragma unroll 1
        for (int b = 0; b < kStepBlocks; ++b) {
            int sumi[TM][TN] = {};
#pragma unroll 1  // unrolled, the four words' operands would all be live at once: 255 registers and spills
            for (int word = 0; word < kWWords; ++word) {
                uint32_t a_lo[TM], a_hi[TM], w_packed[TN];  // activations of elements 4w.. and 16+4w..
#pragma unroll
                for (int g = 0; g < 2; ++g) {
                    load4(&s.a[b * kAWords + word][g * BM / 2 + tm * 4], &a_lo[g * 4]);
                    load4(&s.a[b * kAWords + 4 + word][g * BM / 2 + tm * 4], &a_hi[g * 4]);
                    load4(&s.w[b * kWWords + word][g * BN / 2 + tn * 4], &w_packed[g * 4]);
                }
#pragma unroll
                for (int j = 0; j < TN; ++j) {
                    const uint32_t lo = low_nibbles(w_packed[j]), hi = high_nibbles(w_packed[j]);
#pragma unroll
                    for (int i = 0; i < TM; ++i) sumi[i][j] = dp4a_s8(hi, a_hi[i], dp4a_s8(lo, a_lo[i], sumi[i][j]));
                }
            }
            float2 a_scale[TM];
            float w_scale[TN];
#pragma unroll
            for (int g = 0; g < 2; ++g) {
                load4(reinterpret_cast<const float*>(&s.a_scales[b][g * BM / 2 + tm * 4]), reinterpret_cast<float*>(&a_scale[g * 4]));
                load4(reinterpret_cast<const float*>(&s.a_scales[b][g * BM / 2 + tm * 4 + 2]),
                      reinterpret_cast<float*>(&a_scale[g * 4 + 2]));
                load4(&s.w_scales[b][g * BN / 2 + tn * 4], &w_scale[g * 4]);
            }
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j)  // acc += d_w * (d_a * sumi - 8 s)
                    acc[i][j] = fmaf(w_scale[j], fmaf(a_scale[i].x, (float)sumi[i][j], a_scale[i].y), acc[i][j]);
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const int m = m0 + (i / 4) * (BM / 2) + tm * 4 + i % 4;
#pragma unroll
        for (int g = 0; g < 2; ++g) {
            const float* v = &acc[i][g * 4];
            store_c_quad(p.c, p.M, p.N, m, n0 + g * (BN / 2) + tn * 4, make_float4(v[0], v[1], v[2], v[3]));
        }
    }
}

inline std::string w4a8_dp4a_tiled_why_not(const GemmCase& c, const Gpu&) {
    return grid_limit_reason('y', ceil_div(c.M, dp4a_tiled::BM));
}

inline void launch_w4a8_dp4a_tiled(const W4A8Args& p, cudaStream_t s) {
    using namespace dp4a_tiled;
    const dim3 grid((unsigned)ceil_div(p.N, BN), (unsigned)ceil_div(p.M, BM));
    w4a8_dp4a_tiled<<<grid, kThreads, 0, s>>>(p);
}
