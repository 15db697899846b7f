source .device/env.sh
nvidia-smi --query-gpu=name,driver_version,compute_mode --format=csv,noheader; date -u
P=./.device/memory_probe
for m in none ctx init ctx-drop ctx-after none ctx; do $P --cuda $m 2>&1 | grep -v "^\[" ; done
echo "== another process holds a CUDA context"
$P --cuda ctx --hold 25 & holder=$!
sleep 4
$P --cuda none
kill $holder
