# Step 2 tests (included by the top-level CMakeLists.txt).
# CPU: every golden case byte-exact, and the file tool end to end (no GPU needed).
add_test(NAME step2_golden_cpu COMMAND step2_quant --golden ${CMAKE_SOURCE_DIR}/common/golden)
set_tests_properties(step2_golden_cpu PROPERTIES LABELS cpu TIMEOUT 300)
add_test(NAME step2_file_tool COMMAND bash ${CMAKE_SOURCE_DIR}/step2_quant/test_file_tool.sh $<TARGET_FILE:step2_quant>
                                      ${CMAKE_SOURCE_DIR}/common/golden)
set_tests_properties(step2_file_tool PROPERTIES LABELS cpu TIMEOUT 300)

# GPU: quantizers byte-equal to the CPU reference (golden cases + a tensor); odd shapes too.
add_gpu_test(step2_lesson step2_quant)
add_gpu_test(step2_tensor_37x4128 step2_quant --n 37 --k 4128)
add_gpu_test(step2_tensor_1x32 step2_quant --n 1 --k 32)
add_gpu_test(step2_tensor_3x96 step2_quant --n 3 --k 96)

add_exit_code_test(step2_cli_k_not_multiple_of_32 2 step2_quant --n 4 --k 100)
add_exit_code_test(step2_cli_takes_no_m 2 step2_quant --m 4 --n 4 --k 64)
add_exit_code_test(step2_cli_unknown_format 2 step2_quant --quantize q5_0 --in x --out y)
add_exit_code_test(step2_cli_missing_out 2 step2_quant --quantize q4_0 --in ${CMAKE_SOURCE_DIR}/common/golden/normal_s1/x.f32)
add_exit_code_test(step2_cli_missing_input 2 step2_quant --dequantize q4_0 --in /nonexistent/q.bin --out /tmp/never)
add_exit_code_test(step2_cli_bad_sum_mode 2 step2_quant --quantize q8_1 --q8_1-s avg --in ${CMAKE_SOURCE_DIR}/common/golden/normal_s1/x.f32 --out /tmp/never)
add_exit_code_test(step2_cli_both_directions 2 step2_quant --quantize q4_0 --dequantize q4_0)
add_exit_code_test(step2_cli_in_without_tool 2 step2_quant --in x.f32)
add_exit_code_test(step2_cli_no_golden_here 2 step2_quant --golden /nonexistent)
