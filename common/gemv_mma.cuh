// gemv_mma.cuh - the skeleton of a tensor-core decoding GEMV (step 4's kernel 10): weights
// repacked in mma fragment order go straight from HBM into registers, the (at most 8) tokens are
// the 8 columns of an m16n8 mma. The format is a policy:
//
//   struct Format {
//     using Args;                       // the step's kernel arguments (M, N, K, c, ...)
//     struct Piece;                     // one lane's share of one 64-value chunk of a 16-row tile
//     struct Stream {                   // the pieces of one warp's slice, group of tiles after group
//       Stream(const Args&, Slice);     //   starts at group blockIdx.x (tiles kTilesPerItem·blockIdx.x, ...)
//       void load(Piece (&)[kTilesPerItem]);  // the group's next chunk; after the slice, the next group
//     };
//     static int act_bytes(int tokens, int max_chunks);      // one warp's staged activations
//     struct Acts {                     // one lane's view of its warp's staged activations
//       template <int TOKENS> static void stage(uint8_t* mine, const Args&, int max_chunks, Slice);
//       template <int TOKENS> Acts(const uint8_t* mine, int max_chunks, std::integral_constant<int, TOKENS>);
//       void chunk(float (&acc)[kTilesPerItem][4], const Piece (&)[kTilesPerItem], int j) const;
//                                       //   chunk j of the slice: the activations read once, for every tile
//       static void fold(float (&acc)[kTilesPerItem][4]);  // before a tile's sums: lanes' accumulators
//                                       //   into C fragment order (most formats: nothing, GemvMmaNoFold)
//     };
//   };
//
// A CTA spans K: warp w of W owns a slice of the K/64 chunks (Slice), stages that slice of every
// token's activations in its own corner of shared memory once (after the PDL wait), and then the
// CTA's 16-row tiles stream past (tiles blockIdx.x, + gridDim.x, ...): for each, the warp runs its
// slice with kInFlight pieces loaded ahead (a ring that crosses tile boundaries), and at the end
// of the tile the warps add their 16 x 8 partial tiles in shared memory (two buffers, one
// barrier per tile). A warp may take kTilesPerItem neighbouring tiles at once: their
// pieces share the chunk's activations (read once), and their mma are independent work. Lane (g, t) of a warp's accumulator holds rows g, g + 8 and tokens 2t,
// 2t + 1 (the C fragment of m16n8). CTAs are persistent and launched with PDL.
#pragma once

#include "async_copy.cuh"
#include "errors.cuh"
#include "gpu.cuh"
#include "launch.h"
#include "pdl.cuh"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>

namespace gemv_mma {
constexpr int kMaxWarps = 16;   // warps per CTA (fewer when K has fewer chunks), each a slice of K
constexpr int kInFlight = 4;    // chunks loaded ahead per lane (kTilesPerItem 16-byte pieces each)
constexpr int kMaxTokens = 8;   // the mma's N
constexpr int kChunkK = 64;     // values of K per piece
constexpr int kTileRows = 16;   // the mma's M: weight rows per tile
constexpr int kTilesPerItem = 2;  // neighbouring 16-row tiles a warp takes per chunk
constexpr int kPartialBytes = 2 * kTilesPerItem * kMaxWarps * 32 * 16;  // [2][tile][warp][lane] float4: partial tiles
}  // namespace gemv_mma

// Warp w of W takes chunks [w·C/W, (w+1)·C/W) of the C chunks of K: every warp one or more.
struct Slice {
    int first, count;
    __host__ __device__ Slice(int warp, int warps, int chunks)
        : first(warp * chunks / warps), count((warp + 1) * chunks / warps - warp * chunks / warps) {}
};

// A warp's share of staging its activations, for any element size: the slice's chunks of K of each
// of TOKENS rows (row_bytes apart in global memory, chunk_bytes per chunk) copied with cp.async into
// shared-memory rows `stride` bytes apart. Committed, not waited for.
template <int TOKENS>
__device__ __forceinline__ void gemv_mma_stage_rows(uint8_t* dst, int stride, const uint8_t* src, size_t row_bytes, int chunk_bytes,
                                                    Slice s) {
    const int lane = threadIdx.x % 32, pieces = s.count * chunk_bytes / 16;
    const uint8_t* first = src + (size_t)s.first * chunk_bytes;
    for (int i = lane; i < TOKENS * pieces; i += 32) {
        const int token = i / pieces, piece = i % pieces;
        copy_16_async(dst + token * stride + piece * 16, first + token * row_bytes + piece * 16);
    }
    commit_copies();
}

