// 10 Tensor cores for decoding: 09's fragments without its shared-memory tiles. The weights go
// straight from HBM into mma fragments; the (at most 8) tokens are the mma's 8 columns.
//
// Idea: 08 spends DP4A, shuffles and registers per token, so its cost grows with M; 09's mma
// does 8 tokens for the price of one, but copies every weight into shared memory first and waits
// at a barrier per stage, though each weight is used exactly once. Here a lane loads its 16-byte
// piece of 09's repacked weights (two blocks of a 16-row tile) into registers and hands it to
// the mma directly. A CTA spans K: warp w owns a slice of K, copies that slice of every token's
// codes and scales into its own corner of shared memory once (after the PDL wait), and then the
// CTA's 16-row tiles stream past: for each, the warp does its slice (a ring of kInFlight 16-byte
// loads ahead, crossing tile boundaries), and the warps add their partial tiles in shared
// memory, one __syncthreads per tile. CTAs are persistent, as in 08.
// Improves: per 16 rows x 32 values of K one mma and one epilogue for all M tokens, and no copy
// through shared memory: the instruction count no longer grows with M.
// Limit: the mma and its epilogue cost the same at M = 1 as at M = 8 (08 is faster at M = 1);
// with one CTA of 16 warps per SM (registers) the schedulers issue on about half the cycles,
// waiting on loads and on each warp's chain of mma, convert and FMA (README.md, rung 10's
// profile). The activations of a slice must fit in shared memory (K = 16384 at M = 8 takes
// 162 KB); K a multiple of 64 (the repacked layout).
#pragma once

#include "../../common/async_copy.cuh"
#include "../../common/errors.cuh"
#include "../../common/gpu.cuh"
#include "../../common/launch.h"
#include "../../common/mma.cuh"
#include "../../common/pdl.cuh"
#include "../w4a8_layout.cuh"
#include "../w4a8_mma_layout.h"

#include <string>

