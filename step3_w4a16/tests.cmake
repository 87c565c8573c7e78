# Step 3 tests (included by the top-level CMakeLists.txt).
# CPU: the group-128 and W8 quantizers (group-128 against golden vectors of an independent model),
# the mma repacking against PTX's fragment tables, the 0x6400 trick for every code, the reference,
# and the tolerance against its finest canary.
add_executable(test_w4a16_cpu ${CMAKE_SOURCE_DIR}/step3_w4a16/test_w4a16_cpu.cu)
target_include_directories(test_w4a16_cpu PRIVATE ${CMAKE_SOURCE_DIR}/common)
target_link_libraries(test_w4a16_cpu PRIVATE CUDA::curand Threads::Threads)
target_compile_definitions(test_w4a16_cpu PRIVATE QGF_G128_GOLDEN_DIR="${CMAKE_SOURCE_DIR}/tests/golden_g128")
add_test(NAME step3_cpu_formats_and_repack COMMAND test_w4a16_cpu)
set_tests_properties(step3_cpu_formats_and_repack PROPERTIES LABELS cpu TIMEOUT 300)
# The group-128 golden vectors are what the Python model (tests/g128_model.py) writes, byte for byte.
add_test(NAME step3_g128_golden_matches_model COMMAND python3 ${CMAKE_SOURCE_DIR}/tests/g128_model.py check
         ${CMAKE_SOURCE_DIR}/tests/golden_g128)
set_tests_properties(step3_g128_golden_matches_model PROPERTIES LABELS cpu TIMEOUT 60)

# GPU: the lesson cases and awkward shapes, every kernel correct or a SKIP with its reason. Each shape
# names, after its colon, the kernels that must run and PASS it: every lesson kernel whose limits admit
# it on an H200 (a SKIP for an older GPU's architecture excepted).
# K = 4224 and 128 serve group-128 (and Q4_0); K = 4128 and 32 only Q4_0 (group-128 SKIPs).
# M = 1..8, 9, 17, 37 and 129 take each of mma_g128's tile shapes.
add_gpu_test(step3_lesson_cases step3_w4a16)
# The read floor (common/read_floor.cuh) runs, and the XOR of every word it reads is the CPU's.
add_test(NAME step3_read_floor COMMAND step3_w4a16 --read-floor --iters 3 --warmup 1)
set_tests_properties(step3_read_floor PROPERTIES SKIP_RETURN_CODE 77 LABELS gpu TIMEOUT 300)
# Its kernel under the sanitizers: the grid-stride reads stay inside the matrix (memcheck, with the
# guard zone after each allocation), and each CTA's XOR is read only after the barrier that
# follows its warps' writes (racecheck).
add_sanitizer_run(step3_memcheck_read_floor memcheck step3_w4a16 --read-floor --iters 1 --warmup 0)
add_sanitizer_run(step3_racecheck_read_floor racecheck step3_w4a16 --read-floor --iters 1 --warmup 0)
# gemv_mma_g128: 5x33x256 is a CTA of 4 warps and 3 row tiles; at M = 8, K = 12288 is the most its
# staged fp16 activations allow in 227 KB, and 14336 a SKIP with the reason.
add_gpu_shape_tests(step3 step3_w4a16
  1x100x128:naive+smem_tiled+gemv_q4_0+gemv_g128+gemv_w8+mma_g128+gemv_resident_q4_0+gemv_resident_g128+gemv_mma_q4_0+gemv_mma_g128+wgmma_g128+wgmma_q4_0+wgmma_g128_overlap+wgmma_g128_pair+wgmma_g128_wide+auto_g128+gemv_tma_q4_0+gemv_tma_g128
  2x4100x4224:naive+smem_tiled+gemv_q4_0+gemv_g128+gemv_w8+mma_g128+gemv_resident_q4_0+gemv_resident_g128+gemv_mma_q4_0+gemv_mma_g128+wgmma_g128+wgmma_q4_0+wgmma_g128_overlap+wgmma_g128_pair+wgmma_g128_wide+auto_g128+gemv_tma_q4_0+gemv_tma_g128
  3x1x4224:naive+smem_tiled+gemv_q4_0+gemv_g128+gemv_w8+mma_g128+gemv_mma_q4_0+gemv_mma_g128+wgmma_g128+wgmma_q4_0+wgmma_g128_overlap+wgmma_g128_pair+wgmma_g128_wide+auto_g128+gemv_tma_q4_0+gemv_tma_g128
  9x100x128:naive+smem_tiled+mma_g128+wgmma_g128+wgmma_q4_0+wgmma_g128_overlap+wgmma_g128_pair+wgmma_g128_wide+auto_g128
  17x4100x4224:naive+smem_tiled+mma_g128+wgmma_g128+wgmma_q4_0+wgmma_g128_overlap+wgmma_g128_pair+wgmma_g128_wide+auto_g128
  37x100x4224:naive+smem_tiled+mma_g128+wgmma_g128+wgmma_q4_0+wgmma_g128_overlap+wgmma_g128_pair+wgmma_g128_wide+auto_g128
  129x4100x128:naive+smem_tiled+mma_g128+wgmma_g128+wgmma_q4_0+wgmma_g128_overlap+wgmma_g128_pair+wgmma_g128_wide+auto_g128
  1x4100x4128:naive+smem_tiled+gemv_q4_0+gemv_w8+gemv_resident_q4_0
  2x100x32:naive+smem_tiled+gemv_q4_0+gemv_w8+gemv_resident_q4_0
  8x100x4224:naive+smem_tiled+gemv_q4_0+gemv_g128+gemv_w8+mma_g128+gemv_mma_q4_0+gemv_mma_g128+wgmma_g128+wgmma_q4_0+wgmma_g128_overlap+wgmma_g128_pair+wgmma_g128_wide+auto_g128+gemv_tma_q4_0+gemv_tma_g128
  5x33x256:naive+smem_tiled+gemv_q4_0+gemv_g128+gemv_w8+mma_g128+gemv_mma_q4_0+gemv_mma_g128+wgmma_g128+wgmma_q4_0+wgmma_g128_overlap+wgmma_g128_pair+wgmma_g128_wide+auto_g128+gemv_tma_q4_0+gemv_tma_g128
  8x37x12288:naive+smem_tiled+mma_g128+gemv_mma_q4_0+gemv_mma_g128+wgmma_g128+wgmma_q4_0+wgmma_g128_overlap+wgmma_g128_pair+wgmma_g128_wide+auto_g128
  8x37x14336:naive+smem_tiled+mma_g128+wgmma_g128+wgmma_q4_0+wgmma_g128_overlap+wgmma_g128_pair+wgmma_g128_wide+auto_g128)
