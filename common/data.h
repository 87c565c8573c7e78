// data.h - the matrices every step multiplies: cuRAND's Philox generator, run on the host.
//
// The host generator needs no GPU and produces the sequence the device generator would, so the
// same --seed gives the same matrices on every machine. Each tensor of a step gets its own
// stream id, so A and W are independent even with one seed.
#pragma once

#include "errors.cuh"

#include <curand.h>

#include <algorithm>
#include <cstdint>
#include <vector>

inline curandGenerator_t make_host_generator(uint64_t seed, uint64_t stream_id) {
    curandGenerator_t gen;
    CURAND_CHECK(curandCreateGeneratorHost(&gen, CURAND_RNG_PSEUDO_PHILOX4_32_10));
    CURAND_CHECK(curandSetPseudoRandomGeneratorSeed(gen, seed * 1000003ull + stream_id));
    return gen;
}

// N(mean, stddev). cuRAND's Box-Muller makes values in pairs, so an odd count is rounded up.
inline void fill_normal(std::vector<float>& out, uint64_t seed, uint64_t stream_id, float mean = 0.f,
                        float stddev = 1.f) {
    curandGenerator_t gen = make_host_generator(seed, stream_id);
    std::vector<float> tmp(out.size() + (out.size() & 1));
    CURAND_CHECK(curandGenerateNormal(gen, tmp.data(), tmp.size(), mean, stddev));
    std::copy(tmp.begin(), tmp.begin() + out.size(), out.begin());
    CURAND_CHECK(curandDestroyGenerator(gen));
}

// U(lo, hi).
inline void fill_uniform(std::vector<float>& out, uint64_t seed, uint64_t stream_id, float lo, float hi) {
    curandGenerator_t gen = make_host_generator(seed, stream_id);
    CURAND_CHECK(curandGenerateUniform(gen, out.data(), out.size()));  // (0, 1]
    for (float& v : out) v = lo + (hi - lo) * v;
    CURAND_CHECK(curandDestroyGenerator(gen));
}
