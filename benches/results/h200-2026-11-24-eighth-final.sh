#!/usr/bin/env bash
# Final figures of the pass at its last code commit: the library's host-to-host compress
# (bench row stream, both scopes, 1 GiB at 4.5 bits) and the CLI's GPU and CPU decode of
# 4 GiB of system files (4 KiB blocks), output checked first.
set -uo pipefail
source .device/env.sh
date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; git log -1 --format='commit %h' 2>/dev/null
B="--sizes 1073741824 --entropies 4.5 --strategies decoupled --no-baselines --cpu-max 0 --runs 3"
for r in 1 2; do .device/parvlc bench $B 2>&1 | grep -i "stream\|error\|panic"; done
D=/tmp/f; mkdir -p $D
for _ in 1 2 3 4 5 6 7 8; do tar cf - /usr /opt /etc 2>/dev/null; done | head -c 4294967296 > $D/sys.tar
.device/parvlc compress -f native $D/sys.tar -o $D/sys.pvlc --force 2>&1 | tail -1
cmp <(.device/parvlc decompress --backend wgpu $D/sys.pvlc -o -) $D/sys.tar && echo "wgpu output equal"
for r in 1 2 3 4; do for be in wgpu cpu; do
  /usr/bin/time -f "decompress --backend $be wall %e s peak %M KiB" .device/parvlc decompress --backend $be $D/sys.pvlc -o - > /dev/null
done; done
