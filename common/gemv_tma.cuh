// gemv_tma.cuh - the skeleton of a decoding GEMV whose weights reach shared memory by the copy
// engine (sm_90): one copy thread keeps a deep ring of bulk copies in flight, the math warps only
// read shared memory and compute (step 3's kernel 09). The format is gemv_mma.cuh's policy, plus
// where a tile's stream lies and how a lane finds its piece in shared memory:
//
//   struct Format {                   // everything gemv_mma.cuh asks for (Piece, Acts, ...), and
//     static constexpr int kScaleBytesPerChunk;             // a tile's scale bytes per 64-value chunk
//     static const void* tile_words(const Args&, int tile, int chunk);   // the tile's nibbles from chunk on
//     static const void* tile_scales(const Args&, int tile, int chunk);  // its scales from chunk (even) on
//     static Piece shared_piece(const uint8_t* words, const uint8_t* scales, int c);  // chunk c of a stage
//     template <int TOKENS> static void copy_acts(uint8_t* all, const Args&, int chunks, uint64_t* bar);
//                                       //   the copy thread: every token's activations, all of K, into the
//                                       //   layout Acts reads (act_bytes(TOKENS, chunks)), counted on bar
//   };
//
// Why: gemv_mma.cuh's lanes load their pieces into registers a few chunks ahead, so the bytes in
// flight are what the registers hold, and each warp refills its ring only as fast as it computes.
// Here the copy warp's lane 0 asks the copy engine for whole stages (two 16-row tiles x 32
// chunks, 16 with one token: 32 or 16 KB of nibbles and their scales, four bulk copies) into a ring
// of as many stages as shared memory holds, counted by a "full" mbarrier per stage; a math warp
// copies its chunks' pieces (two, or one) from the stage into registers, releases the stage
// ("empty" mbarrier, every math thread arrives) before it computes, and runs the format's chunk()
// on them, without a bound check in a full stage (so the compiler may interleave two chunks).
// The copy engine does not wait for the math: it refills a stage as soon as the 16 math warps have
// read it, across tiles, and a tile's sums (gemv_mma_finish_tiles, among the math warps only)
// overlap the next tile's copies.
// The activations: every token's whole K, copied once per CTA by the same thread (after the first
// stage of weights, and after the PDL wait: the weights do not need the activations' producer).
// A CTA takes groups of kTilesPerItem tiles (blockIdx.x, + gridDim.x, ...), one CTA per SM, PDL.
// What it showed on the H200 (LAB_NOTES.md): a ring of 2 stages of 17 KB streamed as fast as one
// of 16, and the kernel without its math took three quarters of the time: the loads were never
// what limited 06.
#pragma once

#include "gemv_mma.cuh"
#include "tma.cuh"

namespace gemv_tma {
constexpr int kMathWarps = 16;
// Each math warp's chunks of a stage: one with one token (a stage's math is short, and the last
// stage's math after its bytes land is a large part of a CTA's few stages), two from two tokens on
// (each stage's math is longer, and twice the stages would cost more than the shorter tail saves).
__host__ __device__ constexpr int chunks_per_warp(int tokens) { return tokens == 1 ? 1 : 2; }
__host__ __device__ constexpr int stage_chunks(int tokens) { return kMathWarps * chunks_per_warp(tokens); }  // 16 or 32
constexpr int kThreads = (kMathWarps + 1) * 32;            // + the copy warp
constexpr int kMaxStages = 16;
constexpr int kMinStages = 2;
constexpr int kPieceBytes = 32 * 16;                       // one chunk of one tile: 32 lanes x 16 bytes
constexpr int kPartialBytes = 2 * gemv_mma::kTilesPerItem * gemv_mma::kMaxWarps * 32 * 16;  // gemv_mma_finish_tiles' layout
constexpr int kBarrierBytes = (2 * kMaxStages + 1) * 8;  // full and empty per stage, the activations'
static_assert(kMathWarps <= gemv_mma::kMaxWarps, "the partial tiles are gemv_mma_finish_tiles'");
static_assert(stage_chunks(1) % 2 == 0 && stage_chunks(2) % 2 == 0,
              "a stage starts at an even chunk: group-128 scales come per two chunks");
}  // namespace gemv_tma

template <class Format>
__host__ __device__ constexpr int gemv_tma_stage_bytes(int tokens) {
    return gemv_mma::kTilesPerItem * gemv_tma::stage_chunks(tokens) * (gemv_tma::kPieceBytes + Format::kScaleBytesPerChunk);
}
// Everything but the ring: the staged activations (all of K), the partial tiles, the barriers.
template <class Format>
inline size_t gemv_tma_fixed_bytes(int tokens, int K) {
    return (size_t)Format::act_bytes(tokens, K / gemv_mma::kChunkK) + gemv_tma::kPartialBytes + gemv_tma::kBarrierBytes;
}
// The ring's stages that fit next to them (0 when not even the fixed part fits).
template <class Format>
inline int gemv_tma_stages(int tokens, int K, size_t smem_per_block_optin) {
    const size_t fixed = gemv_tma_fixed_bytes<Format>(tokens, K);
    if (fixed >= smem_per_block_optin) return 0;
    return (int)std::min<size_t>(gemv_tma::kMaxStages, (smem_per_block_optin - fixed) / gemv_tma_stage_bytes<Format>(tokens));
}

