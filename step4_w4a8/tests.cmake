# Step 4 tests (included by the top-level CMakeLists.txt).
# CPU: the compensation identity, the references against ggml's golden dot products, the DP4A
# nibble unpacking for every byte, the repack round trip.
add_executable(test_w4a8_cpu ${CMAKE_SOURCE_DIR}/step4_w4a8/test_w4a8_cpu.cu)
target_include_directories(test_w4a8_cpu PRIVATE ${CMAKE_SOURCE_DIR}/common)
target_link_libraries(test_w4a8_cpu PRIVATE CUDA::curand Threads::Threads)
target_compile_definitions(test_w4a8_cpu PRIVATE QGF_GOLDEN_DIR="${CMAKE_SOURCE_DIR}/common/golden")
add_test(NAME step4_cpu_formula_and_golden_dots COMMAND test_w4a8_cpu)
set_tests_properties(step4_cpu_formula_and_golden_dots PROPERTIES LABELS cpu TIMEOUT 300)

# GPU: the lesson cases and awkward shapes, every kernel correct or a SKIP with its reason. Each shape
# names, after its colon, the kernels that must run and PASS it: every lesson kernel whose limits admit
# it on an H200 (a SKIP for an older GPU's architecture excepted).
add_gpu_test(step4_lesson_cases step4_w4a8)
add_gpu_test(step4_summit_cases step4_w4a8 --summit)  # the summit's shapes checked, its table printed
# The microbenchmarks run: --mma-peak times and checks nothing (a SKIP below sm_80); --read-floor
# checks the XOR of every word it reads against the CPU's.
add_test(NAME step4_mma_peak COMMAND step4_w4a8 --mma-peak --iters 3 --warmup 1)
set_tests_properties(step4_mma_peak PROPERTIES SKIP_RETURN_CODE 77 LABELS gpu TIMEOUT 300)
add_test(NAME step4_read_floor COMMAND step4_w4a8 --read-floor --iters 3 --warmup 1)
set_tests_properties(step4_read_floor PROPERTIES SKIP_RETURN_CODE 77 LABELS gpu TIMEOUT 300)
# Its kernel under the sanitizers: the grid-stride reads stay inside the matrix (memcheck, with the
# guard zone after each allocation), and each CTA's XOR is read only after the barrier that
# follows its warps' writes (racecheck).
add_sanitizer_run(step4_memcheck_read_floor memcheck step4_w4a8 --read-floor --iters 1 --warmup 0)
add_sanitizer_run(step4_racecheck_read_floor racecheck step4_w4a8 --read-floor --iters 1 --warmup 0)
# 2x100x15360: gemv_resident with 480 threads (K-blocks) per CTA; 1x37x16416: one K-block more than
# it takes (a SKIP with the reason), the other kernels run.
# K = 4224 and 128 (multiples of 128) also take the tensor-core kernel, mma_int8, through each of its tile shapes;
# M > 128 also mma_int8_tma (sm_90): 129x4100x128 one stage, 200x4100x640 five stages through four buffers,
# a ragged token tile (72 of 128) and row tile; and wgmma_int8 (sm_90a) wherever K is a multiple of
# 128: one stage, a ragged row block (4100 = 32 blocks and 4 rows), token tiles of 1, 3, 16, 37 and
# 100 of 128. On a GPU of 132 SMs rung 16 splits a partial wave's tiles in K (common/split_tail.cuh),
# so most of these shapes run pieces: 129 x 4100 x 4352 two of 17 stages (66 tiles: the ring of six
# buffers wraps), 200 x 4100 x 640 two (3 and 2 stages), 37 x 4100 x 4352 four of 8 or 9 (33 tiles),
# 100 x 4100 x 640 three; 513 x 4100 x 768 whole tiles for a wave and 3 pieces of 2 stages for the
# rest (165 tiles, 33 split), 129 x 8500 x 512 4 pieces of one stage (134 tiles, 2 split), 1100 x
# 4100 x 640 3 pieces (297 tiles, 33 split, the last on a ragged token tile).
# gemv_mma (K a multiple of 64): 4224 = 66 chunks, slices of 4 and 5 per warp; 192 = 3 chunks, a CTA of
# 3 warps; 64, of one warp (fewer threads than outputs to store); 8x37x16384: 8 tokens at the largest K,
# 162 KB of shared memory per CTA; 1x100x4224, 4x37x4224: M = 1 and 4 (block pairs) at K = 66 chunks.
# gemv_q4_k (Q4_K, K a multiple of 256): 4352 = 17 super-blocks (136 threads, the last warp partly idle),
# at M = 1 and 3 (each token count is its own instantiation); 256, one super-block (8 threads of a warp);
# 15360 and 16384 (60 and 64 super-blocks; M = 8 at 512 threads per CTA). gemv_q6_k (Q6_K) at the same
# shapes, and at 37 rows: the issue's ragged shapes M = 1, 3 at N = 4100. gemv_mma_q4_k (Q4_K on rung 10's
# skeleton) at the same shapes: 4352 = 68 chunks, slices of 4 and 5 that start inside a super-block;
# 256, one super-block over 4 warps of one chunk each; 16384 at M = 8, 194 KB of shared memory per CTA.
# mma_q4_k (Q4_K on rung 09's tiles) wherever K is a multiple of 256, and at the issue's ragged shapes
# M = 16, 37, 129, 513, N = 4100: each of 09's four tiles; 4352 = 4.25 stages of the tiles that split K
# 8 ways (1024 values per stage, the last one partly past K) and 34 stages of 128 values on the large
# tile (each super-block's (d, dmin) pairs copied by two stages); 513 x 768: 6 stages through 3 buffers.
add_gpu_shape_tests(step4 step4_w4a8
  1x100x32:naive+smem_tiled+dp4a+dp4a_loads16+dp4a_tiled+gemv_dp4a+gemv_pdl+gemv_resident
  2x4100x4128:naive+smem_tiled+dp4a+dp4a_loads16+dp4a_tiled+gemv_dp4a+gemv_pdl+gemv_resident
  3x1x4128:naive+smem_tiled+dp4a+dp4a_loads16+dp4a_tiled+gemv_dp4a+gemv_pdl+gemv_resident
  8x100x32:naive+smem_tiled+dp4a+dp4a_loads16+dp4a_tiled+gemv_dp4a+gemv_pdl+gemv_resident
  37x4100x4128:naive+smem_tiled+dp4a+dp4a_loads16+dp4a_tiled
  129x100x4128:naive+smem_tiled+dp4a+dp4a_loads16+dp4a_tiled
  1x4100x4128:naive+smem_tiled+dp4a+dp4a_loads16+dp4a_tiled+gemv_dp4a+gemv_pdl+gemv_resident
  2x100x15360:naive+smem_tiled+dp4a+dp4a_loads16+dp4a_tiled+gemv_dp4a+gemv_pdl+gemv_resident+mma_int8+gemv_mma+gemv_q4_k+gemv_q6_k+gemv_mma_q4_k+mma_q4_k
  1x37x16416:naive+smem_tiled+dp4a+dp4a_loads16+dp4a_tiled+gemv_dp4a+gemv_pdl
  3x4100x4224:naive+smem_tiled+dp4a+dp4a_loads16+dp4a_tiled+gemv_dp4a+gemv_pdl+gemv_resident+mma_int8+gemv_mma
  13x4100x4224:naive+smem_tiled+dp4a+dp4a_loads16+dp4a_tiled+mma_int8
  17x100x4224:naive+smem_tiled+dp4a+dp4a_loads16+dp4a_tiled+mma_int8
  37x100x4224:naive+smem_tiled+dp4a+dp4a_loads16+dp4a_tiled+mma_int8
  129x4100x128:naive+smem_tiled+dp4a+dp4a_loads16+dp4a_tiled+mma_int8+mma_int8_tma+wgmma_int8
  8x4100x4224:naive+smem_tiled+dp4a+dp4a_loads16+dp4a_tiled+gemv_dp4a+gemv_pdl+gemv_resident+mma_int8+gemv_mma
  5x33x192:naive+smem_tiled+dp4a+dp4a_loads16+dp4a_tiled+gemv_dp4a+gemv_pdl+gemv_resident+gemv_mma
  7x4101x64:naive+smem_tiled+dp4a+dp4a_loads16+dp4a_tiled+gemv_dp4a+gemv_pdl+gemv_resident+gemv_mma
  8x37x16384:naive+smem_tiled+dp4a+dp4a_loads16+dp4a_tiled+gemv_dp4a+gemv_pdl+gemv_resident+mma_int8+gemv_mma+gemv_q4_k+gemv_q6_k+gemv_mma_q4_k+mma_q4_k
  1x100x4224:naive+smem_tiled+dp4a+dp4a_loads16+dp4a_tiled+gemv_dp4a+gemv_pdl+gemv_resident+mma_int8+gemv_mma
  4x37x4224:naive+smem_tiled+dp4a+dp4a_loads16+dp4a_tiled+gemv_dp4a+gemv_pdl+gemv_resident+mma_int8+gemv_mma
  200x4100x640:naive+smem_tiled+dp4a+dp4a_loads16+dp4a_tiled+mma_int8+mma_int8_tma+wgmma_int8
  1x4100x4352:naive+smem_tiled+dp4a+dp4a_loads16+dp4a_tiled+gemv_dp4a+gemv_pdl+gemv_resident+mma_int8+gemv_mma+gemv_q4_k+gemv_q6_k+gemv_mma_q4_k+mma_q4_k+wgmma_int8
  3x4100x4352:naive+smem_tiled+dp4a+dp4a_loads16+dp4a_tiled+gemv_dp4a+gemv_pdl+gemv_resident+mma_int8+gemv_mma+gemv_q4_k+gemv_q6_k+gemv_mma_q4_k+mma_q4_k+wgmma_int8
  5x33x256:naive+smem_tiled+dp4a+dp4a_loads16+dp4a_tiled+gemv_dp4a+gemv_pdl+gemv_resident+mma_int8+gemv_mma+gemv_q4_k+gemv_q6_k+gemv_mma_q4_k+mma_q4_k
  16x4100x4352:naive+smem_tiled+dp4a+dp4a_loads16+dp4a_tiled+mma_int8+mma_q4_k+wgmma_int8
  37x4100x4352:naive+smem_tiled+dp4a+dp4a_loads16+dp4a_tiled+mma_int8+mma_q4_k+wgmma_int8
  129x4100x4352:naive+smem_tiled+dp4a+dp4a_loads16+dp4a_tiled+mma_int8+mma_int8_tma+wgmma_int8+mma_q4_k
  513x4100x768:naive+smem_tiled+dp4a+dp4a_loads16+dp4a_tiled+mma_int8+mma_int8_tma+wgmma_int8+mma_q4_k
  129x8500x512:mma_int8+mma_int8_tma+wgmma_int8
  1100x4100x640:mma_int8+wgmma_int8
  100x4100x640:mma_int8+wgmma_int8)

