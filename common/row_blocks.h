// row_blocks.h - a repacked weight stream reordered so that a copy engine brings one stage of a
// row block (several row tiles, one stretch of K) with one request.
//
// The tensor-core repacks store each row tile's pieces (a piece: one tile x one stretch of K, in
// fragment order) one after another along K: [tile][piece]. A kernel whose CTA multiplies a block
// of T row tiles and copies a stage with the TMA would then ask for T pieces per stage, one
// request each; the copy engine spends a fixed time on every request, so small ones cost more
// than their bytes (step3_w4a16/LAB_NOTES.md, "The Hopper kernel"). Reordered to
// [row block][piece along K][tile in block], a stage of a row block is contiguous. The pieces
// themselves are unchanged. Tiles past the last one (N not a multiple of T tiles) are zeros.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

// Pieces [tile][p] of `words_per_piece` words (p < pieces_per_tile), reordered to
// [block][p][tile in block] for blocks of `block_tiles` tiles.
inline std::vector<uint32_t> order_by_row_block(const std::vector<uint32_t>& src, int64_t row_tiles, int64_t pieces_per_tile,
                                                int words_per_piece, int block_tiles) {
    const int64_t blocks = (row_tiles + block_tiles - 1) / block_tiles;
    std::vector<uint32_t> dst(blocks * block_tiles * pieces_per_tile * words_per_piece, 0);
    for (int64_t tile = 0; tile < row_tiles; ++tile)
        for (int64_t p = 0; p < pieces_per_tile; ++p) {
            const int64_t block = tile / block_tiles, j = tile % block_tiles;
            std::copy_n(&src[(tile * pieces_per_tile + p) * words_per_piece], words_per_piece,
                        &dst[((block * pieces_per_tile + p) * block_tiles + j) * words_per_piece]);
        }
    return dst;
}
