#!/usr/bin/env bash
# Sixteenth pass, second call (2026-11-28): the H.264 front end with the CAVLC bits
# counted over the nonzero levels' mask (dcf0de4, `.device/parvlc`,
# `.device/h264_intra_bench`) against the build before (291f740, the `-old` binaries),
# alternating.
#   A. `h264_intra_bench` GPU time (1080p noise pan, QP 27), batches of 16 and 64.
#   B. Where the rest of an I_NxN step goes: an experiment build on dcf0de4 (patch
#      benches/results/h200-2026-11-28-phases16.patch, timing only) leaving out mode 8's
#      second round (EXP_ONE_ROUND), the candidates' ranking (EXP_NO_RANK), the
#      candidates' transform, quantization and reconstruction (EXP_NO_CODE).
#   C. The CLI at its defaults on 240 and 960 frames of the 1080p pan, QP 27, each
#      stream compared with the old build's.
# There, from the project root, .device carried: bash scripts/h200-bits16.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start bits16
echo "== A. front end GPU time"
intra_bench_ab 2 "auto 4x4" 16,64
echo "== B. phases (experiment build)"
for exp in NONE=0 EXP_ONE_ROUND=1 EXP_NO_RANK=1 EXP_NO_CODE=1 EXP_ONE_ROUND=1,EXP_NO_RANK=1,EXP_NO_CODE=1; do
  echo "-- $exp"
  PARVLC_EXP_H264=$exp LUMA=auto BATCHES=16,64 .device/h264_intra_bench-exp 1920 1080 2>&1 | grep "slices one"
done
echo "== C. CLI"
D=/tmp/parvlc-bits16
mkdir -p "$D"
pan_y4m "$D/p240.y4m"
pan_y4m_times "$D/p240.y4m" "$D/p960.y4m" 4
for n in 240 960; do
  h264_ab "$n" 3
done
RUST_LOG=parvlc=debug .device/parvlc h264 "$D/p960.y4m" --qp 27 --force -o "$D/x.264" 2>&1 \
  | grep -E "h264 batch|GPU opened" | sed -n '1p;20,26p' | cut -c 1-240
rm -rf "$D"
date -u
