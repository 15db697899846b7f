#!/usr/bin/env bash
# The frame plan's merge from every run's estimate (this build, sb-new/fpb-new) against
# the merge with a reduction a cell (sb-old/fpb-base): the plan passes' GPU time
# (frame_plan_bench, each chunk checked against the CPU twin first), then the
# library's 1 GiB of system files at its default shape (stream_bench decodes its output
# before timing), alternating, and a trace-logged timeline of this build. Not committed:
# interval costs 18 us and merge 7 against the merge's 28 a 4 MiB chunk, the scan no
# shorter (one pass more) and the library no faster; dropped.
# There, from the project root, .device carried: bash scripts/h200-runs20.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start runs20
unpack_device
D=/tmp/parvlc-runs20
sys_1g "$D"
plan_ab "$D"
date -u