namespace gemv_mma {
constexpr int kMaxWarps = 16;    // warps per CTA (fewer when K has fewer 64-value chunks), each a slice of K
constexpr int kInFlight = 8;     // 16-byte weight loads in flight per lane
constexpr int kMaxTokens = 8;    // the mma's N
constexpr int kRowPad = 16;      // bytes after each token's codes: ldmatrix rows fall in different banks
static_assert(kMaxTokens == 8, "the tokens are the 8 columns of m16n8k32");

__host__ __device__ inline int warps_for(int K) { return min(kMaxWarps, K / kMmaChunk8); }

// Warp w of W takes chunks [w·C/W, (w+1)·C/W) of the C chunks of K: every warp one or more.
struct Slice {
    int first, count;
    __host__ __device__ Slice(int warp, int warps, int chunks)
        : first(warp * chunks / warps), count((warp + 1) * chunks / warps - warp * chunks / warps) {}
};

// One warp's corner of shared memory: the codes of its slice for every token (rows of
// max_count·64 + kRowPad bytes), then d_a / 16 of 8 tokens per block (token t >= M repeats M - 1).
struct WarpSmem {
    int max_count;  // the longest slice, in chunks
    __host__ __device__ int code_stride() const { return max_count * kMmaChunk8 + kRowPad; }
    __host__ __device__ int code_bytes(int tokens) const { return tokens * code_stride(); }
    __host__ __device__ int bytes(int tokens) const { return code_bytes(tokens) + max_count * kBlocksPerLoad * kMaxTokens * 4; }
};
__host__ __device__ inline WarpSmem warp_smem(int K) {
    const int chunks = K / kMmaChunk8, warps = warps_for(K);
    return {(chunks + warps - 1) / warps};
}
constexpr int kPartialBytes = 2 * kMaxWarps * 32 * 16;  // [2][warp][lane] float4: the warps' partial tiles
inline size_t smem_bytes(int tokens, int K) { return (size_t)warps_for(K) * warp_smem(K).bytes(tokens) + kPartialBytes; }

// One lane's 16-byte piece of a tile's chunk (two blocks) and the two blocks' scales (d[g], d[g+8]).
struct WeightPiece {
    uint4 q;
    uint32_t d[2];
};

// Where a warp's next piece comes from: it walks its slice of tile blockIdx.x, then the same
// slice of tile blockIdx.x + gridDim.x, and so on (pointers advance; no index is recomputed).
struct PieceStream {
    const uint4* q;       // this lane's 16 bytes of the next chunk
    const uint32_t* d;    // its scales, block 2c (block 2c + 1 is 8 words on)
    int j, count;         // position in the slice, its length
    size_t q_skip, d_skip;  // from past the slice's end in one tile to its start in the next
    __device__ PieceStream(const W4A8Args& p, Slice s) : j(0), count(s.count) {
        const int lane = threadIdx.x % 32, chunks = p.K / kMmaChunk8;
        q = reinterpret_cast<const uint4*>(p.mma_words) + ((size_t)blockIdx.x * chunks + s.first) * 32 + lane;
        d = p.mma_scales + ((size_t)blockIdx.x * 2 * chunks + 2 * s.first) * 8 + lane / 4;
        q_skip = ((size_t)gridDim.x * chunks - s.count) * 32;
        d_skip = ((size_t)gridDim.x * chunks - s.count) * 16;
    }
    __device__ __forceinline__ void load(WeightPiece& w) {
        w.q = __ldcs(q), w.d[0] = __ldcs(d), w.d[1] = __ldcs(d + 8);
        q += 32, d += 16;
        if (++j == count) j = 0, q += q_skip, d += d_skip;
    }
};

// Copies this warp's slice of the activations into its shared memory: codes with cp.async,
// d_a / 16 as FP32 for 8 tokens (the 1/16 undoes the weights' 16·(n - 8)).
template <int TOKENS>
__device__ void stage_slice(uint8_t* mine, const W4A8Args& p, WarpSmem ws, Slice s) {
    const int lane = threadIdx.x % 32, pieces = s.count * (kMmaChunk8 / 16), k0 = s.first * kMmaChunk8;
    for (int i = lane; i < TOKENS * pieces; i += 32) {
        const int token = i / pieces, piece = i % pieces;
        copy_16_async(mine + token * ws.code_stride() + piece * 16, p.a_qs + (size_t)token * p.K + k0 + piece * 16);
    }
    commit_copies();
    // The scales: kBatch independent loads per lane in flight at once, then their stores (a loop
    // of load-then-store would wait for L2 once per element).
    constexpr int kBatch = 8;
    float* da = reinterpret_cast<float*>(mine + ws.code_bytes(TOKENS));
    const int entries = s.count * kBlocksPerLoad * kMaxTokens, b0 = s.first * kBlocksPerLoad;
    for (int base = lane; base < entries; base += 32 * kBatch) {
        uint32_t ds[kBatch];
#pragma unroll
        for (int u = 0; u < kBatch; ++u) {
            const int i = base + 32 * u, b = i / kMaxTokens, token = min(i % kMaxTokens, TOKENS - 1);
            if (i < entries) ds[u] = p.a_ds[(size_t)token * (p.K / QK4_0) + b0 + b];
        }
#pragma unroll
        for (int u = 0; u < kBatch; ++u)
            if (base + 32 * u < entries) da[base + 32 * u] = __low2float(bits_half2(ds[u])) * 0.0625f;
    }
    wait_copies<0>();
    __syncwarp();
}

// int8_from_high_nibbles (w4a8_mma_layout.h) as one instruction: (w & 0xF0F0F0F0) ^ sign, with
// sign = 0x80808080 in a register. Written as C++, the compiler keeps both constants as immediates
// and, since a LOP3 takes one, spends two.
__device__ __forceinline__ uint32_t high_nibbles_to_int8(uint32_t w, uint32_t sign) {
    uint32_t r;
    asm("lop3.b32 %0, %1, 0xF0F0F0F0, %2, 0x6A;" : "=r"(r) : "r"(w), "r"(sign));  // 0x6A: (a & b) ^ c
    return r;
}

// The two blocks of one chunk: unpack the nibbles, one mma per block for all tokens, scale.
// codes: this lane's ldmatrix row at the chunk; da: the chunk's d_a / 16 of tokens 2t, 2t + 1.
__device__ __forceinline__ void chunk_mma(float (&acc)[4], const WeightPiece& w, const uint8_t* codes, const float* da,
                                          uint32_t sign) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
        const uint32_t word_a = h == 0 ? w.q.x : w.q.z, word_b = h == 0 ? w.q.y : w.q.w;
        const uint32_t a[4] = {high_nibbles_to_int8(word_a, sign), high_nibbles_to_int8(word_b, sign),
                               high_nibbles_to_int8(word_a << 4, sign), high_nibbles_to_int8(word_b << 4, sign)};
        uint32_t b[2];
        ldmatrix_x2(b, codes + h * QK4_0);
        int c[4] = {0, 0, 0, 0};
        mma_m16n8k32_s8_s32(c, a, b);
        const float2 dw = __half22float2(bits_half2(w.d[h]));                     // rows g and g + 8
        const float2 d_a = *reinterpret_cast<const float2*>(da + h * kMaxTokens);  // tokens 2t, 2t + 1
        acc[0] = fmaf((float)c[0], dw.x * d_a.x, acc[0]);
        acc[1] = fmaf((float)c[1], dw.x * d_a.y, acc[1]);
        acc[2] = fmaf((float)c[2], dw.y * d_a.x, acc[2]);
        acc[3] = fmaf((float)c[3], dw.y * d_a.y, acc[3]);
    }
}

