#!/usr/bin/env bash
# Ran on an intermediate, uncommitted build of the eighteenth pass (docs/results.md,
# "Eighteenth pass", says which); PARVLC_EXP_* knobs are not in the committed code.
# Frames planned on the GPU (the frame_plan stage: cells merged and code lengths built in
# the histograms' submission) against the build before (.device/*-old, commit aba1ea8,
# frames planned on the coders' cores): the library's host-to-host compress of 1 GiB of
# system files (examples/stream_bench, native and gzip, which decodes each output before
# timing it) and the CLI's compress of 4 GiB from standard input to /dev/null, builds
# alternating; output sizes of both builds (the estimate moved to fixed point, so cuts
# may differ); every CLI output decoded first (gzip -dc, our decompress) and compared
# with the input; then the per-chunk phases of a debug-logged library run.
# There, from the project root, .device carried: bash scripts/h200-plan18.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start plan18
D=/tmp/parvlc-plan18
sys_files "$D"
cli_compress_check "$D"
library_ab "$D/sys1g" 3
echo "== depths, new build"
DEPTHS=8,12,16 RUNS=3 .device/stream_bench "$D/sys1g" | tail -n +2
FORMAT=gzip DEPTHS=12,16 RUNS=3 .device/stream_bench "$D/sys1g" | tail -n +2
cli_compress_ab "$D" 3
echo "== library, debug-logged (new build)"
RUST_LOG=parvlc=debug RUNS=1 .device/stream_bench "$D/sys1g" 2>&1 | chunk_phases
echo "== library, debug-logged (old build)"
RUST_LOG=parvlc=debug RUNS=1 .device/stream_bench-old "$D/sys1g" 2>&1 | chunk_phases
rm -rf "$D"
date -u
