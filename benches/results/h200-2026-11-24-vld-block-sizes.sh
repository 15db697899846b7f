source .device/env.sh
date -u
X=.device/parvlc; OLD=.device/parvlc-prev
B="--sizes 1073741824 --entropies 4.5 --strategies decoupled --no-baselines --cpu-max 0 --runs 3"
for wg in 256 64 128; do for be in wgpu wgpu,cuda; do
  echo "== blocks of $((wg*64/1024)) KiB (workgroup size $wg), --backend $be"
  $X bench --backend $be $B --workgroup-size $wg --json "$OUT/blocks-$wg-${be/,/-}.jsonl" 2>&1 | grep -E "vld|stream|cuvle-decoupled +encode|rror"
done; done
echo "== stream row: previous build (a reader thread copies the bytes) against this one (coders slice them), alternating"
for r in 1 2; do for P in $OLD $X; do echo "$P"; $P bench --backend wgpu $B 2>&1 | grep "stream "; done; done
