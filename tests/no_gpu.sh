# Sourced by the script tests that run a script as on a machine without a GPU: makes $work, a
# scratch folder removed on exit, and $work/bin/nvidia-smi, which fails as nvidia-smi does without
# a driver. Put "$work/bin" first on PATH for the script under test.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/bin"
printf '#!/bin/sh\necho "NVIDIA-SMI has failed" >&2\nexit 9\n' >"$work/bin/nvidia-smi"
chmod +x "$work/bin/nvidia-smi"
