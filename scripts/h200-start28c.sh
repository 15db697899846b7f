#!/usr/bin/env bash
# That build with the readbacks alone made ahead, after the pipelines (dropped: patch
# benches/results/h200-2026-11-30-start28c-exp.patch), against c613176
# (.device/parvlc-old).
# scripts/h200-lib.sh `h264_start28` runs the series (streams compared, three rounds
# alternating, debug-logged runs).
# There, from the project root, .device carried: bash scripts/h200-start28c.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start start28c
unpack_device
D=/dev/shm/parvlc-start28c
h264_start28 start28c
date -u
