// split_tail.cuh - a tile schedule for kernels that run one CTA per SM: whole tiles for the full
// waves, and the last, partial wave's tiles split along K so that it fills the GPU (step 4's rung 16).
//
// T output tiles on S SMs take ceil(T / S) waves. When T is a little over a multiple of S, the
// last wave holds T % S tiles and most SMs idle through it: at M = 512, N = 14336 rung 16 has 448
// tiles of 128 x 128, 3.39 waves, and pays for 4. Splitting only those tail tiles into P pieces of
// K gives P·(T % S) shorter CTAs: the last wave then takes ceil(P·(T % S) / S) pieces of 1/P of a
// tile's K each, half a wave for P = 2 at that shape (CUTLASS calls the family "stream-K"; this
// is its simplest member, data-parallel waves with a split-K tail). A grid of fewer tiles than
// SMs is all tail: at M = 128, N = 4096 rung 16's 32 tiles become 128 pieces of a quarter of K.
//
// The pieces of a tail tile never wait for one another (so the schedule cannot deadlock however
// the GPU places its CTAs): each writes its partial sums to a workspace, and a second, small
// kernel adds them, in the order of the pieces, so the result is the same in every run.
#pragma once

#include "pdl.cuh"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>

constexpr int kMaxSplitParts = 8;

// Where a launch's CTAs go: CTAs 0 .. whole - 1 take tiles 0 .. whole - 1 whole; the next
// tail · parts CTAs take piece (c - whole) % parts of tile whole + (c - whole) / parts.
struct SplitTail {
    int whole = 0, tail = 0, parts = 1;  // whole + tail: every tile of the launch
    int k_steps = 0;             // the K loop's length (stages), split as evenly as it goes
    float* partials = nullptr;   // [tail][parts][VALUES / 4][threads] float4s of partial sums
    __host__ __device__ int ctas() const { return whole + tail * parts; }
};

// A CTA's share of the work: its tile and the stages [k_begin, k_end) of K; piece is -1 for a
// whole tile.
struct SplitWork {
    int tile, piece, k_begin, k_end;
    __host__ __device__ int k_steps() const { return k_end - k_begin; }
};
__host__ __device__ __forceinline__ SplitWork split_work(const SplitTail& s, int cta) {
    if (cta < s.whole) return {cta, -1, 0, s.k_steps};
    const int t = (cta - s.whole) / s.parts, piece = (cta - s.whole) % s.parts;
    return {s.whole + t, piece, piece * s.k_steps / s.parts, (piece + 1) * s.k_steps / s.parts};
}

// blockIdx.x and threadIdx.x read again: a kernel whose main loop needs every register derives
// what it needs after the loop from them afresh, rather than holding it through the loop (where
// the compiler would spill it). asm volatile is never merged with the first read.
__device__ __forceinline__ int cta_index_again() {
    int x;
    asm volatile("mov.u32 %0, %%ctaid.x;" : "=r"(x));
    return x;
}
__device__ __forceinline__ int thread_index_again() {
    int x;
    asm volatile("mov.u32 %0, %%tid.x;" : "=r"(x));
    return x;
}

// The schedule for `tiles` tiles of `k_steps` stages on `sms` SMs (one CTA each), by a model of
// the time in waves of whole tiles: the last wave of P pieces takes ceil(P·tail / sms) rounds of
// the longest piece, ceil(k_steps / P) / k_steps of a tile, and each extra piece costs a CTA's
// start (its first stages' round trip) and its partial sums' trip through L2, taken as 3% of a
// wave each. The tail is split only when that saves a tenth of a wave or more.
inline SplitTail plan_split_tail(int tiles, int sms, int k_steps) {
    SplitTail s;
    s.whole = tiles, s.k_steps = k_steps;
    const int tail = tiles % sms;  // fewer tiles than SMs: the whole grid is one partial wave
    if (tail == 0) return s;       // whole waves: nothing idles that a split would fill
    const double one_more_wave = 1.0, piece_cost = 0.03;
    double best = one_more_wave - 0.1;
    for (int p = 2; p <= std::min(kMaxSplitParts, k_steps); ++p) {
        const int rounds = (tail * p + sms - 1) / sms, longest = (k_steps + p - 1) / p;
        const double waves = rounds * (double)longest / k_steps + piece_cost * (p - 1);
        if (waves < best) best = waves, s.parts = p;
    }
    if (s.parts > 1) s.whole = tiles - tail, s.tail = tail;
    return s;
}

