#!/usr/bin/env bash
# (2026-11-28, twelfth pass: the knobs were an uncommitted experiment build; the result, coders
# with a thread of their own at depth 10 and chunks of 4 MiB, is the default since 69a49ec.)
# Second round of the coders' own pools (PARVLC_CODER_POOL, an experiment knob), by depth
# and chunk size, peaks included; gzip and native from stdin to /dev/null, gzip file to
# file, and the library's host-to-host compress (examples/stream_bench, which checks each
# shape's output first) on the first GiB. Outputs compared with the default's first.
# There, from the project root, .device carried: bash scripts/h200-compress-pools2.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start compress-pools2
D=/tmp/parvlc-pools2
sys_files "$D"
B=.device/parvlc
VARIANTS=("X=1|" "PARVLC_CODER_POOL=2|" "PARVLC_CODER_POOL=2|--depth 8"
  "PARVLC_CODER_POOL=2|--depth 8 --chunk-size 4M" "PARVLC_CODER_POOL=1|--depth 10 --chunk-size 4M"
  "PARVLC_CODER_POOL=2|--chunk-size 8M")
"$B" compress -f gzip - -o "$D/ref.gz" --force < "$D/sys.tar" 2>/dev/null
gzip -dc "$D/ref.gz" | cmp - "$D/sys.tar" && echo "gzip -dc gives the input"
for v in "${VARIANTS[@]:1}"; do
  env ${v%%|*} "$B" compress -f gzip - -o "$D/k.gz" --force ${v#*|} < "$D/sys.tar" 2>/dev/null
  gzip -dc "$D/k.gz" | cmp - "$D/sys.tar" && echo "[$v] gzip -dc gives the input"
done
rm -f "$D/ref.gz" "$D/k.gz"
for r in 1 2 3; do
  for v in "${VARIANTS[@]}"; do
    wall "gzip stdin [$v] $r" "env ${v%%|*} $B compress -f gzip - -o - ${v#*|} < $D/sys.tar"
  done
done
for r in 1 2; do
  for v in "X=1|" "PARVLC_CODER_POOL=2|" "PARVLC_CODER_POOL=2|--depth 8"; do
    wall "native stdin [$v] $r" "env ${v%%|*} $B compress -f native - -o - ${v#*|} < $D/sys.tar"
    wall "gzip file to file [$v] $r" "env ${v%%|*} $B compress -f gzip $D/sys.tar -o $D/out.gz --force ${v#*|}"
  done
done
rm -f "$D/out.gz"
echo "== library host to host, 1 GiB, best of 3"
for pool in "X=1" "PARVLC_CODER_POOL=2"; do
  echo "[$pool]"
  env $pool DEPTHS=6,8 CHUNKS_MIB=6 RUNS=3 .device/stream_bench "$D/sys1g" | tail -n +2
  env $pool FORMAT=gzip DEPTHS=6,8 CHUNKS_MIB=6 RUNS=3 .device/stream_bench "$D/sys1g" | tail -n +2
done
rm -rf "$D"
date -u
