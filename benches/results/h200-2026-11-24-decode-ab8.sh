#!/usr/bin/env bash
# A/B: the build before this session (parvlc-old, 281f340) against this one, 4 GiB of system files.
set -uo pipefail
source .device/env.sh
date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc
D=/tmp/d; mkdir -p $D
echo "== CUDA tests"
PARVLC_REQUIRE_CUDA=1 PARVLC_TEST_BACKENDS=cuda ./.device/stages-cuda vld 2>&1 | tail -4


echo "== inputs"
[ -f $D/sys.tar ] || for _ in 1 2 3 4 5 6 7 8; do tar cf - /usr /opt /etc 2>/dev/null; done | head -c 4294967296 > $D/sys.tar
.device/parvlc compress -f native $D/sys.tar -o $D/sys.pvlc --force 2>&1 | tail -1
.device/parvlc compress -f native --workgroup-size 64 $D/sys.tar -o $D/sys4k.pvlc --force 2>&1 | tail -1
ls -l $D/sys.pvlc $D/sys4k.pvlc
echo "== outputs checked"
for b in parvlc parvlc-old; do for be in wgpu cpu; do for f in sys sys4k; do
  cmp <(.device/$b decompress --backend $be $D/$f.pvlc -o -) $D/sys.tar && echo "$b $be $f equal"
done; done; done
cmp <(.device/parvlc-cuda decompress --backend cuda $D/sys.pvlc -o -) $D/sys.tar && echo "cuda equal"
echo "== times"
for r in 1 2 3; do
  for b in parvlc-old parvlc; do for be in wgpu cpu; do for f in sys sys4k; do
    /usr/bin/time -f "$b $be $f wall %e s peak %M KiB" .device/$b decompress --backend $be $D/$f.pvlc -o - > /dev/null
  done; done; done
  /usr/bin/time -f "parvlc-cuda cuda sys wall %e s peak %M KiB" .device/parvlc-cuda decompress --backend cuda $D/sys.pvlc -o - > /dev/null
done
echo "== vld kernel rows (bench, 1 GiB), a wgpu-only process (low state), then with CUDA's context"
B="--sizes 1073741824 --entropies 4.5,7 --strategies decoupled --no-baselines --cpu-max 0 --runs 3"
for r in 1 2; do
for b in parvlc-old parvlc; do
  echo "-- $b wgpu"; ./.device/$b bench --backend wgpu $B 2>&1 | grep -i "vld\|error\|panic"
done
echo "-- parvlc-cuda wgpu,cuda"; ./.device/parvlc-cuda bench --backend wgpu,cuda $B 2>&1 | grep -i "vld\|error\|panic"
done