// How a CTA walks the matrix, the same for the copy thread and the math warps: K in chunks of 64
// values, N in 16-row tiles, the tiles in groups of kTilesPerItem (blockIdx.x, + gridDim.x, ...).
struct GemvTmaWalk {
    int chunks, row_tiles, groups;
};
template <class Args>
__device__ __forceinline__ GemvTmaWalk gemv_tma_walk(const Args& p) {
    const int row_tiles = (p.N + gemv_mma::kTileRows - 1) / gemv_mma::kTileRows;
    return {p.K / gemv_mma::kChunkK, row_tiles, (row_tiles + gemv_mma::kTilesPerItem - 1) / gemv_mma::kTilesPerItem};
}
// Buffer s of the ring: every tile's nibbles for the stage's chunks, then their scales.
struct GemvTmaStage {
    uint8_t* words;
    uint8_t* scales;
};
template <class Format, int TOKENS>
__device__ __forceinline__ GemvTmaStage gemv_tma_stage(uint8_t* ring, int s) {
    uint8_t* words = ring + s * gemv_tma_stage_bytes<Format>(TOKENS);
    return {words, words + gemv_mma::kTilesPerItem * gemv_tma::stage_chunks(TOKENS) * gemv_tma::kPieceBytes};
}

// The copy thread: for each of the CTA's groups of tiles, stage after stage, wait until the ring's
// buffer was read (its previous use released), announce its bytes and ask for them. A tile past
// the matrix (the last group may be short) copies the group's first tile again: finite data whose
// rows are never stored.
template <class Format, int TOKENS>
__device__ void gemv_tma_copy(const typename Format::Args& p, uint8_t* ring, uint64_t* full, uint64_t* empty, int stages,
                              uint8_t* acts, uint64_t* acts_full) {
    using namespace gemv_tma;
    constexpr int kTiles = gemv_mma::kTilesPerItem, kStageChunks = stage_chunks(TOKENS);
    const GemvTmaWalk walk = gemv_tma_walk(p);
    RingPosition at;  // common/tma.cuh
    int j = 0;        // stages asked for so far: the first `stages` find their buffers free
    for (int group = blockIdx.x; group < walk.groups; group += gridDim.x)
        for (int c0 = 0; c0 < walk.chunks; c0 += kStageChunks, at = at.next(stages), ++j) {
            const int s = at.stage, count = min(kStageChunks, walk.chunks - c0);
            if (j >= stages) wait_barrier(&empty[s], at.parity ^ 1u);
            arrive_expect_tx(&full[s], kTiles * count * (kPieceBytes + Format::kScaleBytesPerChunk));
            const GemvTmaStage stage = gemv_tma_stage<Format, TOKENS>(ring, s);
#pragma unroll
            for (int t = 0; t < kTiles; ++t) {
                const int tile = group * kTiles + t < walk.row_tiles ? group * kTiles + t : group * kTiles;
                bulk_copy(stage.words + t * kStageChunks * kPieceBytes, Format::tile_words(p, tile, c0), count * kPieceBytes, &full[s]);
                bulk_copy(stage.scales + t * kStageChunks * Format::kScaleBytesPerChunk, Format::tile_scales(p, tile, c0),
                          count * Format::kScaleBytesPerChunk, &full[s]);
            }
            if (j == 0) {  // the first stage is on its way: now the activations, once their producer is done
                wait_for_prerequisite_grids();
                Format::template copy_acts<TOKENS>(acts, p, walk.chunks, acts_full);
            }
        }
}

