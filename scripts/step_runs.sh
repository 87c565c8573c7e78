# step_runs.sh - what build_and_test.sh and bench_all.sh both need to know about a step program
# (sourced, not run). Each takes the program's name (build/<name> must exist).

# Whether the step times anything: it offers --csv in its --help (step 5 checks and offers none).
step_takes_csv() {
  local help
  help=$(./build/"$1" --help)
  grep -q -- "--csv FILE" <<<"$help"  # a here-string: under pipefail a pipe into grep -q can fail
}

# The step's runs besides its lesson, each with its own README block <step>--<flag>: step 3's batch
# sweep, step 4's summit and its mma.sync microbenchmark.
step_extra_runs() {
  case $1 in
    step3_w4a16) echo --sweep --read-floor ;;
    step4_w4a8) echo --summit --mma-peak --read-floor ;;
  esac
}
