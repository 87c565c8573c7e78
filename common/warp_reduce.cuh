// warp_reduce.cuh - device helpers for adding up values across the 32 lanes of a warp.
#pragma once

// Every lane ends with the sum of all 32 lanes' v (a butterfly of xor shuffles).
__device__ __forceinline__ float warp_reduce_sum(float v) {
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(0xffffffffu, v, offset);
    return v;
}

// c ? a : b as one selp, never a branch (the compiler may otherwise branch on the lane's bit).
__device__ __forceinline__ float select_no_branch(bool c, float a, float b) {
    float r;
    asm("{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %3, 0;\n\tselp.f32 %0, %1, %2, p;\n\t}" : "=f"(r) : "f"(a), "f"(b), "r"((int)c));
    return r;
}

// One level of the transposed butterfly, then the next: N values in v[0..N) become N / 2, each
// now summed over the lanes that differ in bit OFFSET. A template per level, so that every index
// is a constant and v stays in registers.
template <int N, int OFFSET, int V>
__device__ __forceinline__ void halve_sums(float (&v)[V], int lane) {
    if constexpr (N > 1) {
        const bool upper = (lane & OFFSET) != 0;
#pragma unroll
        for (int i = 0; i < N / 2; ++i) {
            const float send = select_no_branch(upper, v[i], v[i + N / 2]);
            const float keep = select_no_branch(upper, v[i + N / 2], v[i]);
            v[i] = keep + __shfl_xor_sync(0xffffffffu, send, OFFSET);
        }
        halve_sums<N / 2, OFFSET / 2>(v, lane);
    }
}

// V sums at once (V a power of two up to 32): lane L ends with the warp's sum of v[L / (32 / V)].
// Adding each value with its own butterfly costs V x 5 shuffles and adds; here each level of the
// butterfly halves what a lane holds: the lanes whose bit `offset` is set keep the upper half of
// their values and send the lower half to their partner, which keeps the lower half (so the
// partner adds what this lane sends). After log2(V) levels a lane holds one value, summed over the
// lanes that share its upper lane bits, and the remaining levels are warp_reduce_sum's: V - 1 +
// 5 - log2(V) shuffles in all (V = 16: 16 instead of 80). v is used up.
template <int V>
__device__ __forceinline__ float warp_reduce_sums_transposed(float (&v)[V]) {
    static_assert(V >= 1 && V <= 32 && (V & (V - 1)) == 0, "a power of two, at most one value per lane at the end");
    halve_sums<V, 16>(v, (int)threadIdx.x % 32);
    float sum = v[0];
#pragma unroll
    for (int offset = 16 / V; offset > 0; offset /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, offset);
    return sum;
}
