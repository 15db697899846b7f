#!/usr/bin/env bash
# Where a file-to-file compress's time goes: the scratch folder's filesystem, how fast
# this machine writes one new file there (examples/file_write_bench: one thread's write,
# threads' pwrite, threads copying into a shared mapping; each with its fsync), and the
# CLI's compress of 4 GiB of system files to a file (with its fsync), to a file through
# standard output (no fsync), and to /dev/null. Outputs checked first.
# There, from the project root, .device carried: bash scripts/h200-write14.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start write14
D=/tmp/parvlc-write14
sys_files "$D"
df -hT "$D" /dev/shm; findmnt -T "$D"; free -g
.device/parvlc compress -f gzip "$D/sys.tar" -o "$D/g.gz" --force 2>&1 | tail -1
gzip -dc "$D/g.gz" | cmp - "$D/sys.tar" && echo "file to file: gzip -dc gives the input"
ls -l "$D/g.gz"
.device/file_write_bench "$D" "$(( $(stat -c %s "$D/g.gz") >> 20 ))"
rm -f "$D/g.gz"
for r in 1 2 3; do
  wall "cat to file run $r" "cat $D/sys.tar > $D/c.tar"; rm -f "$D/c.tar"
  wall "gzip stdin to /dev/null run $r" ".device/parvlc compress -f gzip - -o - < $D/sys.tar"
  wall "gzip stdin to stdout file run $r" ".device/parvlc compress -f gzip - -o - < $D/sys.tar > $D/o.gz"; rm -f "$D/o.gz"; sync
  wall "gzip file to file run $r" ".device/parvlc compress -f gzip $D/sys.tar -o $D/o.gz --force"; rm -f "$D/o.gz"; sync
  wall "native file to file run $r" ".device/parvlc compress -f native $D/sys.tar -o $D/o.pvlc --force"; rm -f "$D/o.pvlc"; sync
done
RUST_LOG=parvlc=debug .device/parvlc compress -f gzip "$D/sys.tar" -o "$D/o.gz" --force 2>&1 | chunk_phases
rm -rf "$D"
date -u
