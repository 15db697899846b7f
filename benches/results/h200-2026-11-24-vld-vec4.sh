source .device/env.sh
date -u
B="--sizes 67108864,1073741824 --entropies 2,4.5,7 --strategies decoupled --no-baselines --cpu-max 0 --runs 3"
for r in 1 2; do for P in .device/parvlc-prev .device/parvlc; do for be in wgpu wgpu,cuda; do
  echo "== $P --backend $be"
  $P bench --backend $be $B --json "$OUT/$(basename $P)-${be/,/-}-$r.jsonl" 2>&1 | grep -E "^synthetic|vld +decode|rror"
done; done; done
