#!/usr/bin/env bash
# `make bench-agent`: the agent's own cost. A local chain (default params:
# 5 s samples, 10 min epochs), an agent with 8 simulated GPUs running one
# 8-GPU lease, and its CPU time, RSS and private memory (USS: what the
# agent alone holds, Private_Clean + Private_Dirty of smaps_rollup; RSS also
# counts shared library pages) read from /proc every 10 s for BENCH_SECONDS
# (default 600). Prints a summary line per reading and a total.
#
#   BENCH_SECONDS  how long to measure (default 600)
#   BENCH_BIN      where idlegpud and idlegpu-agent are (default ./build)
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${BENCH_SECONDS:-600}
bin=${BENCH_BIN:-$PWD/build}
[ -x "$bin/idlegpud" ] && [ -x "$bin/idlegpu-agent" ] || { echo "run 'make build' first" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/agent-bench.XXXXXX")
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  pkill -f agent-bench-job 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
rpc_port=$(port); ep_port=$(port); m_port=$(port)
rpc=tcp://127.0.0.1:$rpc_port
NODE_HOME=$work/node NODE_SETUP_ONLY=1 IDLEGPUD=$bin/idlegpud scripts/node.sh >/dev/null
"$bin/idlegpud" start --home "$work/node" --rpc.laddr "$rpc" --p2p.laddr "tcp://127.0.0.1:$(port)" \
  --grpc.address "127.0.0.1:$(port)" --api.address "tcp://127.0.0.1:$(port)" --rpc.pprof_laddr "127.0.0.1:$(port)" \
  >"$work/node.log" 2>&1 &
pids+=($!)
d() { "$bin/idlegpud" --home "$work/node" --node "$rpc" "$@"; }
until d status >/dev/null 2>&1; do sleep 0.5; done
sleep 3

a="$work/agent"
"$bin/idlegpu-agent" init --home "$a" --keyring-backend test --gpu-backend sim --runner process --unsafe-process-runner --node "$rpc" >/dev/null
sed -i -e "s/^sim_count = .*/sim_count = 8/" -e "s/^listen = '0.0.0.0:9180'/listen = '127.0.0.1:$ep_port'/" \
       -e "s/^listen = '127.0.0.1:9181'/listen = '127.0.0.1:$m_port'/" "$a/agent.toml"
addr=$("$bin/idlegpud" keys show agent -a --keyring-backend test --keyring-dir "$a")
tx() { d tx "$@" --from alice --keyring-backend test --fees 2000ugpu --gas 600000 -y >/dev/null; sleep 2; }
tx bank send alice "$addr" 2000000000ugpu
"$bin/idlegpu-agent" register --home "$a" --region eu-de-fra1 --endpoint "https://127.0.0.1:$ep_port" --bond 800000000ugpu >/dev/null
"$bin/idlegpu-agent" run --home "$a" --log-level warn >"$work/agent.log" 2>&1 &
agent=$!
pids+=($agent)
sleep 8
echo '{"command":["sh","-c","while :; do sleep 1; done","agent-bench-job"]}' >"$work/manifest.json"
tx auction post-job --gpus 8 --model "NVIDIA H100 80GB HBM3" --min-memory 80GB --region eu --tier bronze \
  --duration 1h --max-price 1usdc/gpu-h --bid-window 0 --workload training --manifest "$work/manifest.json" \
  --image "registry.example/bench@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
"$bin/idlegpud" --home "$work/node" --node "$rpc" lease send-manifest 1 "$work/manifest.json" --from alice --keyring-backend test
sleep 5

hz=$(getconf CLK_TCK)
cpu() { awk '{print $14+$15}' "/proc/$agent/stat"; }
rss() { awk '/^VmRSS/{print $2}' "/proc/$agent/status"; }
uss() { awk '/^Private_(Clean|Dirty):/{s+=$2} END{print s}' "/proc/$agent/smaps_rollup"; }
c0=$(cpu); t0=$(date +%s.%N); maxrss=0; maxuss=0
echo "agent pid $agent: 8 simulated GPUs, one 8-GPU lease, sampling every 5 s; measuring ${secs}s"
for ((i = 10; i <= secs; i += 10)); do
  sleep 10
  kill -0 "$agent" || { echo "agent died:"; tail -20 "$work/agent.log"; exit 1; }
  r=$(rss); ((r > maxrss)) && maxrss=$r
  u=$(uss); ((u > maxuss)) && maxuss=$u
  printf '  t=%4ds cpu=%6.3f%% rss=%d KiB uss=%d KiB\n' "$i" "$(echo "($(cpu)-$c0)/$hz/($(date +%s.%N)-$t0)*100" | bc -l)" "$r" "$u"
done
c1=$(cpu); t1=$(date +%s.%N)
printf 'RESULT agent over %.0f s: CPU %.3f%% of one core (%.2f s CPU), max RSS %.1f MiB, max USS %.1f MiB\n' \
  "$(echo "$t1-$t0" | bc -l)" "$(echo "($c1-$c0)/$hz/($t1-$t0)*100" | bc -l)" "$(echo "($c1-$c0)/$hz" | bc -l)" \
  "$(echo "$maxrss/1024" | bc -l)" "$(echo "$maxuss/1024" | bc -l)"
d q auction lease 1 -o json | python3 -c 'import json,sys; l=json.load(sys.stdin)["lease"]; print("lease 1:", l["status"], "gpus", len(l["gpu_uuids"]))'