// A warp's share of staging one value per (32-value block of its slice, token slot of the mma's 8):
// entry i, block i / 8 and slot i % 8 (slots past TOKENS repeat token TOKENS - 1), becomes
// out[i] = convert(that block's (d, s) word of the Q8_1 split layout, a_ds[token][K/32]).
// kBatch independent loads per lane at once: a loop of load-then-store would wait for L2 per element.
template <int TOKENS, class T, class Convert>
__device__ __forceinline__ void gemv_mma_stage_block_values(T* out, const uint32_t* a_ds, int K, int blocks_per_chunk, Slice s,
                                                            Convert convert) {
    constexpr int kBatch = 8, kSlots = gemv_mma::kMaxTokens;
    const int lane = threadIdx.x % 32;
    const int entries = s.count * blocks_per_chunk * kSlots, b0 = s.first * blocks_per_chunk, blocks = K / 32;
    for (int base = lane; base < entries; base += 32 * kBatch) {
        uint32_t ds[kBatch];
#pragma unroll
        for (int u = 0; u < kBatch; ++u) {
            const int i = base + 32 * u, b = i / kSlots, token = min(i % kSlots, TOKENS - 1);
            if (i < entries) ds[u] = a_ds[(size_t)token * blocks + b0 + b];
        }
#pragma unroll
        for (int u = 0; u < kBatch; ++u)
            if (base + 32 * u < entries) out[base + 32 * u] = convert(ds[u]);
    }
}

// The staged activations of a format with one 32-value block per mma (step 4's rungs 10 and 14):
// the codes of the warp's slice for every token (int8, rows `code_stride` bytes apart, cp.async),
// then one T per (block, token slot), convert(the block's (d, s) word); all landed on return.
template <int TOKENS, class T, class Convert>
__device__ __forceinline__ void gemv_mma_stage_codes_and_scales(uint8_t* mine, int code_stride, const int8_t* a_qs, const uint32_t* a_ds,
                                                                int K, Slice s, Convert convert) {
    gemv_mma_stage_rows<TOKENS>(mine, code_stride, reinterpret_cast<const uint8_t*>(a_qs), (size_t)K, gemv_mma::kChunkK, s);
    gemv_mma_stage_block_values<TOKENS>(reinterpret_cast<T*>(mine + TOKENS * code_stride), a_ds, K, gemv_mma::kChunkK / 32, s, convert);
    wait_copies<0>();
    __syncwarp();
}

// This lane's ldmatrix row in such a stage: lanes 0-7 give tokens 0-7 (clamped to M - 1) at codes
// 0-15 of a block, lanes 8-15 at 16-31.
template <int TOKENS>
__device__ __forceinline__ const uint8_t* gemv_mma_token_row(const uint8_t* mine, int code_stride) {
    const int lane = threadIdx.x % 32;
    return mine + min(lane % 8, TOKENS - 1) * code_stride + ((lane / 8) % 2) * 16;
}

// Tiles of the group starting at first_tile that exist (the last group may be short); a piece of a
// missing tile is read from the group's first tile instead: finite data whose rows are never stored.
__device__ __forceinline__ int gemv_mma_tiles_in_group(int first_tile, int row_tiles) {
    return min(gemv_mma::kTilesPerItem, row_tiles - first_tile);
}

__host__ __device__ inline int gemv_mma_warps(int K) { return min(gemv_mma::kMaxWarps, K / gemv_mma::kChunkK); }
__host__ __device__ inline int gemv_mma_max_chunks(int K) {  // the longest slice
    const int chunks = K / gemv_mma::kChunkK, warps = gemv_mma_warps(K);
    return (chunks + warps - 1) / warps;
}
template <class Format>
inline size_t gemv_mma_smem_bytes(int tokens, int K) {
    return (size_t)gemv_mma_warps(K) * Format::act_bytes(tokens, gemv_mma_max_chunks(K)) + gemv_mma::kPartialBytes;
}

// The fold of a format whose lanes already hold the C fragment (rows g, g + 8, tokens 2t, 2t + 1).
struct GemvMmaNoFold {
    __device__ static void fold(float (&)[gemv_mma::kTilesPerItem][4]) {}
};

// The pieces of a layout with 16 bytes of nibbles per (16-row tile, 64-value chunk, lane) and
// one 32-bit scale word per (tile, 32-value block, g), the pair of rows g and g + 8: Q4_0 repacked
// for step 4's int8 mma (w4a8_mma_layout.h) and for step 3's fp16 mma (w4a16_formats.h).
struct BlockScalePiece {
    uint4 q;
    uint32_t d[2];  // blocks 2c and 2c + 1
};

