// ptx_fragment_tables.h - the register fragments of mma.sync, typed from the PTX ISA's figures
// ("Matrix Fragments for mma.m16n8k16 with floating point type" and "... mma.m16n8k32" with
// .s8/.u8), for the tests to check the kernels' repacks against.
//
// These tables are written from the ISA's side: given an element (row, col) of a fragment, which
// lane holds it, in which register and which part of that register. The repacks
// (step3_w4a16/w4a16_formats.h, step4_w4a8/w4a8_mma_layout.h) are written from the lane's side,
// with index functions of their own; a test that used those same functions to check them would
// only check the code against itself. Nothing here includes project code.
//
// The ISA names the lanes by groupID = lane / 4 and threadID_in_group = lane % 4.
#pragma once

struct FragmentSlot {
    int lane;  // 0..31
    int reg;   // which 32-bit register of the lane
    int part;  // which fp16 half (0 = low 16 bits) or which int8 byte (0 = lowest) of it
};

// m16n8k16, fp16 A (16 rows x 16 columns, row-major). The ISA: element a_i of a lane (i = 0..7,
// two per .f16x2 register, a_0 in the low half of register 0) lies at
//   row = groupID      for i in {0, 1, 4, 5},  groupID + 8 otherwise,
//   col = 2·threadID_in_group + (i & 1)        for i < 4,  the same + 8 for i >= 4.
inline FragmentSlot m16n8k16_a_slot(int row, int col) {
    const int i = (col & 1) + 2 * (row / 8) + 4 * (col / 8);
    return {4 * (row % 8) + (col % 8) / 2, i / 2, i % 2};
}

// m16n8k16, fp16 B (16 rows of K x 8 columns). b_i (i = 0..3, two per register):
//   row = 2·threadID_in_group + (i & 1)  for i < 2,  the same + 8 for i >= 2;   col = groupID.
inline FragmentSlot m16n8k16_b_slot(int row, int col) {
    const int i = (row & 1) + 2 * (row / 8);
    return {4 * col + (row % 8) / 2, i / 2, i % 2};
}

// m16n8k16 and m16n8k32, the f32 / s32 accumulator C (16 x 8), one element per register c_i:
//   row = groupID for i < 2, groupID + 8 otherwise;   col = 2·threadID_in_group + (i & 1).
inline FragmentSlot m16n8_c_slot(int row, int col) {
    return {4 * (row % 8) + col / 2, (col & 1) + 2 * (row / 8), 0};
}

// m16n8k32, s8 A (16 rows x 32 columns). a_i (i = 0..15, four bytes per register, a_0 the lowest
// byte of register 0):
//   row = groupID for i in 0..3 and 8..11,  groupID + 8 otherwise,
//   col = 4·threadID_in_group + (i & 3)  for i < 8,  the same + 16 for i >= 8.
inline FragmentSlot m16n8k32_a_slot(int row, int col) {
    const int i = (col & 3) + 4 * (row / 8) + 8 * (col / 16);
    return {4 * (row % 8) + (col % 16) / 4, i / 4, i % 4};
}

// m16n8k32, s8 B (32 rows of K x 8 columns). b_i (i = 0..7, four bytes per register):
//   row = 4·threadID_in_group + (i & 3)  for i < 4,  the same + 16 for i >= 4;   col = groupID.
inline FragmentSlot m16n8k32_b_slot(int row, int col) {
    const int i = (row & 3) + 4 * (row / 16);
    return {4 * col + (row % 16) / 4, i / 4, i % 4};
}
