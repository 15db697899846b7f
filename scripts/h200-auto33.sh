#!/usr/bin/env bash
# decompress --backend auto (this build, .device/parvlc-auto, `--features cuda`): where a
# GPU starts to pay on this machine. The first 256 MiB, 1 GiB, 2 GiB and all 4 GiB of
# the system files, native and gzip, each decoded by `--backend cpu`, `--backend wgpu` and
# the default (auto), to /dev/null, three rounds alternating, after every output was
# compared with the input. Then `--backend wgpu` with no adapter (WGPU_ADAPTER_NAME that
# matches none: the CPU cores decode batches shaped for a GPU) against `--backend cpu`;
# then 4 GiB from a pipe: cpu, wgpu, auto and 4b34819 (.device/parvlc, which opened the
# GPU before reading) on wgpu. There: bash scripts/h200-auto33.sh
source scripts/h200-lib.sh
h200_start auto33
unpack_device
D=/dev/shm/dec33; mkdir -p "$D"
B=.device/parvlc-auto
sys_files "$D"
for s in 256M 1G 2G; do head -c "$s" "$D/sys.tar" > "$D/$s"; done
mv "$D/sys.tar" "$D/4G"; rm -f "$D/sys1g"
for s in 256M 1G 2G 4G; do
  for f in native gzip; do $B compress -f $f "$D/$s" -o "$D/$s.$f" 2>&1 | tail -1; done
done
cat "$D"/* > /dev/null
for s in 256M 1G 2G 4G; do
  for f in native gzip; do
    for b in cpu wgpu auto; do
      $B decompress --backend $b "$D/$s.$f" -o - | cmp - "$D/$s" || echo "MISMATCH $s $f $b"
    done
  done
done
echo "every output compared"
for round in 1 2 3; do
  for s in 256M 1G 2G 4G; do
    for f in native gzip; do
      for b in cpu wgpu auto; do
        wall "round $round, $s, $f, $b" "$B decompress --backend $b $D/$s.$f -o - > /dev/null"
      done
    done
  done
done
for f in native gzip; do
  WGPU_ADAPTER_NAME=nomatch $B decompress --backend wgpu "$D/4G.$f" -o - 2>"$D/err" | cmp - "$D/4G" && echo "no adapter, $f: equals the input; $(head -c 200 "$D/err")"
done
no_adapter_rounds 3 $B "$D/4G.native" "$D/4G.gzip"
for f in native gzip; do
  for b in wgpu auto; do
    cat "$D/4G.$f" | $B decompress --backend $b - | cmp - "$D/4G" && echo "4G, $f, $b, from a pipe: equals the input"
  done
  cat "$D/4G.$f" | RUST_LOG=parvlc=debug $B decompress - 2>"$D/log" >/dev/null
  echo "$f, auto from a pipe: $(grep -c 'no GPU open' "$D/log") batches on the CPU; $(grep -E 'starts opening|opened in' "$D/log" | sed 's/.*DEBUG parvlc[^]]*] //' | tr '\n' ' ')"
done
for round in 1 2; do
  for f in native gzip; do
    for b in cpu wgpu auto; do
      wall "round $round, 4G, $f, $b, from a pipe" "cat $D/4G.$f | $B decompress --backend $b - > /dev/null"
    done
    wall "round $round, 4G, $f, 4b34819 wgpu, from a pipe" "cat $D/4G.$f | .device/parvlc decompress --backend wgpu - > /dev/null"
  done
done
date -u
