#!/usr/bin/env bash
# Huffman compression as users run it, on the GPU machine: the CLI on real files already
# in the page cache (wall clock and peak memory by /usr/bin/time), files and standard
# input/output, every output checked (our decoder, gzip -dc) before any time is kept, and
# nvCOMP's ratio on the same bytes (scripts/nvcomp_bench.py, entropy-only GDeflate and
# Deflate, ANS).
#
# Here: ../shared/device/stage --nvcomp. There, from the project root, .device carried:
#   bash scripts/h200-stream.sh
# Writes under $OUT: run.log (everything), times.tsv (command, run, wall s, peak KiB),
# sizes.tsv (file, bytes), nvcomp.jsonl. Knobs: SIZE (bytes of the system-files input,
# 4 GiB), RUNS (3), CHUNKS and DEPTHS (swept), SKIP_RATIOS (times only), DATA (scratch).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
OUT=${OUT:-out}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/run.log") 2>&1
# shellcheck disable=SC1091
source .device/env.sh
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
P=${PARVLC:-.device/parvlc}
D=${DATA:-/tmp/parvlc-stream}
SIZE=${SIZE:-4294967296}
RUNS=${RUNS:-3}
CHUNKS=${CHUNKS:-8M 12M}
DEPTHS=${DEPTHS:-6 8}
mkdir -p "$D"
date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc
git log -1 --format='commit %H %s' 2>/dev/null || true

echo "== inputs"
# The machine's own system files, repeated if they come short of SIZE.
for _ in 1 2 3 4 5 6 7 8; do tar cf - /usr /opt /etc 2>/dev/null; done | head -c "$SIZE" > "$D/sys.tar"
real_kinds "$D" .bin
ls -l "$D" | tee "$OUT/sizes.tsv"

times() { # label, command...: RUNS timed runs of a checked command
  local label=$1; shift
  for r in $(seq "$RUNS"); do
    /usr/bin/time -f "$label	$r	%e	%M" -a -o "$OUT/times.tsv" "$@" 2>>"$OUT/cli.log" >/dev/null || { echo "FAILED: $label"; return 1; }
  done
  grep "^$label	" "$OUT/times.tsv" | tail -n "$RUNS"
}

echo "== warm the page cache"
cat "$D/sys.tar" > /dev/null
echo "== check, then time: compress and decompress of sys.tar"
for fmt in gzip native; do
  ext=$([ $fmt = gzip ] && echo gz || echo pvlc)
  "$P" compress -f $fmt "$D/sys.tar" -o "$D/sys.$ext" --force || { echo "FAILED compress $fmt"; continue; }
  "$P" decompress "$D/sys.$ext" -o "$D/back" --force && cmp "$D/back" "$D/sys.tar" && echo "$fmt: our decoder OK"
  if [ $fmt = gzip ]; then gzip -dc "$D/sys.gz" | cmp - "$D/sys.tar" && echo "gzip -dc OK"; fi
  ls -l "$D/sys.$ext"
  cat "$D/sys.tar" > /dev/null
  times "compress-$fmt-wgpu" "$P" compress -f $fmt "$D/sys.tar" -o "$D/t.$ext" --force
  RUNS=1 times "compress-$fmt-cpu" "$P" compress --backend cpu -f $fmt "$D/sys.tar" -o "$D/t.$ext" --force
  cmp "$D/t.$ext" "$D/sys.$ext" && echo "cpu bytes == wgpu bytes"
  cat "$D/sys.$ext" > /dev/null
  times "decompress-$fmt" "$P" decompress "$D/sys.$ext" -o "$D/back" --force
  if [ $fmt = native ]; then
    "$P" decompress --backend wgpu "$D/sys.$ext" -o - | cmp - "$D/sys.tar" && echo "native on the GPU: our decoder OK"
    times "decompress-native-wgpu" "$P" decompress --backend wgpu "$D/sys.$ext" -o "$D/back" --force
  fi
  times "decompress-$fmt-to-null" sh -c "'$P' decompress '$D/sys.$ext' -o - > /dev/null"
  times "stdin-null-compress-$fmt" sh -c "'$P' compress -f $fmt - -o - < '$D/sys.tar' > /dev/null"
  times "stdin-stdout-compress-$fmt" sh -c "'$P' compress -f $fmt - -o - < '$D/sys.tar' > '$D/s.$ext'"
  cmp "$D/s.$ext" "$D/sys.$ext" && echo "stdin/stdout bytes == file bytes"
  RUNS=1 times "stdin-stdout-decompress-$fmt" sh -c "'$P' decompress - < '$D/sys.$ext' > '$D/back'"
done
echo "== cold start: no pipeline cache of ours, no driver shader cache"
rm -rf ~/.cache/parvlc
times "cold-compress-gzip-stdin-null" env __GL_SHADER_DISK_CACHE=0 sh -c "rm -rf ~/.cache/parvlc; '$P' compress -f gzip - -o - < '$D/sys.tar' > /dev/null"
times "warm-compress-gzip-stdin-null" env __GL_SHADER_DISK_CACHE=0 sh -c "'$P' compress -f gzip - -o - < '$D/sys.tar' > /dev/null"
echo "== the disk: 3 GiB written with and without fsync"
dd if="$D/sys.tar" of="$D/dd.out" bs=16M count=192 conv=fsync 2>&1 | tail -1
dd if="$D/sys.tar" of="$D/dd.out" bs=16M count=192 2>&1 | tail -1
rm -f "$D/dd.out"
echo "== chunk sizes and depths (gzip, wgpu)"
for c in $CHUNKS; do
  for d in $DEPTHS; do
    times "compress-gzip-chunk-$c-depth-$d" "$P" compress -f gzip --chunk-size "$c" --depth "$d" "$D/sys.tar" -o "$D/t.gz" --force
  done
done
echo "== where a chunk's time goes (debug log of one run)"
RUST_LOG=parvlc=debug "$P" compress -f gzip "$D/sys.tar" -o "$D/t.gz" --force 2> "$OUT/chunk-log.txt"
tail -12 "$OUT/chunk-log.txt"
if [ -n "${SKIP_RATIOS:-}" ]; then rm -rf "$D"; exit 0; fi
echo "== ratios: ours (gzip, native) and nvCOMP on the same bytes"
head -c $((1 << 30)) "$D/sys.tar" > "$D/sys1g.bin"
for f in sys1g text source binaries logs columns; do
  [ -s "$D/$f.bin" ] || continue
  for fmt in gzip native; do "$P" compress -f $fmt "$D/$f.bin" -o "$D/$f.$fmt" --force 2>&1 | tail -1; done
done
files=(); for f in sys1g text source binaries logs columns; do [ -s "$D/$f.bin" ] && files+=("$D/$f.bin"); done
python3 scripts/nvcomp_bench.py --runs 1 --codecs ANS,GDeflate,Deflate "${files[@]}" > "$OUT/nvcomp.jsonl"
python3 - "${files[@]}" <<'PY'
import sys, zlib
for f in sys.argv[1:]:
    d = open(f, 'rb').read()
    co = zlib.compressobj(6, zlib.DEFLATED, 31, 9, zlib.Z_HUFFMAN_ONLY)
    print(f"zlib Z_HUFFMAN_ONLY {f}: {len(d)} -> {len(co.compress(d) + co.flush())}")
PY
rm -rf "$D"