template <class Format, int TOKENS>
__global__ void __launch_bounds__(gemv_tma::kThreads, 1) gemv_tma_kernel(typename Format::Args p, int stages) {
    using namespace gemv_tma;
    constexpr int kTiles = gemv_mma::kTilesPerItem, kStageChunks = stage_chunks(TOKENS), kChunksPerWarp = chunks_per_warp(TOKENS);
    extern __shared__ __align__(16) uint8_t smem[];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const GemvTmaWalk walk = gemv_tma_walk(p);
    const int chunks = walk.chunks;
    uint8_t* ring = smem;
    uint8_t* acts_smem = ring + stages * gemv_tma_stage_bytes<Format>(TOKENS);
    float4* partials = reinterpret_cast<float4*>(acts_smem + Format::act_bytes(TOKENS, chunks));
    uint64_t* full = reinterpret_cast<uint64_t*>(reinterpret_cast<uint8_t*>(partials) + kPartialBytes);
    uint64_t* empty = full + kMaxStages;
    uint64_t* acts_full = empty + kMaxStages;
    if (threadIdx.x == 0) {
        for (int s = 0; s < stages; ++s) init_barrier(&full[s], 1), init_barrier(&empty[s], kMathWarps * 32);
        init_barrier(acts_full, 1);
        fence_barrier_init();
    }
    __syncthreads();
    if (warp == kMathWarps) {  // the copy warp
        if (lane == 0) gemv_tma_copy<Format, TOKENS>(p, ring, full, empty, stages, acts_smem, acts_full);
        return;
    }

    wait_barrier(acts_full, 0);
    const typename Format::Acts acts(acts_smem, chunks, std::integral_constant<int, TOKENS>());

    float acc[kTiles][4] = {};
    const int first_chunk = warp * kChunksPerWarp;  // of each stage, this warp's: first_chunk + u
    RingPosition at;                                 // as the copy thread steps it
    int parity = 0;
    for (int group = blockIdx.x; group < walk.groups; group += gridDim.x, parity ^= 1) {
        for (int c0 = 0; c0 < chunks; c0 += kStageChunks, at = at.next(stages)) {
            const int s = at.stage, count = min(kStageChunks, chunks - c0);
            wait_barrier(&full[s], at.parity);
            const GemvTmaStage stage = gemv_tma_stage<Format, TOKENS>(ring, s);
            typename Format::Piece w[kChunksPerWarp][kTiles];
#pragma unroll
            for (int u = 0; u < kChunksPerWarp; ++u) {
                const int c = first_chunk + u;
#pragma unroll
                for (int t = 0; t < kTiles; ++t)
                    if (c < count)
                        w[u][t] = Format::shared_piece(stage.words + t * kStageChunks * kPieceBytes,
                                                       stage.scales + t * kStageChunks * Format::kScaleBytesPerChunk, c);
            }
            arrive(&empty[s]);  // this thread's pieces are in registers (every thread: one lane's arrival
                                // would not order the other lanes' reads before the next copy)
            if (count == kStageChunks) {  // a full stage: no guard, so that the two chunks' math may interleave
#pragma unroll
                for (int u = 0; u < kChunksPerWarp; ++u) acts.chunk(acc, w[u], c0 + first_chunk + u);
            } else {
#pragma unroll
                for (int u = 0; u < kChunksPerWarp; ++u)
                    if (first_chunk + u < count) acts.chunk(acc, w[u], c0 + first_chunk + u);
            }
        }
        Format::Acts::fold(acc);
        gemv_mma_finish_tiles<TOKENS>(acc, partials + parity * kTiles * gemv_mma::kMaxWarps * 32, p, group * kTiles, kMathWarps);
    }
}

// "" when the shape fits: M <= 8, and the staged activations leave room for kMinStages stages.
template <class Format>
inline std::string gemv_tma_why_not(int64_t M, int64_t K, size_t smem_per_block_optin) {
    if (M > gemv_mma::kMaxTokens) return "GEMV: needs M <= " + std::to_string(gemv_mma::kMaxTokens);
    const int stages = gemv_tma_stages<Format>((int)M, (int)K, smem_per_block_optin);
    if (stages < gemv_tma::kMinStages)
        return "copy-engine GEMV: the activations of M tokens leave room for " + std::to_string(stages) + " stages of " +
               std::to_string(gemv_tma_stage_bytes<Format>((int)M) / 1024) + " KB in " + std::to_string(smem_per_block_optin / 1024) +
               " KB of shared memory, it needs " + std::to_string(gemv_tma::kMinStages);
    return "";
}

// One CTA per SM (persistent), at most one per group of tiles; as many stages as fit; PDL.
template <class Format, int TOKENS>
inline void launch_gemv_tma_tokens(const typename Format::Args& p, cudaStream_t s) {
    auto kernel = gemv_tma_kernel<Format, TOKENS>;
    const int stages = gemv_tma_stages<Format>(TOKENS, p.K, opened_gpu().smem_per_block_optin);
    const size_t smem = stages * (size_t)gemv_tma_stage_bytes<Format>(TOKENS) + gemv_tma_fixed_bytes<Format>(TOKENS, p.K);
    CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    const int64_t groups = ceil_div(ceil_div(p.N, gemv_mma::kTileRows), gemv_mma::kTilesPerItem);
    const dim3 grid((unsigned)std::min<int64_t>(groups, ctas_in_one_wave(kernel, gemv_tma::kThreads, smem)));
    launch_with_pdl(kernel, grid, dim3(gemv_tma::kThreads), smem, s, p, stages);
}

// M = 1..8 tokens, each a compile-time count (gemv_tma_why_not keeps M in range).
template <class Format>
inline void launch_gemv_tma(const typename Format::Args& p, cudaStream_t s) {
    with_count_up_to<gemv_mma::kMaxTokens>(p.M, [&](auto tokens) { launch_gemv_tma_tokens<Format, decltype(tokens)::value>(p, s); });
}
