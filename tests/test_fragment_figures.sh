#!/usr/bin/env bash
# usage: test_fragment_figures.sh SOURCE_DIR FRAGMENT_LAYOUTS
# The primer's fragment figures cannot drift from the code: the layouts they were drawn from
# (step3_w4a16/figures/fragments.json) must be what build/fragment_layouts prints now, from the
# kernels' own index functions; and the drawing script must run on them (skipped without matplotlib).
set -u
src=$1 layouts=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$layouts" >"$work/now.json" || { echo "FAIL: $layouts"; exit 1; }
if ! cmp -s "$work/now.json" "$src/step3_w4a16/figures/fragments.json"; then
  echo "FAIL: step3_w4a16/figures/fragments.json is not what the code lays out now; redraw the figures:"
  echo "  build/fragment_layouts > step3_w4a16/figures/fragments.json && scripts/draw_fragments.py step3_w4a16/figures/fragments.json step3_w4a16/figures"
  exit 1
fi
echo "ok: the figures' layouts are the code's"
python=python3
[ -x "$src/.venv/bin/python" ] && python=$src/.venv/bin/python
"$python" "$src/scripts/draw_fragments.py" "$work/now.json" "$work/png" >/dev/null
code=$?
if [ $code -eq 77 ]; then echo "drawing skipped: no matplotlib"; exit 0; fi
figures=$("$python" -c 'import json, sys; print(len(json.load(open(sys.argv[1]))))' "$work/now.json")
[ $code -eq 0 ] && [ "$(ls "$work/png" | wc -l)" -eq "$figures" ] && echo "ok: draw_fragments.py draws the $figures figures" ||
  { echo "FAIL: draw_fragments.py exit $code, $(ls "$work/png" 2>/dev/null | wc -l) of $figures figures"; exit 1; }
