// fragment_layouts - the register fragments of mma.sync (and wgmma's register A, four mma.sync A
// fragments one under the other) as the kernels lay them out, as JSON, for
// the figures of step 3's tensor-core primer (scripts/draw_fragments.py) and for the test that
// keeps those figures equal to the code (step3_w4a16/figures/fragments.json).
//
// The A fragments come from the repacks' own index functions, the ones the kernels' data is laid
// out by (mma_a_position for m16n8k16 fp16, mma8_a_position for m16n8k32 int8); B and C from the
// PTX ISA's tables (tests/ptx_fragment_tables.h), which the kernels meet through ldmatrix and the
// epilogue. test_common and the steps' CPU tests check the two sides against each other.
//
// usage: fragment_layouts          one JSON object: fragment name -> rows, cols, and per element
//                                  (row-major) [lane, register, part]
#include "../step3_w4a16/w4a16_formats.h"
#include "../step4_w4a8/w4a8_mma_layout.h"
#include "ptx_fragment_tables.h"

#include <cstdio>
#include <vector>

struct Layout {
    const char* name;
    const char* what;
    int rows, cols;
    std::vector<FragmentSlot> slot;  // [row * cols + col]
};

static Layout from_slots(const char* name, const char* what, int rows, int cols, FragmentSlot (*slot)(int, int)) {
    Layout l{name, what, rows, cols, {}};
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) l.slot.push_back(slot(r, c));
    return l;
}

int main() {
    std::vector<Layout> layouts;
    Layout a16{"m16n8k16_A_f16", "A: 16 rows x 16 of K, fp16 (two per register); step 3's repack", 16, 16,
               std::vector<FragmentSlot>(16 * 16)};
    for (int lane = 0; lane < 32; ++lane)
        for (int i = 0; i < 8; ++i) {  // nibble i of a lane's word: register i % 4, half i / 4
            const MmaFragmentPosition p = mma_a_position(lane, i);
            a16.slot[p.row * 16 + p.col] = {lane, i % 4, i / 4};
        }
    layouts.push_back(a16);
    // wgmma's A from registers (m64nNk16, step 3's rung 07): warp w of the warpgroup holds rows
    // 16w..16w+15 in the A layout above, so rung 07 gives warp w row tile w of its row block.
    Layout wg{"wgmma_m64k16_A_f16", "wgmma A from registers: 64 rows x 16 of K, thread T = 32 x warp + lane; rung 07", 64, 16,
              std::vector<FragmentSlot>(64 * 16)};
    for (int warp = 0; warp < 4; ++warp)
        for (int r = 0; r < 16; ++r)
            for (int c = 0; c < 16; ++c) {
                const FragmentSlot s = a16.slot[r * 16 + c];
                wg.slot[(16 * warp + r) * 16 + c] = {32 * warp + s.lane, s.reg, s.part};
            }
    layouts.push_back(wg);
    layouts.push_back(from_slots("m16n8k16_B_f16", "B: 16 of K x 8 columns, fp16 (two per register)", 16, 8, m16n8k16_b_slot));
    layouts.push_back(from_slots("m16n8_C_f32", "C and D: 16 rows x 8 columns, one FP32 or int32 per register", 16, 8, m16n8_c_slot));
    Layout a32{"m16n8k32_A_s8", "A: 16 rows x 32 of K, int8 (four per register); step 4's repack", 16, 32,
               std::vector<FragmentSlot>(16 * 32)};
    for (int lane = 0; lane < 32; ++lane)
        for (int j = 0; j < 4; ++j)
            for (int e = 0; e < 4; ++e) {
                const Int8FragmentPosition p = mma8_a_position(lane, j, e);
                a32.slot[p.row * 32 + p.col] = {lane, j, e};
            }
    layouts.push_back(a32);
    layouts.push_back(from_slots("m16n8k32_B_s8", "B: 32 of K x 8 columns, int8 (four per register)", 32, 8, m16n8k32_b_slot));

    std::printf("{\n");
    for (size_t i = 0; i < layouts.size(); ++i) {
        const Layout& l = layouts[i];
        std::printf("  \"%s\": {\"what\": \"%s\", \"rows\": %d, \"cols\": %d, \"slots\": [", l.name, l.what, l.rows, l.cols);
        for (size_t k = 0; k < l.slot.size(); ++k)
            std::printf("%s[%d, %d, %d]", k ? ", " : "", l.slot[k].lane, l.slot[k].reg, l.slot[k].part);
        std::printf("]}%s\n", i + 1 < layouts.size() ? "," : "");
    }
    std::printf("}\n");
    return 0;
}
