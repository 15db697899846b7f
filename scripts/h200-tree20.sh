#!/usr/bin/env bash
# The frame plan's tree in rounds by the whole workgroup (this build, sb-new/fpb-new)
# against the serial tree on one invocation (sb-old/fpb-base): the code_lengths pass's
# GPU time (frame_plan_bench, each chunk checked against the CPU twin first), then the
# library's 1 GiB of system files at its default shape (stream_bench decodes its output
# before timing), alternating, and a trace-logged timeline of this build.
# There, from the project root, .device carried: bash scripts/h200-tree20.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start tree20
unpack_device
D=/tmp/parvlc-tree20
sys_1g "$D"
plan_ab "$D"
date -u