// A warp's slice, kTilesPerItem neighbouring tiles at a time: pointers advance, no index is
// recomputed; a tile of the group past the matrix reads the group's first instead.
struct BlockScaleStream {
    const uint4* q;         // this lane's 16 bytes of the next chunk of the group's first tile
    const uint32_t* d;      // its scale word of block 2c (block 2c + 1 is 8 words on)
    int j, count;           // position in the slice, its length
    int first_tile, row_tiles, tiles;  // the group's first tile; how many of its tiles exist
    size_t q_tile, d_tile;  // from one tile to the next
    size_t q_skip, d_skip;  // from past the slice's end in one group to its start in the next
    __device__ BlockScaleStream(const uint32_t* words, const uint32_t* scales, int N, int K, Slice s) : j(0), count(s.count) {
        using namespace gemv_mma;
        const int lane = threadIdx.x % 32, chunks = K / kChunkK, step = gridDim.x * kTilesPerItem;
        first_tile = blockIdx.x * kTilesPerItem, row_tiles = (N + kTileRows - 1) / kTileRows;
        tiles = gemv_mma_tiles_in_group(first_tile, row_tiles);
        q = reinterpret_cast<const uint4*>(words) + ((size_t)first_tile * chunks + s.first) * 32 + lane;
        d = scales + ((size_t)first_tile * 2 * chunks + 2 * s.first) * 8 + lane / 4;
        q_tile = (size_t)chunks * 32, d_tile = (size_t)chunks * 16;
        q_skip = ((size_t)step * chunks - s.count) * 32;
        d_skip = ((size_t)step * chunks - s.count) * 16;
    }
    __device__ __forceinline__ void load(BlockScalePiece (&w)[gemv_mma::kTilesPerItem]) {
#pragma unroll
        for (int t = 0; t < gemv_mma::kTilesPerItem; ++t) {
            const int tt = t < tiles ? t : 0;
            w[t].q = __ldcs(q + tt * q_tile), w[t].d[0] = __ldcs(d + tt * d_tile), w[t].d[1] = __ldcs(d + tt * d_tile + 8);
        }
        q += 32, d += 16;
        if (++j == count) {
            j = 0, q += q_skip, d += d_skip;
            first_tile += gridDim.x * gemv_mma::kTilesPerItem, tiles = gemv_mma_tiles_in_group(first_tile, row_tiles);
        }
    }
};

// The barrier of a CTA's first `threads` threads (all of them here; gemv_tma.cuh's math warps,
// without its copy warp). Not __syncthreads: warps whose slices differ in length get here from
// different places of the kernel's unrolled loop, and __syncthreads is the .aligned barrier, which
// requires every thread to execute the same instruction (compute-sanitizer's synccheck reports
// it). The plain barrier.sync counts arrivals wherever they come from (sm_70 on; the kernels need
// sm_80, and builds for older GPUs only have to compile them).
__device__ __forceinline__ void gemv_mma_sync_math_threads(int threads) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 700
    __syncthreads();
#else
    asm volatile("barrier.sync 1, %0;" ::"r"(threads) : "memory");
#endif
}

// The warps (the first `warps` of the CTA) add their partial tiles; thread (row r, token m) adds
// them and stores C[m][row].
template <int TOKENS, class Args>
__device__ __forceinline__ void gemv_mma_finish_tiles(float (&acc)[gemv_mma::kTilesPerItem][4], float4* partial, const Args& p,
                                                      int first_tile, int warps) {
    using namespace gemv_mma;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
#pragma unroll
    for (int t = 0; t < kTilesPerItem; ++t) {
        partial[(t * kMaxWarps + warp) * 32 + lane] = make_float4(acc[t][0], acc[t][1], acc[t][2], acc[t][3]);
        acc[t][0] = acc[t][1] = acc[t][2] = acc[t][3] = 0.f;
    }
    gemv_mma_sync_math_threads(warps * 32);
    for (int o = threadIdx.x; o < kTilesPerItem * kTileRows * TOKENS; o += warps * 32) {  // a CTA of one warp has 32 threads
        const int r = o % kTileRows, token = (o / kTileRows) % TOKENS, t = o / (kTileRows * TOKENS);
        const int row = (first_tile + t) * kTileRows + r;
        const float* mine =
            reinterpret_cast<const float*>(partial + t * kMaxWarps * 32 + (r % 8) * 4 + token / 2) + (r / 8) * 2 + token % 2;
        float sum = 0.f;
        for (int w = 0; w < warps; ++w) sum += mine[w * 32 * 4];
        if (row < p.N) p.c[(size_t)token * p.N + row] = sum;
    }
}

