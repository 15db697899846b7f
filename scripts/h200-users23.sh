#!/usr/bin/env bash
# What the stages built without naga's runtime checks give as users run parvlc: one build,
# the checks kept everywhere (PARVLC_RUNTIME_CHECKS=1, as every stage was built before)
# against the default (only the GPU decoder keeps them), alternating in one call:
#   - `parvlc j2k` of a 4K RGB 8-bit picture (scripts/ppm.py), warm, Part 1 and --ht,
#     with `opj_compress -M 1 -threads 16` beside it; the outputs compared first;
#   - `parvlc h264` of 960 frames of the 1080p pan (QP 27, defaults), the streams compared;
#   - `parvlc compress -f gzip` of 4 GiB of system files from standard input, the output
#     decoded by gzip first;
#   - the library's 1 GiB (stream_bench, which decodes its output before timing).
# There, from the project root, .device carried (stage --openjpeg): bash scripts/h200-users23.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start users23
unpack_device
D=/tmp/parvlc-users23
mkdir -p "$D"
mode() { if [ "$1" = checked ]; then export PARVLC_RUNTIME_CHECKS=1; else unset PARVLC_RUNTIME_CHECKS; fi; }
B=.device/parvlc
python3 scripts/ppm.py make "$D/4k.ppm" 3840 2160
for m in checked default; do
  mode $m
  $B j2k "$D/4k.ppm" -o "$D/4k-$m.j2k" --force 2>/dev/null
  $B j2k "$D/4k.ppm" -o "$D/4k-$m.jph" --ht --force 2>/dev/null
done
cmp "$D/4k-checked.j2k" "$D/4k-default.j2k" && cmp "$D/4k-checked.jph" "$D/4k-default.jph" && echo "j2k: both modes write the same codestreams"
opj_decompress -i "$D/4k-default.j2k" -o "$D/back.ppm" >/dev/null 2>&1 && python3 scripts/ppm.py same "$D/4k.ppm" "$D/back.ppm"
for r in 1 2 3; do
  for m in checked default; do
    mode $m
    wall "j2k 4K, $m, run $r" "$B j2k $D/4k.ppm -o $D/x.j2k --force"
    wall "j2k 4K --ht, $m, run $r" "$B j2k $D/4k.ppm -o $D/x.jph --ht --force"
  done
  wall "opj_compress -M 1 -threads 16, run $r" "opj_compress -i $D/4k.ppm -o $D/o.j2k -M 1 -threads 16"
done
pan_y4m "$D/p240.y4m"
pan_y4m_times "$D/p240.y4m" "$D/p960.y4m" 4
for m in checked default; do
  mode $m
  $B h264 "$D/p960.y4m" --qp 27 --force -o "$D/h-$m.264" 2>/dev/null
done
cmp "$D/h-checked.264" "$D/h-default.264" && echo "h264: both modes write the same stream"
for r in 1 2 3; do
  for m in checked default; do
    mode $m
    wall "h264 960 frames, $m, run $r" "$B h264 $D/p960.y4m --qp 27 --force -o $D/x.264"
  done
done
rm -f "$D"/p240.y4m "$D"/p960.y4m
sys_files "$D"
$B compress -f gzip - -o - < "$D/sys.tar" 2>/dev/null | gzip -dc | cmp - "$D/sys.tar" && echo "compress: gzip -dc gives the input"
for r in 1 2 3; do
  for m in checked default; do
    mode $m
    wall "compress -f gzip 4 GiB stdin, $m, run $r" "$B compress -f gzip - -o - < $D/sys.tar"
  done
done
for r in 1 2; do
  for f in native gzip; do
    for m in checked default; do
      mode $m
      echo -n "library 1 GiB, round $r, $f, $m: "
      FORMAT=$f RUNS=6 .device/sb "$D/sys1g" | tail -1
    done
  done
done
date -u
