#!/usr/bin/env bash
# Where a compress or decompress run spends its time on the GPU machine: wall, user and
# system time, context switches and peak memory by /usr/bin/time, then a flat CPU profile
# of each command by perf (staged into .device/perf by the caller: the binary and the
# libraries it needs that the machine lacks), and the chunk log of one run.
#
# Here: ../shared/device/stage, then copy perf as the header of this file's caller does.
# There, from the project root, .device carried:  bash scripts/h200-profile.sh
# Sections (SECTIONS, all by default): startup (a process that opens the GPU and codes
# nothing), huffman (compress and decompress of 4 GiB), j2k (one 4K RGB picture: a cold
# first run and warm runs with the debug log's stage and pipeline timings, perf, and
# opj_compress beside it where staged with --openjpeg). Knobs: SIZE (bytes of the
# system-files input, 4 GiB), DATA (scratch).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
OUT=${OUT:-out}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/run.log") 2>&1
# shellcheck disable=SC1091
source .device/env.sh
P=${PARVLC:-.device/parvlc}
D=${DATA:-/tmp/parvlc-profile}
SIZE=${SIZE:-4294967296}
mkdir -p "$D"
SECTIONS=${SECTIONS:-startup huffman j2k}
has() { [[ " $SECTIONS " == *" $1 "* ]]; }
date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc
if has huffman && [ ! -s "$D/sys.tar" ]; then
  for _ in 1 2 3 4 5 6 7 8; do tar cf - /usr /opt /etc 2>/dev/null; done | head -c "$SIZE" > "$D/sys.tar"
fi
[ -s "$D/sys.tar" ] && cat "$D/sys.tar" > /dev/null

perf_ok=0
if [ -x .device/perf/perf ]; then
  export PERF_LIBS=.device/perf/lib
  perf() { LD_LIBRARY_PATH=$PERF_LIBS .device/perf/perf "$@"; }
  echo 0 > /proc/sys/kernel/kptr_restrict 2>/dev/null
  echo -1 > /proc/sys/kernel/perf_event_paranoid 2>/dev/null
  perf record -o "$D/probe.data" -- true >/dev/null 2>&1 && perf_ok=1
  echo "perf usable: $perf_ok"
fi

# label, shell command (reads $D): checked by the caller's round trip below.
run() {
  local label=$1 cmd=$2
  for r in 1 2; do
    /usr/bin/time -f "$label	run $r	wall %e s	user %U s	sys %S s	peak %M KiB	invol %c	vol %w" \
      bash -c "$cmd" 2>&1 >/dev/null | tail -1
  done
  if [ $perf_ok = 1 ]; then
    perf record -F 999 -o "$D/$label.data" -- bash -c "$cmd" >/dev/null 2>"$D/$label.perf.err"
    perf report -i "$D/$label.data" --no-children --stdio --sort sym --percent-limit 0.5 2>/dev/null \
      | grep -v '^$' | head -120 > "$OUT/perf-$label.txt"
    perf report -i "$D/$label.data" --no-children --stdio --sort dso --percent-limit 0.5 2>/dev/null \
      | grep -v '^$' | head -40 >> "$OUT/perf-$label.txt"
    perf report -i "$D/$label.data" --no-children --stdio --sort tid --percent-limit 1 2>/dev/null \
      | grep -v '^$' | head -40 >> "$OUT/perf-$label.txt"
  fi
}

if has startup; then
  echo "== startup: an empty input, wgpu and cpu; then the debug log of one"
  for b in wgpu cpu; do
    for r in 1 2 3; do
      /usr/bin/time -f "empty-$b	run $r	wall %e s	user %U s	sys %S s" \
        $P compress --backend $b -f gzip - -o - < /dev/null 2>&1 >/dev/null | tail -1
    done
  done
  RUST_LOG=parvlc=debug $P compress -f gzip - -o - < /dev/null 2> "$OUT/startup-log.txt" > /dev/null
fi

