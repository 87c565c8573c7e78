// gemv_resident.cuh - the skeleton of a decoding GEMV whose activations stay in registers while
// the weight rows stream past (step 4's kernel 08). The format is a policy:
//
//   struct Format {
//     using Args;                                   // the step's kernel arguments (N, K, c, ...)
//     struct Weight;                                // one row's share of one thread: a 32-value block
//     struct Activation;                            // one token's 32-value block
//     static Weight load_weight(const Args&, int row, int block);
//     static Activation load_activation(const Args&, int token, int block);
//     static float dot(const Weight&, const Activation&);   // that block's term of the output
//     static float finish(const Args&, int row, float sum);   // the output from the row's sum
//   };
//
// A format may also define `static Ready ready(const Weight&)`, run once per row after its loads
// have landed and before its tokens, by every thread of the CTA (shuffles may pass parts of a
// row's data between lanes); dot then takes the Ready. Without it, dot takes the Weight itself.
//
// Thread b of a CTA owns K-block b for the whole kernel (one CTA spans K: threads = K/32 rounded
// up to warps). It loads that block of every token's activations once, into registers, and then
// every weight row that reaches the CTA only costs it one 16-byte load, the math, and its share of
// the row's sum. A CTA takes ROWS rows at a time and has the next ROWS rows' loads in flight while
// it computes (software pipeline); the CTA's threads then add up the stage's ROWS x TOKENS sums:
// shuffle butterflies in each warp (for more than 4 sums one for all of them at once,
// warp_reduce_sums_transposed), one value per sum and warp in shared memory, one __syncthreads,
// and the first threads finish the sums.
// CTAs are persistent (as many as fit on the GPU), so each loads the activations only once.
#pragma once

#include "gpu.cuh"
#include "launch.h"
#include "pdl.cuh"
#include "warp_reduce.cuh"

#include <cuda_runtime.h>

#include <algorithm>
#include <string>
#include <type_traits>
#include <utility>

namespace gemv_resident {
constexpr int kMaxThreads = 512;  // threads = K-blocks: K <= 16384
constexpr int kMaxWarps = kMaxThreads / 32;
// Rows per pipeline stage: in flight are 2 x ROWS weight blocks per thread (this stage and the
// next), next to TOKENS activation blocks and ROWS x TOKENS partial sums, in at most 128 registers.
// Timed on the H200 (2026-11-30) at M = 1 and 4, K = 4096 and 14336: 4 rows beat 2, 8 and 16.
// But a pipeline needs two stages per CTA at least: with few K-blocks the CTAs are small and many
// fit at once (at K = 4096, 1056 of 4 warps on the H200), and 4 rows per stage would leave each
// CTA one stage, its loads overlapping nothing; the launcher then takes half as many rows
// (launch_gemv_resident_tokens; LAB_NOTES.md of step 4 has the A/B).
template <int TOKENS> constexpr int kRows = TOKENS <= 4 ? 4 : 2;
// The stage's ROWS x TOKENS sums go through one transposed butterfly (warp_reduce.cuh), whose
// count of values is a power of two (the rest are zeros), when there are more than 4 of them
// (M >= 2): timed on the H200 (2026-12-03, rung 08, K = 14336) 3-7% faster at M = 2 to 8. At 4
// sums (M = 1) the selects cost what the fewer shuffles save (1-2% slower), so each sum keeps its
// own butterfly there.
__host__ __device__ constexpr int pow2_at_least(int n) { return n <= 1 ? 1 : 2 * pow2_at_least((n + 1) / 2); }
}  // namespace gemv_resident

// The K-blocks of one CTA's threads: one each, warps rounded up.
inline int gemv_resident_threads(int64_t K) { return (int)ceil_div(K / 32, 32) * 32; }

// Format::ready(w) where the format has one, else w (the optional step above).
template <class Format, class = void>
struct HasReady : std::false_type {};
template <class Format>
struct HasReady<Format, std::void_t<decltype(Format::ready(std::declval<const typename Format::Weight&>()))>> : std::true_type {};
template <class Format>
__device__ __forceinline__ decltype(auto) ready_weight(const typename Format::Weight& w) {
    if constexpr (HasReady<Format>::value)
        return Format::ready(w);
    else
        return (w);  // the Weight itself, by reference
}

template <class Format, int ROWS>
struct ResidentStage {
    typename Format::Weight w[ROWS];
    // Rows past N repeat the last row: loaded and computed, never stored.
    __device__ __forceinline__ void load(const typename Format::Args& p, int first_row, int block) {
#pragma unroll
        for (int r = 0; r < ROWS; ++r) w[r] = Format::load_weight(p, min(first_row + r, p.N - 1), block);
    }
};

