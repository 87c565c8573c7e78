// parallel_for.h - the host's cores, for the CPU work of every step: the reference GEMM, the
// quantizers and the repacks of whole matrices.
#pragma once

#include <algorithm>
#include <cstdint>
#include <thread>
#include <vector>

inline unsigned reference_threads() { return std::max(1u, std::thread::hardware_concurrency()); }

// Runs body(i) for i in [0, count) on all cores.
template <class Body>
inline void parallel_for(int64_t count, Body body) {
    unsigned nthreads = (unsigned)std::min<int64_t>(reference_threads(), std::max<int64_t>(1, count));
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < nthreads; ++t)
        pool.emplace_back([=] {
            for (int64_t i = t; i < count; i += nthreads) body(i);
        });
    for (auto& th : pool) th.join();
}
