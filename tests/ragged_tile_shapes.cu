// ragged_tile_shapes - the token counts M at which each tile shape of the tensor-core kernels runs
// with a ragged last token tile, for the sanitizer tests (tests/ragged_tiles.sh). Read from the
// kernels' own tile lists and launch rules (mma_int8::Tiles and tile_index, mma_g128::...), so that
// retuning a tile changes the shapes tested, with no list typed by hand.
//
// For a tile of B tokens the last tile holds r = M mod B tokens, in the classes 1, 3 (a few),
// B/2 - 1 (just under half), B/2 + 1 (just over half) and B - 1 (one short of full), each where
// the launch rule gives this tile some M with that remainder: the smallest such M above B (a full
// tile before the ragged one), else the smallest.
//
// usage: ragged_tile_shapes step3|step4 N     one line per shape: M tile=I tokens=B last=R
#include "../step3_w4a16/kernels/04_mma_g128.cuh"
#include "../step4_w4a8/kernels/09_mma_int8.cuh"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <set>
#include <tuple>
#include <utility>

constexpr int kAssumedSms = 132;  // the H200 the tests' shapes were chosen on (04's rule asks for it)
constexpr int64_t kLargestM = 1024;

template <class Tiles, size_t... I>
void print_shapes(const std::function<int(int64_t)>& tile_of, std::index_sequence<I...>) {
    const int tokens[] = {std::tuple_element_t<I, Tiles>::kBM...};
    for (int t = 0; t < (int)sizeof...(I); ++t) {
        const int b = tokens[t];
        const std::set<int> classes = {1, 3, b / 2 - 1, b / 2 + 1, b - 1};
        for (int r : classes) {
            if (r < 1 || r >= b) continue;
            int64_t pick = 0;
            for (int64_t m = 1; m <= kLargestM; ++m)
                if (tile_of(m) == t && m % b == r && (pick == 0 || (pick < b && m > b))) {
                    pick = m;
                    if (m > b) break;
                }
            if (pick) std::printf("%lld tile=%d tokens=%d last=%d\n", (long long)pick, t, b, r);
        }
    }
}

int main(int argc, char** argv) {
    if (argc != 3 || (std::strcmp(argv[1], "step3") != 0 && std::strcmp(argv[1], "step4") != 0) || std::atoll(argv[2]) < 1) {
        std::fprintf(stderr, "usage: ragged_tile_shapes step3|step4 N\n");
        return 2;
    }
    const int64_t N = std::atoll(argv[2]);
    if (std::strcmp(argv[1], "step4") == 0) {
        using Tiles = mma_int8::Tiles;
        print_shapes<Tiles>([](int64_t m) { return mma_int8::tile_index(m); }, std::make_index_sequence<std::tuple_size_v<Tiles>>{});
    } else {
        using Tiles = mma_g128::Tiles;
        print_shapes<Tiles>([N](int64_t m) { return mma_g128::tile_index(m, N, kAssumedSms); },
                            std::make_index_sequence<std::tuple_size_v<Tiles>>{});
    }
    return 0;
}