if has huffman; then
echo "== check"
$P compress -f gzip - -o - < "$D/sys.tar" > "$D/sys.gz" || echo "FAILED gzip compress"
$P compress -f native - -o - < "$D/sys.tar" > "$D/sys.pvlc" || echo "FAILED native compress"
$P decompress "$D/sys.gz" -o - | cmp - "$D/sys.tar" && echo "gzip round trip ok"
$P decompress "$D/sys.pvlc" -o - | cmp - "$D/sys.tar" && echo "native round trip ok"
ls -l "$D"

echo "== time and profile"
run compress-gzip-null "$P compress -f gzip - -o - < $D/sys.tar > /dev/null"
run compress-native-null "$P compress -f native - -o - < $D/sys.tar > /dev/null"
run compress-gzip-pipe "cat $D/sys.tar | $P compress -f gzip - -o - > /dev/null"
run decompress-gzip-null "$P decompress $D/sys.gz -o - > /dev/null"
run decompress-native-null "$P decompress $D/sys.pvlc -o - > /dev/null"
run compress-gzip-file "$P compress -f gzip $D/sys.tar -o $D/out.gz --force"
echo "== chunk log (gzip to /dev/null)"
RUST_LOG=parvlc=debug $P compress -f gzip - -o - < "$D/sys.tar" 2> "$D/chunk.log" > /dev/null
grep -c . "$D/chunk.log"; sed -n '200,260p' "$D/chunk.log" > "$OUT/chunk-log.txt"
fi

if has j2k; then
  echo "== j2k: one 4K RGB 8-bit picture"
  python3 scripts/ppm.py make "$D/pic.ppm" 3840 2160
  export PARVLC_CACHE_DIR="$D/j2k-cache"
  rm -rf "$PARVLC_CACHE_DIR" "$HOME/.cache/nvidia" "$HOME/.nv"
  J="$P j2k $D/pic.ppm -o $D/pic.j2k --force"
  /usr/bin/time -f "j2k-cold	wall %e s	user %U s	sys %S s" env RUST_LOG=parvlc=debug $J 2> "$OUT/j2k-cold-log.txt"
  tail -1 "$OUT/j2k-cold-log.txt"
  for r in 1 2 3; do
    /usr/bin/time -f "j2k-warm	run $r	wall %e s	user %U s	sys %S s" $J 2>&1 | tail -1
  done
  RUST_LOG=parvlc=debug $J 2> "$OUT/j2k-warm-log.txt"
  if command -v opj_decompress >/dev/null; then
    opj_decompress -i "$D/pic.j2k" -o "$D/back.ppm" >/dev/null 2>&1 && python3 scripts/ppm.py same "$D/pic.ppm" "$D/back.ppm"
  fi
  if command -v opj_compress >/dev/null; then
    for r in 1 2 3; do
      /usr/bin/time -f "opj_compress -M 1 -threads $(nproc)	run $r	wall %e s	user %U s	sys %S s" \
        opj_compress -i "$D/pic.ppm" -o "$D/opj.j2k" -M 1 -threads "$(nproc)" 2>&1 >/dev/null | tail -1
    done
  fi
  for b in wgpu cpu; do
    /usr/bin/time -f "j2k-$b	wall %e s	user %U s	sys %S s" $P j2k --backend $b "$D/pic.ppm" -o "$D/pic-$b.j2k" --force 2>&1 | tail -1
  done
  cmp "$D/pic-wgpu.j2k" "$D/pic-cpu.j2k" && echo "wgpu bytes == cpu bytes"
  if [ $perf_ok = 1 ]; then
    perf record -F 999 -o "$D/j2k.data" -- $J > /dev/null 2>&1
    perf report -i "$D/j2k.data" --no-children --stdio --sort sym --percent-limit 0.5 2>/dev/null \
      | grep -v '^$' | head -100 > "$OUT/perf-j2k-warm.txt"
  fi
fi
# At most 8 files come back: the profiles and logs in one archive.
kept=$(cd "$OUT" && ls | grep -v -e '^run.log$' -e '^profiles.tgz$')
[ -n "$kept" ] && tar czf "$OUT/profiles.tgz" -C "$OUT" $kept && (cd "$OUT" && rm -f $kept)
