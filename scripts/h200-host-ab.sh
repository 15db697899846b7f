#!/usr/bin/env bash
# Builds side by side on the host-side paths, on the GPU machine, in one run:
#   - compress (gzip, native) of 4 GiB of the machine's system files, stdin to /dev/null:
#     cold first runs (no parvlc pipeline cache, no driver shader cache), then warm runs,
#     the builds alternating;
#   - decompress --backend wgpu (the GPU decoder) of the native file to /dev/null,
#     alternating, the CPU decoder beside them, and the debug log of one run of the last
#     build (per dispatch: GPU round trip, CRCs);
#   - the bench's stream, vld and cuvle rows at 1 GiB, 4.5 bits (last build).
# Every output is checked first (gzip -dc, our decoders, cmp). Wall clock and peak RSS by
# /usr/bin/time. There, from the project root, .device carried:
#   BINS=".device/parvlc-old .device/parvlc" bash scripts/h200-host-ab.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
OUT=${OUT:-out}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/host-ab.txt") 2>&1
# shellcheck disable=SC1091
source .device/env.sh
BINS=${BINS:-.device/parvlc-old .device/parvlc}
NEW=${BINS##* }
RUNS=${RUNS:-3}
COLD=${COLD:-2}
# DECODE_ONLY=1: the GPU decode section alone (the native file made by the last build).
DECODE_ONLY=${DECODE_ONLY:-}
D=${DATA:-/tmp/parvlc-ab}
mkdir -p "$D"
date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc
for _ in 1 2 3 4 5 6 7 8; do tar cf - /usr /opt /etc 2>/dev/null; done | head -c 4294967296 > "$D/sys.tar"
cat "$D/sys.tar" > /dev/null
t() { # label, command (a shell string): one run's wall s and peak KiB
  /usr/bin/time -f "$1	wall %e s	peak %M KiB" sh -c "$2" 2>&1 >/dev/null | tail -1
}
echo "== outputs checked"
if [ -n "$DECODE_ONLY" ]; then
  $NEW compress -f native - -o - < "$D/sys.tar" 2>/dev/null > "$D/o.pvlc"
fi
for P in $BINS; do
  [ -n "$DECODE_ONLY" ] && { $P decompress --backend wgpu "$D/o.pvlc" -o - 2>/dev/null | cmp - "$D/sys.tar" && echo "$P native: the GPU decoder gives the input"; continue; }
  $P compress -f gzip - -o - < "$D/sys.tar" 2>/dev/null > "$D/o.gz"
  gzip -dc "$D/o.gz" | cmp - "$D/sys.tar" && echo "$P gzip: gzip -dc gives the input"
  $P compress -f native - -o - < "$D/sys.tar" 2>/dev/null > "$D/o.pvlc"
  $P decompress --backend wgpu "$D/o.pvlc" -o - 2>/dev/null | cmp - "$D/sys.tar" && echo "$P native: the GPU decoder gives the input"
done
export PARVLC_CACHE_DIR="$D/cache-warm"
[ -n "$DECODE_ONLY" ] || {
echo "== cold first runs (no pipeline cache, no driver shader cache)"
for r in $(seq "$COLD"); do for fmt in gzip native; do
  for P in $BINS; do
    export PARVLC_CACHE_DIR="$D/cache-cold"
    rm -rf "$PARVLC_CACHE_DIR" "$HOME/.cache/nvidia" "$HOME/.nv"
    t "$P $fmt cold $r" "$P compress -f $fmt - -o - < $D/sys.tar"
  done
done; done
export PARVLC_CACHE_DIR="$D/cache-warm"
for P in $BINS; do for fmt in gzip native; do
  $P compress -f $fmt - -o - < "$D/sys.tar" >/dev/null 2>&1
done; done
echo "== warm, alternating"
for r in $(seq "$RUNS"); do
  for fmt in gzip native; do for P in $BINS; do
    t "$P $fmt warm $r" "$P compress -f $fmt - -o - < $D/sys.tar"
  done; done
done
}
echo "== GPU decode (native file to /dev/null), alternating"
for r in $(seq "$RUNS"); do
  for P in $BINS; do
    t "$P decompress --backend wgpu $r" "$P decompress --backend wgpu $D/o.pvlc -o - "
  done
  t "$NEW decompress (CPU) $r" "$NEW decompress --backend cpu $D/o.pvlc -o - "
done
RUST_LOG=parvlc=debug $NEW decompress --backend wgpu "$D/o.pvlc" -o - 2> "$D/dec.log" >/dev/null
grep "vld run" "$D/dec.log" | sed 's/^\[[^]]*\] //' | tail -n 20
tail -n 1 "$D/dec.log"
rm -rf "$D"
echo "== bench rows at 1 GiB, 4.5 bits"
$NEW bench --backend wgpu --sizes 1073741824 --entropies 4.5 --strategies decoupled \
  --no-baselines --cpu-max 0 --runs 3 2>&1 | grep -E "stream|vld|cuvle-decoupled +encode"