# The Hopper rung at the sizes issue 28 names (N = 4100: a ragged last row block; K = 4224: 66
# K-tiles, which the splits share unevenly): token tiles of 8, 16, 64 and 128, K split 8 ways
# (M <= 16), 4 ways (M = 37) and 2 ways (M = 129: 66 tiles of 128 tokens); M = 513: 33 row blocks x 3
# tiles of 256 tokens (the last with 1) are 75% of a 132-SM GPU, so wgmma_g128 takes the wide tiles;
# 1100 at K = 640: 5 wide tiles per row block (the last with 76), unsplit, through a ring of 5 stages twice.
add_gpu_shape_tests(step3_wgmma step3_w4a16
  1x4100x4224:mma_g128+wgmma_g128+wgmma_q4_0+wgmma_g128_overlap+wgmma_g128_pair+wgmma_g128_wide+wgmma_g128_split+auto_g128+gemv_mma_q4_0+gemv_mma_g128+gemv_tma_q4_0+gemv_tma_g128
  3x4100x4224:mma_g128+wgmma_g128+wgmma_q4_0+wgmma_g128_overlap+wgmma_g128_pair+wgmma_g128_wide+wgmma_g128_split+auto_g128+gemv_mma_q4_0+gemv_mma_g128+gemv_tma_q4_0+gemv_tma_g128
  16x4100x4224:mma_g128+wgmma_g128+wgmma_q4_0+wgmma_g128_overlap+wgmma_g128_pair+wgmma_g128_wide+wgmma_g128_split+auto_g128
  37x4100x4224:mma_g128+wgmma_g128+wgmma_q4_0+wgmma_g128_overlap+wgmma_g128_pair+wgmma_g128_wide+wgmma_g128_split+auto_g128
  129x4100x4224:mma_g128+wgmma_g128+wgmma_q4_0+wgmma_g128_overlap+wgmma_g128_pair+wgmma_g128_wide+wgmma_g128_split+auto_g128
  513x4100x4224:mma_g128+wgmma_g128+wgmma_q4_0+wgmma_g128_overlap+wgmma_g128_pair+wgmma_g128_wide+wgmma_g128_split+auto_g128
  1100x4100x640:mma_g128+wgmma_g128+wgmma_q4_0+wgmma_g128_overlap+wgmma_g128_wide+wgmma_g128_split+auto_g128)

foreach(canary ignore_zero skip_last_group fp32_weights)
  add_canary_test(step3_canary_${canary} step3_w4a16 canary_${canary} --m 37 --n 4100 --k 4224)
endforeach()

