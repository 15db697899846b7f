#!/usr/bin/env bash
# Ran on an intermediate, uncommitted build of the eighteenth pass (docs/results.md,
# "Eighteenth pass", says which); PARVLC_EXP_* knobs are not in the committed code.
# The frame_plan stage, fourth shape (frames of at most 256 KiB, so a region's serial
# chain of merge decisions is 16 cells long, not 64; inner nodes' depths by pointer
# jumping): both passes by GPU timestamps (examples/frame_plan_bench, after a second of
# warm-up; each chunk's GPU plan checked against the CPU twin first); the library's
# host-to-host compress of 1 GiB (examples/stream_bench, output decoded before timing)
# at chunks of 4 and 8 MiB against the build before the stage (.device/stream_bench-old,
# aba1ea8); the CLI's compress of 4 GiB from standard input, both builds, outputs checked
# (gzip -dc, our decompress), then timed with peak memory.
# There, from the project root, .device carried: bash scripts/h200-plantime18d.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start plantime18d
# The binaries travel gzipped (the call's 64 MiB limit).
for f in .device/*.gz; do gunzip -f "$f"; done
D=/tmp/parvlc-plantime18d
sys_files "$D"
head -c 67108864 "$D/sys1g" > "$D/sys64m"
for f in native gzip; do
  FORMAT=$f ROUNDS=10 .device/frame_plan_bench "$D/sys64m"
done
for r in 1 2; do
  for b in stream_bench-old stream_bench; do
    echo "== $b round $r"
    CHUNKS_MIB=4,8 DEPTHS=8,12 RUNS=3 .device/$b "$D/sys1g" | tail -n +2
    FORMAT=gzip CHUNKS_MIB=4,8 DEPTHS=10 RUNS=3 .device/$b "$D/sys1g" | tail -n +2
  done
done
cli_compress_check "$D"
cli_compress_ab "$D" 3
rm -rf "$D"
date -u
