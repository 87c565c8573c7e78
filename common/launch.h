// launch.h - launch geometry: how many blocks cover a size, and whether CUDA can launch them.
//
// A launcher that cannot cover a size (grid.y and grid.z stop at 65535 blocks) must say so
// before it launches: the step prints a SKIP row with the reason instead of a CUDA error.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <type_traits>

inline int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

constexpr int64_t kMaxGridX = 2147483647;  // CUDA's limits on a grid's dimensions
constexpr int64_t kMaxGridYZ = 65535;

// "" when `blocks` blocks fit in the grid dimension `dim` ('x', 'y' or 'z'), else the reason.
inline std::string grid_limit_reason(char dim, int64_t blocks) {
    const int64_t limit = dim == 'x' ? kMaxGridX : kMaxGridYZ;
    if (blocks <= limit) return "";
    return "grid." + std::string(1, dim) + " would be " + std::to_string(blocks) + " blocks, CUDA allows " +
           std::to_string(limit);
}

// The first non-empty reason, or "" when every requirement is met.
inline std::string first_reason(std::initializer_list<std::string> reasons) {
    for (const auto& r : reasons)
        if (!r.empty()) return r;
    return "";
}

// Calls launch(std::integral_constant<int, T>{}) with T = m, for 1 <= m <= MAX (m > MAX: MAX): a
// run-time count (the tokens of a GEMV) made the compile-time count a kernel is instantiated for.
template <int MAX, int T = 1, class Launch>
inline void with_count_up_to(int64_t m, Launch&& launch) {
    static_assert(T >= 1 && T <= MAX, "counts from 1 to MAX");
    if constexpr (T < MAX) {
        if (m > T) return with_count_up_to<MAX, T + 1>(m, launch);
    }
    launch(std::integral_constant<int, T>{});
}
