source .device/env.sh
date -u
P=./.device/memory_probe
for m in none ctx none ctx; do $P --cuda $m 2>&1 | grep -v "^\[" ; done
B="--sizes 1073741824 --entropies 4.5 --strategies decoupled --no-baselines --cpu-max 0 --runs 3"
for e in none init late none init late; do
  echo "== EXP_CUDA=$e"
  EXP_CUDA=$e ./.device/parvlc bench --backend wgpu $B 2>&1 | grep -i "EXP\|^vld \|error\|panic" | head -30
done
