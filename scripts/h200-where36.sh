#!/usr/bin/env bash
# Thirty-sixth pass (2026-12-01): where the CLI's single 4K picture spends its 0.3 s, and
# a cold first run. One build (.device/parvlc: main with a debug line at the process's
# start). The 4K picture, Part 1 and --ht: warm runs debug-logged with each line's time
# since the start (scripts/log_deltas.py) and timed by GNU time; a 16x16 picture (the
# process's floor: the GPU opened and closed); opj_compress and ojph_compress beside;
# cold runs (no parvlc pipeline cache, no driver shader cache) of both modes; thirty
# frames of each mode.
# There, from the project root, .device carried (staged with --openjpeg, plus the
# openjph-tools and libopenjph debs in .device/debs):  bash scripts/h200-where36.sh [NAME]
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
NAME=${1:-where36}
h200_start "$NAME"
unpack_device
D=/tmp/parvlc-$NAME
P=.device/parvlc
mkdir -p "$D"
python3 scripts/ppm.py make "$D/pic.ppm" 3840 2160
python3 scripts/ppm.py make "$D/tiny.ppm" 16 16
$P j2k --backend cpu "$D/pic.ppm" -o "$D/cpu.j2k" --force 2>/dev/null
$P j2k --backend cpu "$D/pic.ppm" -o "$D/cpu-ht.j2k" --force --ht 2>/dev/null
KEEP="started|read in|opened|pipeline .*built|HT|tier-2|front end|encoded in|GPU closing|done after|upload|staging"
for mode in p1 ht; do
  flag=""; [ $mode = ht ] && flag=--ht
  echo "== cold, $mode"
  export PARVLC_CACHE_DIR=$D/cache
  rm -rf "$PARVLC_CACHE_DIR" "$HOME/.cache/nvidia" "$HOME/.nv"
  RUST_LOG=parvlc=debug /usr/bin/time -f "cold $mode	wall %e s	peak %M KiB" $P j2k "$D/pic.ppm" -o "$D/x.j2k" --force $flag 2> "$D/log"
  python3 scripts/log_deltas.py "$D/log" "$KEEP"; tail -1 "$D/log"
  cmp "$D/x.j2k" "$D/cpu${flag:+-ht}.j2k" && echo "cold $mode: the CPU's codestream"
  for r in 1 2 3; do
    wall "warm $mode, run $r" "$P j2k $D/pic.ppm -o $D/x.j2k --force $flag"
  done
  cmp "$D/x.j2k" "$D/cpu${flag:+-ht}.j2k" && echo "warm $mode: the CPU's codestream"
  for r in 1 2; do
    echo "== warm $mode, debug log, run $r"
    RUST_LOG=parvlc=debug $P j2k "$D/pic.ppm" -o "$D/x.j2k" --force $flag 2> "$D/log"
    python3 scripts/log_deltas.py "$D/log" "$KEEP"
    gzip -c "$D/log" > "$OUT/$NAME-$mode-$r.log.gz"
  done
done
for r in 1 2 3; do
  wall "16x16 picture, run $r" "$P j2k $D/tiny.ppm -o $D/t.j2k --force"
done
echo "== 16x16, debug log"
RUST_LOG=parvlc=debug $P j2k "$D/tiny.ppm" -o "$D/t.j2k" --force 2> "$D/log"
python3 scripts/log_deltas.py "$D/log" "$KEEP"
for r in 1 2 3; do
  wall "4K ojph_compress -reversible true, run $r" "ojph_compress -i $D/pic.ppm -o $D/o.j2c -reversible true -num_decomps 5 -block_size {64,64}"
  wall "4K opj_compress -M 1 -threads 16, run $r" "opj_compress -i $D/pic.ppm -o $D/o.j2k -M 1 -threads 16"
done
pan_frames "$D" 30
mkdir -p "$D/seq"
for r in 1 2; do
  wall "30 frames Part 1, run $r" "$P j2k $D/in/*.ppm -o $D/seq --force"
  wall "30 frames --ht, run $r" "$P j2k $D/in/*.ppm -o $D/seq --force --ht"
done
rm -rf "$D"
date -u