// The CTA's warps add their partial tiles: lane (g, t) of every warp holds rows g, g + 8 and
// tokens 2t, 2t + 1; thread (row r, token m) adds them and stores C[m][row].
template <int TOKENS>
__device__ __forceinline__ void finish_tile(float (&acc)[4], float4* partial, const W4A8Args& p, int tile) {
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, warps = blockDim.x / 32;
    partial[warp * 32 + lane] = make_float4(acc[0], acc[1], acc[2], acc[3]);
    acc[0] = acc[1] = acc[2] = acc[3] = 0.f;
    __syncthreads();
    for (int o = threadIdx.x; o < kMmaRows8 * TOKENS; o += blockDim.x) {  // a CTA of one warp has 32 threads
        const int r = o % kMmaRows8, token = o / kMmaRows8, row = tile * kMmaRows8 + r;
        const float* mine = reinterpret_cast<const float*>(partial + (r % 8) * 4 + token / 2) + (r / 8) * 2 + token % 2;
        float sum = 0.f;
        for (int w = 0; w < warps; ++w) sum += mine[w * 32 * 4];
        if (row < p.N) p.c[(size_t)token * p.N + row] = sum;
    }
}

template <int TOKENS>
__global__ void __launch_bounds__(kMaxWarps * 32) w4a8_gemv_mma(W4A8Args p) {
    extern __shared__ __align__(16) uint8_t smem[];
    const int warp = threadIdx.x / 32, warps = blockDim.x / 32, lane = threadIdx.x % 32;
    const int row_tiles = (p.N + kMmaRows8 - 1) / kMmaRows8;
    const Slice s(warp, warps, p.K / kMmaChunk8);
    const WarpSmem ws = warp_smem(p.K);
    uint8_t* mine = smem + warp * ws.bytes(TOKENS);
    float4* partials = reinterpret_cast<float4*>(smem + warps * ws.bytes(TOKENS));

    // The warp's work: its slice of each of the CTA's tiles, one chunk per item, kInFlight ahead.
    const int items = (row_tiles - (int)blockIdx.x + (int)gridDim.x - 1) / (int)gridDim.x * s.count;
    PieceStream stream(p, s);
    WeightPiece ring[kInFlight];
#pragma unroll
    for (int u = 0; u < kInFlight; ++u)
        if (u < items) stream.load(ring[u]);  // the weights do not need the quantizer
    wait_for_prerequisite_grids();
    stage_slice<TOKENS>(mine, p, ws, s);

    // ldmatrix rows: lanes 0-7 give tokens 0-7 (clamped to M - 1) at codes 0-15 of a block, lanes 8-15 at 16-31.
    const uint8_t* codes0 = mine + min(lane % 8, TOKENS - 1) * ws.code_stride() + ((lane / 8) % 2) * 16;
    const float* da0 = reinterpret_cast<const float*>(mine + ws.code_bytes(TOKENS)) + 2 * (lane % 4);
    const uint32_t sign = 0x80808080u;
    float acc[4] = {0.f, 0.f, 0.f, 0.f};
    int tile = blockIdx.x, j = 0, parity = 0;
    for (int i0 = 0; i0 < items; i0 += kInFlight) {
#pragma unroll
        for (int u = 0; u < kInFlight; ++u) {
            if (i0 + u >= items) break;
            chunk_mma(acc, ring[u], codes0 + j * kMmaChunk8, da0 + j * kBlocksPerLoad * kMaxTokens, sign);
            if (i0 + u + kInFlight < items) stream.load(ring[u]);
            if (++j == s.count) {
                finish_tile<TOKENS>(acc, partials + parity * kMaxWarps * 32, p, tile);
                j = 0, tile += gridDim.x, parity ^= 1;
            }
        }
    }
}

}  // namespace gemv_mma

inline std::string w4a8_gemv_mma_why_not(int64_t M, int64_t K) {
    if (M > gemv_mma::kMaxTokens) return "GEMV: needs M <= " + std::to_string(gemv_mma::kMaxTokens);
    const size_t need = gemv_mma::smem_bytes((int)M, (int)K), have = current_smem_per_block_optin();
    if (need > have)
        return "tensor-core GEMV: the activations of M tokens need " + std::to_string(need / 1024) + " KB of shared memory per CTA, the GPU allows " +
               std::to_string(have / 1024) + " KB";
    return "";
}

template <int TOKENS>
inline void launch_gemv_mma_tokens(const W4A8Args& p, cudaStream_t s) {
    using namespace gemv_mma;
    auto kernel = w4a8_gemv_mma<TOKENS>;
    const size_t smem = smem_bytes(TOKENS, p.K);
    CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    const int64_t row_tiles = ceil_div(p.N, kMmaRows8);
    const int threads = warps_for(p.K) * 32;
    const dim3 grid((unsigned)std::min<int64_t>(row_tiles, ctas_in_one_wave(kernel, threads, smem)));
    launch_with_pdl(kernel, grid, dim3(threads), smem, s, p);
}

inline void launch_w4a8_gemv_mma(const W4A8Args& p, cudaStream_t s) {
    with_count_up_to<gemv_mma::kMaxTokens>(p.M, [&](auto tokens) { launch_gemv_mma_tokens<decltype(tokens)::value>(p, s); });
}
