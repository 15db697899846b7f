#!/usr/bin/env bash
# Thirty-seventh pass (2026-12-01): the three-kernel tier-1's `cm` with one call site of
# the passes' walks (plane_to_scratch: the raw walks and the pairs' steps in one loop;
# .device/parvlc-cm, built with benches/results/h200-2026-12-01-cm37-exp.patch, not kept)
# against two (.device/parvlc-quads, the pass's build before it): its
# first-run compile (no parvlc pipeline cache, no driver shader cache), six rounds
# alternating, Part 1 of the 4K picture; then tier-1 warmed (`bench j2k --warm-up 1`)
# and the CLI warm, both builds. Every codestream compared with the CPU's.
# There: bash scripts/h200-cm37.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
NAME=${1:-cm37}
h200_start "$NAME"
unpack_device
D=/tmp/parvlc-$NAME
pic_and_cpu "$D" .device/parvlc-quads
first_runs "$D" parvlc-cm parvlc-quads "" cm "tier1_split.cm .*built in"
warm_j2k_ab "$D" parvlc-cm parvlc-quads "" "three-kernel|tier1-fast"
rm -rf "$D"
date -u
