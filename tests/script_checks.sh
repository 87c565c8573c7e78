# Sourced by the tests of a script's output: makes $work (a scratch folder removed on exit) and
# $failures (0), and the two checks they share, each printing "ok: ..." or "FAILED: ..." (and then
# setting failures=1):
#   expect WHAT OUTPUT REGEX      OUTPUT has a line matching REGEX (grep -E)
#   check_exit WANT WHAT ARGS...  the command ARGS exits WANT
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
expect() {
  if printf '%s\n' "$2" | grep -qE "$3"; then echo "ok: $1"; else echo "FAILED: $1 (no /$3/ in:)"; printf '%s\n' "$2"; failures=1; fi
}
check_exit() {
  local want=$1 what=$2 out rc
  shift 2
  out=$("$@" 2>&1); rc=$?
  if [ $rc -eq "$want" ]; then echo "ok: $what: exit $rc"; else echo "FAILED: $what: exit $rc, want $want: $out"; failures=1; fi
}
