#!/usr/bin/env bash
# Issue 18 (whole compress at 1.3x nvCOMP ANS, timed as nvCOMP's call): cuvle's output
# left uncleared, every block staged and its end words placed by the stage `block_ends`
# (the default), against the output cleared before the kernel (`--clear-output`, the
# build before's way), one build (.device/parvlc) with the experiment's patch applied
# (benches/results/h200-2026-12-02-ends40-exp.patch; not landed: it measured no faster).
# `parvlc bench --backend wgpu,cuda` (the high state, as nvCOMP runs) at 1 GiB; every
# output is checked before it is timed; the debug log says which way each encode went.
# There, from the project root, .device carried:
#   bash scripts/h200-ends40.sh ENTROPIES 'FLAGS' ...   ('-' for the default)
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start "${NAME:-ends40}"
unpack_device
entropies=$1
shift
for v in "$@"; do
  [ "$v" = - ] && v=
  echo "== flags: ${v:-none} $(date +%T)"
  # shellcheck disable=SC2086
  RUST_LOG=parvlc::huffman::cuvle=debug timeout 200 .device/parvlc bench --backend wgpu,cuda \
    --sizes 1073741824 --entropies "$entropies" --strategies decoupled --no-baselines \
    --cpu-max 0 --runs 3 $v 2>&1 |
    grep -E "^  cuvle-decoupled  |rror|panic|cuvle: " | grep -E "encode|compress|rror|panic|cuvle: " |
    sed 's/^\[[^]]*\] //' | uniq -c
done
date -u