template <class Format, int TOKENS>
__global__ void __launch_bounds__(gemv_mma::kMaxWarps * 32) gemv_mma_kernel(typename Format::Args p) {
    using namespace gemv_mma;
    extern __shared__ __align__(16) uint8_t smem[];
    const int warp = threadIdx.x / 32, warps = blockDim.x / 32;
    const int row_tiles = (p.N + kTileRows - 1) / kTileRows, max_chunks = gemv_mma_max_chunks(p.K);
    const Slice s(warp, warps, p.K / kChunkK);
    const int warp_bytes = Format::act_bytes(TOKENS, max_chunks);
    uint8_t* mine = smem + warp * warp_bytes;
    float4* partials = reinterpret_cast<float4*>(smem + warps * warp_bytes);

    // The warp's work: its slice of each of the CTA's groups of tiles, one chunk per item, kInFlight ahead.
    const int groups = (row_tiles + kTilesPerItem - 1) / kTilesPerItem;
    const int items = (groups - (int)blockIdx.x + (int)gridDim.x - 1) / (int)gridDim.x * s.count;
    typename Format::Stream stream(p, s);
    typename Format::Piece ring[kInFlight][kTilesPerItem];
#pragma unroll
    for (int u = 0; u < kInFlight; ++u)
        if (u < items) stream.load(ring[u]);  // the weights do not need the activations' producer
    wait_for_prerequisite_grids();
    Format::Acts::template stage<TOKENS>(mine, p, max_chunks, s);

    const typename Format::Acts acts(mine, max_chunks, std::integral_constant<int, TOKENS>());
    float acc[kTilesPerItem][4] = {};
    int group = blockIdx.x, j = 0, parity = 0;
    for (int i0 = 0; i0 < items; i0 += kInFlight) {
#pragma unroll
        for (int u = 0; u < kInFlight; ++u) {
            if (i0 + u >= items) break;
            acts.chunk(acc, ring[u], j);
            if (i0 + u + kInFlight < items) stream.load(ring[u]);
            if (++j == s.count) {
                Format::Acts::fold(acc);
                gemv_mma_finish_tiles<TOKENS>(acc, partials + parity * kTilesPerItem * kMaxWarps * 32, p, group * kTilesPerItem, warps);
                j = 0, group += gridDim.x, parity ^= 1;
            }
        }
    }
}

// "" when the shape fits: M <= 8 and the staged activations within the GPU's shared memory
// (`smem_per_block_optin`, Gpu's field of that name).
template <class Format>
inline std::string gemv_mma_why_not(int64_t M, int64_t K, size_t smem_per_block_optin) {
    if (M > gemv_mma::kMaxTokens) return "GEMV: needs M <= " + std::to_string(gemv_mma::kMaxTokens);
    const size_t need = gemv_mma_smem_bytes<Format>((int)M, (int)K), have = smem_per_block_optin;
    if (need > have)
        return "tensor-core GEMV: the activations of M tokens need " + std::to_string(need / 1024) +
               " KB of shared memory per CTA, the GPU allows " + std::to_string(have / 1024) + " KB";
    return "";
}

// As many CTAs as fit on the GPU at once (persistent), at most one per group of tiles; PDL.
template <class Format, int TOKENS>
inline void launch_gemv_mma_tokens(const typename Format::Args& p, cudaStream_t s) {
    auto kernel = gemv_mma_kernel<Format, TOKENS>;
    const size_t smem = gemv_mma_smem_bytes<Format>(TOKENS, p.K);
    CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    const int threads = gemv_mma_warps(p.K) * 32;
    const int64_t groups = ceil_div(ceil_div(p.N, gemv_mma::kTileRows), gemv_mma::kTilesPerItem);
    const dim3 grid((unsigned)std::min<int64_t>(groups, ctas_in_one_wave(kernel, threads, smem)));
    launch_with_pdl(kernel, grid, dim3(threads), smem, s, p);
}

// M = 1..8 tokens, each a compile-time count (gemv_mma_why_not keeps M in range).
template <class Format>
inline void launch_gemv_mma(const typename Format::Args& p, cudaStream_t s) {
    with_count_up_to<gemv_mma::kMaxTokens>(p.M, [&](auto tokens) { launch_gemv_mma_tokens<Format, decltype(tokens)::value>(p, s); });
}
