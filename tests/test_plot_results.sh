#!/usr/bin/env bash
# usage: test_plot_results.sh SOURCE_DIR
# Renders the charts from the committed H200 CSVs into a scratch directory, so that
# scripts/plot_results.py cannot rot. Needs matplotlib (requirements.txt): taken from the
# repository's .venv when there is one, else from python3; without it the test is skipped (77).
set -u
src=$1
python=python3
[ -x "$src/.venv/bin/python" ] && python="$src/.venv/bin/python"
if ! "$python" -c "import matplotlib" 2>/dev/null; then
  echo "skipped: no matplotlib for $python (python3 -m venv .venv && .venv/bin/pip install -r requirements.txt)"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
for dir in "$src"/results/*/; do
  [ -f "$dir/run_info.txt" ] || continue
  name=$(basename "$dir")
  if ! "$python" "$src/scripts/plot_results.py" "$dir" "$work/$name" >"$work/$name.log" 2>&1; then
    echo "FAILED: plot_results.py $dir"; cat "$work/$name.log"; failures=1; continue
  fi
  # One chart per step CSV, each a PNG that is not empty.
  missing=0
  for csv in "$dir"/step*.csv; do
    png="$work/$name/$(basename "$csv" .csv)_ladder.png"
    if [ ! -s "$png" ] || [ "$(head -c 4 "$png" | od -An -c | tr -d ' ')" != "211PNG" ]; then
      echo "FAILED: no PNG chart $png"; missing=1
    fi
  done
  [ $missing -eq 0 ] && echo "ok: $name: $(ls "$work/$name" | wc -l) charts"
  failures=$((failures | missing))
done
exit $failures
