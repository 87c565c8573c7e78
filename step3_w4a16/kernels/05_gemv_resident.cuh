// 05 GEMV with resident activations (M = 1, 2): 03's formats, with the loop turned around.
//
// Idea: 03 gives each warp a row and walks K, so every 16 bytes of weights also cost 128 bytes of
// staged FP32 activations from shared memory, and each CTA first stages all of K before its
// first useful load. Here (common/gemv_resident.cuh) a CTA spans K instead: thread b converts
// block b of the fp16 activations to FP32 once, keeps those 32 values in registers, and then
// only streams weights: one 16-byte load per row, the same dequantization and FFMAs as 03
// (each format's load and dot are 03's own), and its share of the row's sum. Nothing is staged,
// so the first weight loads leave at once.
// Improves: no shared-memory activation traffic and no staging prologue (in step 4, rung 08, that
// alone brings the GEMV close to a plain read of the weights).
// Limit: what it cannot remove is the FP32 work per weight (convert, FFMA), now issued by fewer
// warps: about 100 registers per thread leave one 448-thread CTA per SM at K = 14336, where on
// the H200 it is slower than 03 (faster at K = 4096, where more CTAs fit). 32 FP32 activations per
// token and thread: registers allow two tokens; one CTA spans K: K <= 16384.
#pragma once

#include "../../common/gemm_case.h"
#include "../../common/gemv_resident.cuh"
#include "../../common/gpu.cuh"
#include "03_gemv.cuh"

namespace gemv_resident_w4a16 {

template <class Format>  // GemvQ4_0, GemvG128 or GemvW8 (03)
struct ResidentW4A16 {
    using Args = W4A16Args;
    using Weight = typename Format::Chunk;
    struct Activation {
        float4 v[8];  // activations 4j..4j+3 of the thread's 32-value block
        __device__ float4 operator[](int j) const { return v[j]; }
    };
    __device__ static Weight load_weight(const Args& p, int row, int block) { return Format::load(p, row, block); }
    __device__ static Activation load_activation(const Args& p, int token, int block) {
        const uint4* src = reinterpret_cast<const uint4*>(p.a_f16 + (size_t)token * p.K) + 4 * block;
        Activation a;
#pragma unroll
        for (int i = 0; i < 4; ++i) {  // 8 fp16 values per load
            const uint4 h = src[i];
            const float2 f0 = __half22float2(bits_half2(h.x)), f1 = __half22float2(bits_half2(h.y));
            const float2 f2 = __half22float2(bits_half2(h.z)), f3 = __half22float2(bits_half2(h.w));
            a.v[2 * i] = make_float4(f0.x, f0.y, f1.x, f1.y);
            a.v[2 * i + 1] = make_float4(f2.x, f2.y, f3.x, f3.y);
        }
        return a;
    }
    __device__ static float dot(const Weight& w, const Activation& a) { return Format::dot(w, a); }
    __device__ static float finish(const Args& p, int row, float sum) { return Format::finish(p, row, sum); }
};

constexpr int kResidentW4A16MaxTokens = 2;

}  // namespace gemv_resident_w4a16

inline std::string w4a16_gemv_resident_why_not(const GemmCase& c, const Gpu&) {
    using namespace gemv_resident_w4a16;
    return gemv_resident_why_not(c.M, c.K, kResidentW4A16MaxTokens);
}
template <class Format>
inline void launch_w4a16_gemv_resident(const W4A16Args& p, cudaStream_t s) {
    using namespace gemv_resident_w4a16;
    launch_gemv_resident<ResidentW4A16<Format>, false, kResidentW4A16MaxTokens>(p, s);
}