# mma_g128: every tile shape, every class of ragged last token tile (tests/ragged_tile_shapes.cu);
# N = 4100 lets M > 128 take the large tile.
add_ragged_tile_test(step3_memcheck_ragged_tiles_mma_g128 memcheck step3 step3_w4a16 mma_g128 4100 256)
# wgmma_g128 under all three checkers (the TMA and mbarrier pipeline, the cluster's sums): a ragged
# last token tile and row tile with 128 tokens and no split (200x8200x640: 130 tiles), with 64
# tokens and K split 8 ways unevenly (37x100x4224), and 16 tokens split 8 ways, each split's 16
# K-tiles going round a ring of 8 stages twice (16x100x8192).
foreach(tool memcheck racecheck synccheck)
  add_sanitizer_test(step3_${tool}_wgmma_200x8200x640 ${tool} step3_w4a16 --m 200 --n 8200 --k 640 --kernel wgmma_g128,wgmma_q4_0,wgmma_g128_overlap,wgmma_g128_pair,wgmma_g128_wide,wgmma_g128_split)
  add_sanitizer_test(step3_${tool}_wgmma_37x100x4224 ${tool} step3_w4a16 --m 37 --n 100 --k 4224 --kernel wgmma_g128,wgmma_q4_0,wgmma_g128_overlap,wgmma_g128_pair,wgmma_g128_wide,wgmma_g128_split)
  add_sanitizer_test(step3_${tool}_wgmma_16x100x8192 ${tool} step3_w4a16 --m 16 --n 100 --k 8192 --kernel wgmma_g128,wgmma_q4_0,wgmma_g128_overlap,wgmma_g128_pair,wgmma_g128_wide,wgmma_g128_split)
endforeach()
add_sanitizer_test(step3_memcheck_37x100x4224 memcheck step3_w4a16 --m 37 --n 100 --k 4224)
add_sanitizer_test(step3_memcheck_3x4101x128 memcheck step3_w4a16 --m 3 --n 4101 --k 128)
add_sanitizer_test(step3_racecheck_129x100x4224 racecheck step3_w4a16 --m 129 --n 100 --k 4224)
add_sanitizer_test(step3_racecheck_2x100x4224 racecheck step3_w4a16 --m 2 --n 100 --k 4224)
# gemv_resident_*: N = 4101 is not a multiple of the rows a CTA takes per stage (4).
add_sanitizer_test(step3_memcheck_1x4101x4224 memcheck step3_w4a16 --m 1 --n 4101 --k 4224)
# gemv_mma_g128 alone: a ragged N with a CTA of 2 warps; 513 row tiles, so CTAs reuse each buffer of partial tiles.
add_sanitizer_test(step3_memcheck_gemv_mma_3x4101x128 memcheck step3_w4a16 --m 3 --n 4101 --k 128 --kernel gemv_mma_g128)
add_sanitizer_test(step3_racecheck_gemv_mma_2x8200x4224 racecheck step3_w4a16 --m 2 --n 8200 --k 4224 --kernel gemv_mma_g128)
add_sanitizer_test(step3_synccheck_gemv_mma_2x2000x4224 synccheck step3_w4a16 --m 2 --n 2000 --k 4224 --kernel gemv_mma_g128)
# gemv_tma_*: at M = 3, K = 14336 the staged activations leave 3 stages for the 7 of each tile
# group (the ring wraps twice per group); at M = 1 (stages of 16 chunks) 9 stages for 14; K = 4224
# makes a group's last stage short (66 = 2 x 32 + 2 chunks); N = 4400 gives 6 CTAs two groups (both
# buffers of partial tiles), N = 100 and 1 a group whose second tile does not exist.
foreach(tool memcheck racecheck synccheck)
  add_sanitizer_test(step3_${tool}_gemv_tma_3x100x14336 ${tool} step3_w4a16 --m 3 --n 100 --k 14336 --kernel gemv_tma_q4_0,gemv_tma_g128)
  add_sanitizer_test(step3_${tool}_gemv_tma_1x100x14336 ${tool} step3_w4a16 --m 1 --n 100 --k 14336 --kernel gemv_tma_q4_0,gemv_tma_g128)
endforeach()
add_sanitizer_test(step3_racecheck_gemv_tma_2x4400x1024 racecheck step3_w4a16 --m 2 --n 4400 --k 1024 --kernel gemv_tma_q4_0,gemv_tma_g128)
add_sanitizer_test(step3_memcheck_gemv_tma_3x1x4224 memcheck step3_w4a16 --m 3 --n 1 --k 4224 --kernel gemv_tma_q4_0,gemv_tma_g128)
add_gpu_shape_tests(step3_gemv_tma step3_w4a16
  3x4100x14336:gemv_mma_q4_0+gemv_mma_g128+gemv_tma_q4_0+gemv_tma_g128
  8x4100x4096:gemv_mma_q4_0+gemv_mma_g128+gemv_tma_q4_0+gemv_tma_g128)

add_exit_code_test(step3_cli_help 0 step3_w4a16 --help)
add_exit_code_test(step3_cli_list 0 step3_w4a16 --list)
add_cli_table_test(step3_cli_bad_command_lines step3_w4a16 ${CMAKE_SOURCE_DIR}/step3_w4a16/bad_command_lines.txt)

# Exercises: each slot fails as a stub (or passes once written); each solution passes.
add_exercise_tests(step3_w4a16 ex1 --m 37 --n 100 --k 4224)
add_exercise_tests(step3_w4a16 ex2 --m 3 --n 4100 --k 4224)
