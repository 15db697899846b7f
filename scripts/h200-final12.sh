#!/usr/bin/env bash
# The coders with a thread of their own, depth 10 and chunks of 4 MiB (the new defaults)
# against the build before (.device/parvlc-before, depth 6, chunks of 6 MiB, rayon's
# shared pool), alternating: 4 GiB of system files, stdin to /dev/null and file to file,
# gzip and native, and the GPU decoder on each build's native file; outputs checked first
# (gzip -dc, our decoder, cmp). Then the library's host-to-host compress on the first GiB
# (examples/stream_bench, which checks each shape's output) at both shapes.
# There, from the project root, .device carried: bash scripts/h200-final12.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start final12
D=/tmp/parvlc-final12
sys_files "$D"
for b in before ""; do
  B=".device/parvlc${b:+-$b}"
  n=${b:-after}
  "$B" compress -f gzip - -o "$D/$n.gz" --force < "$D/sys.tar" 2>&1 | tail -1
  gzip -dc "$D/$n.gz" | cmp - "$D/sys.tar" && echo "$n: gzip -dc gives the input"
  "$B" compress -f native - -o "$D/$n.pvlc" --force < "$D/sys.tar" 2>&1 | tail -1
  "$B" decompress --backend wgpu "$D/$n.pvlc" -o - | cmp - "$D/sys.tar" && echo "$n: the GPU decoder gives the input"
  rm -f "$D/$n.gz"
done
for r in 1 2 3; do
  for b in before ""; do
    wall "gzip stdin, ${b:-after}, run $r" ".device/parvlc${b:+-$b} compress -f gzip - -o - < $D/sys.tar"
    wall "native stdin, ${b:-after}, run $r" ".device/parvlc${b:+-$b} compress -f native - -o - < $D/sys.tar"
  done
done
for r in 1 2; do
  for b in before ""; do
    n=${b:-after}
    wall "decompress wgpu, $n, run $r" ".device/parvlc${b:+-$b} decompress --backend wgpu $D/$n.pvlc -o -"
    wall "gzip file to file, $n, run $r" ".device/parvlc${b:+-$b} compress -f gzip $D/sys.tar -o $D/out.gz --force"
  done
done
rm -f "$D/out.gz" "$D"/*.pvlc
echo "== library host to host, native, 1 GiB, best of 3 (this build)"; date -u
DEPTHS=6 CHUNKS_MIB=6 RUNS=3 .device/stream_bench "$D/sys1g" | tail -n +2
DEPTHS=10 CHUNKS_MIB=4 RUNS=3 .device/stream_bench "$D/sys1g" | tail -n +2
rm -rf "$D"
date -u