// The workspace a schedule of tiles of `tile_values` outputs can need on `sms` SMs: at most
// sms - 1 tail tiles of at most kMaxSplitParts pieces.
inline size_t split_tail_floats(int sms, int tile_values) { return (size_t)std::max(sms - 1, 0) * kMaxSplitParts * tile_values; }

// A tail piece's end, in the kernel: the threads that hold the tile's sums (THREADS of them,
// VALUES each; holder = 0 .. THREADS - 1) store them to the workspace, float4 q of holder t at
// [tail tile][piece][q][t] (a warp's 32 float4s are 512 contiguous bytes). Nothing else: in step
// 4's rung 16 these are math warps whose main loop uses every register they have, and any more
// code of theirs after that loop changes how the compiler allocates it (LAB_NOTES.md).
template <int VALUES, int THREADS>
__device__ __forceinline__ void store_split_piece(const float* acc, const SplitTail& s, const SplitWork& w, int holder) {
    static_assert(VALUES % 4 == 0, "the sums move as float4s");
    float4* mine = reinterpret_cast<float4*>(s.partials) + (size_t)((w.tile - s.whole) * s.parts + w.piece) * (VALUES / 4) * THREADS + holder;
#pragma unroll
    for (int q = 0; q < VALUES / 4; ++q) mine[q * THREADS] = make_float4(acc[4 * q], acc[4 * q + 1], acc[4 * q + 2], acc[4 * q + 3]);
}

// ... and after the kernel, this one (launched with PDL: it starts while the last pieces finish,
// and waits for them): a CTA per tail tile and float4 q of its holders, a thread per holder, adds
// the pieces' sums in the pieces' order and hands the float4 to store(tail tile's index among all
// tiles, q, holder, sum). So many small CTAs spread a few tail tiles over every SM (a CTA per
// tile left 100 of 132 idle at M = 128: 23.9 µs against 21.4, LAB_NOTES.md); a warp's 32 loads
// of a piece are 512 contiguous bytes, every piece's issued before the first sum.
template <int VALUES, int THREADS, class Store>
__global__ void __launch_bounds__(THREADS) sum_split_tiles(SplitTail s, Store store) {
    wait_for_prerequisite_grids();
    const int tile = blockIdx.x, q = blockIdx.y, holder = threadIdx.x;
    const float4* sums = reinterpret_cast<const float4*>(s.partials) + ((size_t)tile * s.parts * (VALUES / 4) + q) * THREADS + holder;
    float4 piece[kMaxSplitParts];
#pragma unroll
    for (int p = 0; p < kMaxSplitParts; ++p)
        if (p < s.parts) piece[p] = sums[(size_t)p * (VALUES / 4) * THREADS];
    float4 total = piece[0];
#pragma unroll
    for (int p = 1; p < kMaxSplitParts; ++p)
        if (p < s.parts) total.x += piece[p].x, total.y += piece[p].y, total.z += piece[p].z, total.w += piece[p].w;
    store(s.whole + tile, q, holder, total);
}
// Its grid: a row per tail tile, a column per float4 of a holder's VALUES sums.
template <int VALUES>
inline dim3 sum_split_grid(const SplitTail& s) {
    static_assert(VALUES % 4 == 0, "the sums move as float4s");
    return dim3(s.tail, VALUES / 4);
}
