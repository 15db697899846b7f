#!/usr/bin/env bash
# (2026-11-28, twelfth pass: the knobs were an uncommitted experiment build; the result, coders
# with a thread of their own at depth 10 and chunks of 4 MiB, is the default since 69a49ec.)
# The compressor's coders with their parallel work (frame planning, headers and
# checksums, the readback's copy) on a rayon pool of their own (PARVLC_CODER_POOL=N
# threads each, an experiment knob) against rayon's global pool, by depth: 4 GiB of
# system files, stdin redirected from the file to /dev/null, every variant's output
# compared with the default's first, alternating runs; the per-chunk phases of a
# debug-logged run of two of them.
# There, from the project root, .device carried: bash scripts/h200-compress-pools.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start compress-pools
D=/tmp/parvlc-pools
sys_files "$D"
B=.device/parvlc
VARIANTS=("X=1|" "PARVLC_CODER_POOL=1|" "PARVLC_CODER_POOL=2|" "X=1|--depth 10"
  "PARVLC_CODER_POOL=1|--depth 10" "PARVLC_CODER_POOL=2|--depth 8" "PARVLC_CODER_POOL=1|--depth 14"
  "RAYON_NUM_THREADS=8|")
"$B" compress -f gzip - -o "$D/ref.gz" --force < "$D/sys.tar" 2>/dev/null
gzip -dc "$D/ref.gz" | cmp - "$D/sys.tar" && echo "gzip -dc gives the input"
for v in "${VARIANTS[@]:1}"; do
  env ${v%%|*} "$B" compress -f gzip - -o "$D/k.gz" --force ${v#*|} < "$D/sys.tar" 2>/dev/null
  cmp "$D/ref.gz" "$D/k.gz" && echo "[$v] equals the default's output"
done
rm -f "$D/ref.gz" "$D/k.gz"
for r in 1 2 3; do
  for v in "${VARIANTS[@]}"; do
    wall "gzip stdin [$v] $r" "env ${v%%|*} $B compress -f gzip - -o - ${v#*|} < $D/sys.tar"
  done
done
for r in 1 2; do
  for v in "X=1|" "PARVLC_CODER_POOL=1|--depth 10"; do
    wall "native stdin [$v] $r" "env ${v%%|*} $B compress -f native - -o - ${v#*|} < $D/sys.tar"
  done
done
for v in "X=1|" "PARVLC_CODER_POOL=1|--depth 10"; do
  echo "== phases [$v]"
  env ${v%%|*} RUST_LOG=parvlc=debug "$B" compress -f gzip - -o - ${v#*|} < "$D/sys.tar" 2>&1 >/dev/null \
    | chunk_phases
done
rm -rf "$D"
date -u