// PDL: true when launched as a programmatic dependent of the kernel that writes the activations;
// the first weight loads then go out before waiting for it.
template <class Format, int TOKENS, bool PDL, int ROWS>
__global__ void __launch_bounds__(gemv_resident::kMaxThreads) gemv_resident_kernel(typename Format::Args p) {
    using namespace gemv_resident;
    __shared__ float warp_sums[2][kMaxWarps][ROWS * TOKENS];  // two, so one __syncthreads per stage suffices
    constexpr int kSums = pow2_at_least(ROWS * TOKENS), kLanesPerSum = 32 / kSums;
    static_assert(kSums <= 32, "a stage's sums fit one per lane");
    constexpr bool kTransposed = ROWS * TOKENS > 4;  // why 4: above pow2_at_least
    const int block = threadIdx.x, warp = threadIdx.x / 32, lane = threadIdx.x % 32, warps = blockDim.x / 32;
    const bool has_block = block < p.K / 32;  // threads past the last K-block add zeros
    const int stages = (p.N + ROWS - 1) / ROWS;

    ResidentStage<Format, ROWS> cur, next;
    if (has_block && (int)blockIdx.x < stages) cur.load(p, blockIdx.x * ROWS, block);  // does not need the activations
    if (PDL) wait_for_prerequisite_grids();
    typename Format::Activation a[TOKENS];
#pragma unroll
    for (int t = 0; t < TOKENS; ++t)
        if (has_block) a[t] = Format::load_activation(p, t, block);

    int parity = 0;
    for (int stage = blockIdx.x; stage < stages; stage += gridDim.x, parity ^= 1) {
        const int after = stage + gridDim.x;
        if (has_block && after < stages) next.load(p, after * ROWS, block);
        float part[kSums] = {};  // (row r, token t) at r * TOKENS + t; zeros up to a power of two
#pragma unroll
        for (int r = 0; r < ROWS; ++r) {
            const auto& w = ready_weight<Format>(cur.w[r]);  // every thread: past the last K-block too
#pragma unroll
            for (int t = 0; t < TOKENS; ++t) part[r * TOKENS + t] = has_block ? Format::dot(w, a[t]) : 0.f;
        }
        if constexpr (kTransposed) {
            const float s = warp_reduce_sums_transposed(part);  // sum lane / kLanesPerSum
            if (lane % kLanesPerSum == 0 && lane / kLanesPerSum < ROWS * TOKENS) warp_sums[parity][warp][lane / kLanesPerSum] = s;
        } else {
#pragma unroll
            for (int i = 0; i < ROWS * TOKENS; ++i) {
                const float s = warp_reduce_sum(part[i]);
                if (lane == 0) warp_sums[parity][warp][i] = s;
            }
        }
        __syncthreads();
        if (threadIdx.x < ROWS * TOKENS) {
            const int r = threadIdx.x / TOKENS, t = threadIdx.x % TOKENS, row = stage * ROWS + r;
            float sum = 0.f;
            for (int w = 0; w < warps; ++w) sum += warp_sums[parity][w][threadIdx.x];
            if (row < p.N) p.c[(size_t)t * p.N + row] = Format::finish(p, row, sum);
        }
        cur = next;
    }
}

// "" when the shape fits: one CTA spans K, one thread per 32-value block.
inline std::string gemv_resident_why_not(int64_t M, int64_t K, int max_tokens) {
    if (M > max_tokens) return "GEMV: needs M <= " + std::to_string(max_tokens);
    if (K / 32 > gemv_resident::kMaxThreads)
        return "resident GEMV: one thread per K-block, needs K <= " + std::to_string(32 * gemv_resident::kMaxThreads);
    return "";
}

// As many CTAs as fit on the GPU at once (persistent), at most one per stage of rows.
template <class Format, int TOKENS, bool PDL, int ROWS>
inline void launch_gemv_resident_rows(const typename Format::Args& p, cudaStream_t s, int64_t ctas) {
    auto kernel = gemv_resident_kernel<Format, TOKENS, PDL, ROWS>;
    const int threads = gemv_resident_threads(p.K);
    const dim3 grid((unsigned)std::min<int64_t>(ceil_div(p.N, ROWS), ctas));
    if (PDL)
        launch_with_pdl(kernel, grid, dim3(threads), 0, s, p);
    else
        kernel<<<grid, threads, 0, s>>>(p);
}

// kRows rows per stage, or half as many where that would leave a CTA fewer than two stages.
template <class Format, int TOKENS, bool PDL>
inline void launch_gemv_resident_tokens(const typename Format::Args& p, cudaStream_t s) {
    constexpr int ROWS = gemv_resident::kRows<TOKENS>;
    const int threads = gemv_resident_threads(p.K);
    const int64_t ctas = ctas_in_one_wave(gemv_resident_kernel<Format, TOKENS, PDL, ROWS>, threads, 0);
    if constexpr (ROWS == 4) {
        if (ceil_div(p.N, ROWS) < 2 * ctas) {
            const int64_t half_ctas = ctas_in_one_wave(gemv_resident_kernel<Format, TOKENS, PDL, ROWS / 2>, threads, 0);
            return launch_gemv_resident_rows<Format, TOKENS, PDL, ROWS / 2>(p, s, half_ctas);
        }
    }
    launch_gemv_resident_rows<Format, TOKENS, PDL, ROWS>(p, s, ctas);
}

// M = 1..MAX_TOKENS tokens, each a compile-time count (the why_not above keeps M in range).
template <class Format, bool PDL, int MAX_TOKENS>
inline void launch_gemv_resident(const typename Format::Args& p, cudaStream_t s) {
    static_assert(MAX_TOKENS <= 8, "one instantiation per token count, at most 8");
    with_count_up_to<MAX_TOKENS>(p.M, [&](auto tokens) { launch_gemv_resident_tokens<Format, decltype(tokens)::value, PDL>(p, s); });
}
