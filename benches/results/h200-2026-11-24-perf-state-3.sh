source .device/env.sh
P=./.device/memory_probe
run() { # name, args
  nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,pstate,utilization.gpu,power.draw,clocks_event_reasons.active --format=csv,noheader -lms 20 > "$OUT/smi-$1.txt" & s=$!
  sleep 1; echo "== $1 start $(date +%T.%N)"; shift
  $P "$@" > "$OUT/loop-$name.txt" 2>&1; sleep 0.5; kill $s; wait $s 2>/dev/null
}
for spec in "busy --loop 3 --gap 0" "gap50 --loop 3 --gap 50" "late --loop 4 --gap 50 --late-cuda 2" "ctx --loop 3 --gap 50 --cuda ctx" "gap5 --loop 3 --gap 5"; do
  set -- $spec; name=$1
  run $spec
  echo "$name: kernels $(grep -c ms "$OUT/loop-$name.txt")"
  awk '/ms/ {n++; v[n]=$4} END {printf "GB/s first 5: %s %s %s %s %s; last 5: %s %s %s %s %s\n", v[1],v[2],v[3],v[4],v[5],v[n-4],v[n-3],v[n-2],v[n-1],v[n]}' "$OUT/loop-$name.txt"
  grep -i "opening" "$OUT/loop-$name.txt"
  awk -F', ' '{print $2, $3, $4}' "$OUT/smi-$name.txt" | sort | uniq -c | sort -rn | head -6
done