foreach(canary forget_minus_8s skip_last_block)
  add_canary_test(step4_canary_${canary} step4_w4a8 canary_${canary} --m 37 --n 4100 --k 4128)
endforeach()

# mma_int8: every tile shape, every class of ragged last token tile (tests/ragged_tile_shapes.cu).
add_ragged_tile_test(step4_memcheck_ragged_tiles_mma_int8 memcheck step4 step4_w4a8 mma_int8 100 256)
add_sanitizer_test(step4_memcheck_37x100x4128 memcheck step4_w4a8 --m 37 --n 100 --k 4128)
add_sanitizer_test(step4_memcheck_3x4101x32 memcheck step4_w4a8 --m 3 --n 4101 --k 32)
add_sanitizer_test(step4_racecheck_129x100x4128 racecheck step4_w4a8 --m 129 --n 100 --k 4128)
add_sanitizer_test(step4_racecheck_2x100x15360 racecheck step4_w4a8 --m 2 --n 100 --k 15360)
add_sanitizer_test(step4_memcheck_37x100x4224 memcheck step4_w4a8 --m 37 --n 100 --k 4224)
add_sanitizer_test(step4_racecheck_3x100x4224 racecheck step4_w4a8 --m 3 --n 100 --k 4224)
add_sanitizer_test(step4_memcheck_13x100x4224 memcheck step4_w4a8 --m 13 --n 100 --k 4224)
add_sanitizer_test(step4_racecheck_129x100x256 racecheck step4_w4a8 --m 129 --n 100 --k 256)
# The summit's large tile (M > 128) on a ragged last token tile: its copies must stay inside A.
add_sanitizer_test(step4_memcheck_mma_int8_129x100x256 memcheck step4_w4a8 --m 129 --n 100 --k 256 --kernel mma_int8)
# ... and over 10 stages of K through its 3 buffers: each is refilled only after every warp has read it.
add_sanitizer_test(step4_racecheck_mma_int8_129x100x1280 racecheck step4_w4a8 --m 129 --n 100 --k 1280 --kernel mma_int8)
# The wide quantizer (above 8192 blocks): 17028 blocks, the last CTA's lanes partly past the end;
# both of its forms run (split layout in the byte check, codes with FP32 d before mma_int8).
add_sanitizer_test(step4_memcheck_wide_quantizer_129x100x4224 memcheck step4_w4a8 --m 129 --n 100 --k 4224 --kernel mma_int8)
# The TMA rung: its copies must stay inside A and the weights (memcheck); each stage buffer is refilled
# only after every thread has read it (racecheck; 10 stages through 4 buffers).
add_sanitizer_test(step4_memcheck_mma_int8_tma_129x100x256 memcheck step4_w4a8 --m 129 --n 100 --k 256 --kernel mma_int8_tma)
add_sanitizer_test(step4_racecheck_mma_int8_tma_129x100x1280 racecheck step4_w4a8 --m 129 --n 100 --k 1280 --kernel mma_int8_tma)
# The wgmma rung (16): its copies stay inside A and the row-block weights (memcheck); a stage is
# refilled only after every math thread has scaled its last block (racecheck: on 132 SMs the 2
# tiles of 131 x 100 x 7168 run as 7 pieces of 8 stages each, through 6 buffers); the copy
# warpgroup leaves early and meets no barrier the math warps wait at (synccheck).
add_sanitizer_test(step4_memcheck_wgmma_int8_131x100x7168 memcheck step4_w4a8 --m 131 --n 100 --k 7168 --kernel wgmma_int8)
add_sanitizer_test(step4_racecheck_wgmma_int8_131x100x7168 racecheck step4_w4a8 --m 131 --n 100 --k 7168 --kernel wgmma_int8)
add_sanitizer_test(step4_synccheck_wgmma_int8_131x100x7168 synccheck step4_w4a8 --m 131 --n 100 --k 7168 --kernel wgmma_int8)
# ... whole tiles, unsplit (132 tiles on 132 SMs, 7 stages through 6 buffers), and 37 tokens of a
# 128-token tile (the TMA fills the rest of the box with zeros; one tile in 5 pieces): memcheck.
add_sanitizer_test(step4_memcheck_wgmma_int8_131x8400x896 memcheck step4_w4a8 --m 131 --n 8400 --k 896 --kernel wgmma_int8)
add_sanitizer_test(step4_memcheck_wgmma_int8_37x100x4352 memcheck step4_w4a8 --m 37 --n 100 --k 4352 --kernel wgmma_int8)
# ... and with a wave's tail split (132 SMs: 2 tiles in 4 pieces, then sum_split_tiles): the pieces'
# sums stay inside the workspace and the summed tiles inside C.
add_sanitizer_test(step4_memcheck_wgmma_int8_split_129x8500x512 memcheck step4_w4a8 --m 129 --n 8500 --k 512 --kernel wgmma_int8)
add_sanitizer_test(step4_synccheck_wgmma_int8_split_129x8500x512 synccheck step4_w4a8 --m 129 --n 8500 --k 512 --kernel wgmma_int8)
# gemv_resident alone: 480 threads per CTA leave room for one CTA per SM, so 500 stages of rows are more
# than the CTAs and each CTA reuses its buffers of row sums.
add_sanitizer_test(step4_racecheck_resident_2x2000x15360 racecheck step4_w4a8 --m 2 --n 2000 --k 15360 --kernel gemv_resident)
# gemv_mma alone: one CTA per SM, 513 row tiles, so CTAs take 3 or 4 tiles and reuse each buffer of partial
# tiles; memcheck on a ragged N with idle warps.
add_sanitizer_test(step4_racecheck_gemv_mma_2x8200x4224 racecheck step4_w4a8 --m 2 --n 8200 --k 4224 --kernel gemv_mma)
add_sanitizer_test(step4_memcheck_gemv_mma_7x4101x192 memcheck step4_w4a8 --m 7 --n 4101 --k 192 --kernel gemv_mma)
# Its per-tile barrier is reached from different places of the unrolled loop (slices of 4 and 5 chunks):
# synccheck rejects the .aligned barrier of __syncthreads there.
add_sanitizer_test(step4_synccheck_gemv_mma_2x2000x4224 synccheck step4_w4a8 --m 2 --n 2000 --k 4224 --kernel gemv_mma)
add_sanitizer_test(step4_memcheck_gemv_mma_3x4101x192 memcheck step4_w4a8 --m 3 --n 4101 --k 192 --kernel gemv_mma)  # M <= 4: block pairs
# gemv_q4_k: reads inside both weight streams on a ragged N (last rows repeated, never stored) and
# 17 super-blocks; its row sums' buffers reused across stages (2000 rows > CTAs x rows per stage).
add_sanitizer_test(step4_memcheck_gemv_q4_k_3x4101x4352 memcheck step4_w4a8 --m 3 --n 4101 --k 4352 --kernel gemv_q4_k)
add_sanitizer_test(step4_racecheck_gemv_q4_k_8x2000x16384 racecheck step4_w4a8 --m 8 --n 2000 --k 16384 --kernel gemv_q4_k)
# ... and its shuffles of the header words: each among the 8 lanes of one super-block, the warp's other
# lanes idle when K = 256 (8 threads).
add_sanitizer_test(step4_synccheck_gemv_q4_k_5x37x256 synccheck step4_w4a8 --m 5 --n 37 --k 256 --kernel gemv_q4_k)
# gemv_q6_k: its four weight streams (the scale pairs and d are 2-byte loads) on a ragged N, and the row
# sums' buffers reused across stages, as for gemv_q4_k.
add_sanitizer_test(step4_memcheck_gemv_q6_k_3x4101x4352 memcheck step4_w4a8 --m 3 --n 4101 --k 4352 --kernel gemv_q6_k)
add_sanitizer_test(step4_racecheck_gemv_q6_k_8x2000x16384 racecheck step4_w4a8 --m 8 --n 2000 --k 16384 --kernel gemv_q6_k)
# gemv_mma_q4_k: its three weight streams on a ragged N (the last tile's missing rows read from the
# group's first tile), the staged (d_a, s) pairs, and rung 10's per-tile barrier and partial tiles.
# M = 3 takes the sub-block pairs (and their zero row), M = 6 one sub-block per mma.
add_sanitizer_test(step4_memcheck_gemv_mma_q4_k_3x4101x4352 memcheck step4_w4a8 --m 3 --n 4101 --k 4352 --kernel gemv_mma_q4_k)
add_sanitizer_test(step4_memcheck_gemv_mma_q4_k_6x4101x4352 memcheck step4_w4a8 --m 6 --n 4101 --k 4352 --kernel gemv_mma_q4_k)
add_sanitizer_test(step4_racecheck_gemv_mma_q4_k_8x2000x4352 racecheck step4_w4a8 --m 8 --n 2000 --k 4352 --kernel gemv_mma_q4_k)
add_sanitizer_test(step4_synccheck_gemv_mma_q4_k_2x2000x4352 synccheck step4_w4a8 --m 2 --n 2000 --k 4352 --kernel gemv_mma_q4_k)
# mma_q4_k: every tile shape and class of ragged last token tile, as mma_int8 (the same tiles and rule);
# its five copy streams on a ragged N and a stage partly past K (13 tokens: 1024 values per stage,
# K = 4352); ten stages of the large tile through its 3 buffers, and 09's split-K sum (37 tokens).
add_ragged_tile_test(step4_memcheck_ragged_tiles_mma_q4_k memcheck step4 step4_w4a8 mma_q4_k 100 256)
add_sanitizer_test(step4_memcheck_mma_q4_k_13x4101x4352 memcheck step4_w4a8 --m 13 --n 4101 --k 4352 --kernel mma_q4_k)
add_sanitizer_test(step4_racecheck_mma_q4_k_129x100x1280 racecheck step4_w4a8 --m 129 --n 100 --k 1280 --kernel mma_q4_k)
add_sanitizer_test(step4_racecheck_mma_q4_k_37x100x4352 racecheck step4_w4a8 --m 37 --n 100 --k 4352 --kernel mma_q4_k)

add_exit_code_test(step4_cli_help 0 step4_w4a8 --help)
add_exit_code_test(step4_cli_list 0 step4_w4a8 --list)
add_cli_table_test(step4_cli_bad_command_lines step4_w4a8 ${CMAKE_SOURCE_DIR}/step4_w4a8/bad_command_lines.txt)

# Exercises: each slot fails as a stub (or passes once written); each solution passes.
add_exercise_tests(step4_w4a8 ex1 --m 3 --n 4100 --k 4128)
add_exercise_tests(step4_w4a8 ex2 --m 37 --n 4100 --k 4128)
