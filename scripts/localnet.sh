#!/usr/bin/env bash
# `make localnet` / `make localnet-stop`: four idlegpud validators on
# loopback, each with its own home and ports, for the fault tests and the
# load benchmark.
#
#   scripts/localnet.sh init            make the homes (keys, one genesis, gentxs)
#   scripts/localnet.sh start           init if needed, start all four in the background
#   scripts/localnet.sh stop            stop all four (SIGTERM)
#   scripts/localnet.sh start-node I    start validator I (0..3)
#   scripts/localnet.sh kill-node I [SIG]  signal validator I (default KILL)
#   scripts/localnet.sh status          height and app hash of each validator
#
#   LOCALNET_DIR    homes, logs, pids   (default ./build/localnet)
#   LOCALNET_VALIDATORS  how many validators (default 4)
#   LOCALNET_PORTS  5 ports per node (p2p rpc grpc api pprof); default
#                   26600 + 10·I + 0..4
#   IDLEGPUD        binary (default ./build/idlegpud)
#   CHAIN_ID        (default idlegpu-localnet)
# Validator 0's home holds alice, funded with ugpu and uusdc (test keyring).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${IDLEGPUD:-$PWD/build/idlegpud}
dir=${LOCALNET_DIR:-$PWD/build/localnet}
chain_id=${CHAIN_ID:-idlegpu-localnet}
n=${LOCALNET_VALIDATORS:-4}
[ -x "$bin" ] || { echo "localnet: $bin not built: run 'make build'" >&2; exit 1; }
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)

read -r -a ports <<<"${LOCALNET_PORTS:-}"
port() { # port I K: node I's K-th port
  if [ "${#ports[@]}" -ge $((n * 5)) ]; then echo "${ports[$(($1 * 5 + $2))]}"; else echo $((26600 + $1 * 10 + $2)); fi
}
home() { echo "$dir/node$1"; }
d() { local i=$1; shift; "$bin" --home "$(home "$i")" "$@"; }

# The genesis ceremony is testnet.sh's (tn_homes, tn_gentxs); the
# localnet adds alice, the development genesis and loopback settings.
# shellcheck source=scripts/testnet.sh
source "$PWD/scripts/testnet.sh"
tn_bin=$bin tn_dir=$dir tn_n=$n tn_chain=$chain_id tn_backend=test

init() {
  [ -f "$(home 0)/config/genesis.json" ] && return 0
  tn_homes
  for ((i = 0; i < n; i++)); do
    sed -i -e "s|^node = .*|node = \"tcp://127.0.0.1:$(port "$i" 1)\"|" "$(home "$i")/config/client.toml"
    # Four nodes on one IP: CometBFT refuses that unless told.
    sed -i -e 's/^allow_duplicate_ip = .*/allow_duplicate_ip = true/' -e 's/^addr_book_strict = .*/addr_book_strict = false/' \
      "$(home "$i")/config/config.toml"
  done
  d 0 keys add alice --keyring-backend test >/dev/null 2>&1
  local alice
  alice=$(d 0 keys show alice -a --keyring-backend test)
  d 0 genesis add-genesis-account "$alice" 1000000000000ugpu,1000000000000uusdc >/dev/null
  sed -i '/"payment_denoms": \[/{n;s/"ugpu"/"ugpu",\n          "uusdc"/}' "$(home 0)/config/genesis.json"
  # alice's 1,000,000 USDC are pre-minted with no vault deposit behind them:
  # x/bridge books them as unbacked, hers (a bridged network starts at
  # zero): she can spend them on the chain, never withdraw them.
  sed -i -e 's/"unbacked": "0"/"unbacked": "1000000000000"/' \
    -e "s/\"unbacked_holders\": \[\]/\"unbacked_holders\": [{\"address\": \"$alice\", \"amount\": \"1000000000000\"}]/" \
    "$(home 0)/config/genesis.json"
  # A development chain: simulated GPUs allowed, audited on the CPU.
  d 0 genesis development
  tn_gentxs
  echo "localnet: homes in $dir"
}

peers() {
  local out=() i
  for ((i = 0; i < n; i++)); do out+=("$(d "$i" comet show-node-id)@127.0.0.1:$(port "$i" 0)"); done
  (IFS=,; echo "${out[*]}")
}

start_node() {
  local i=$1
  if [ -f "$dir/node$i.pid" ] && kill -0 "$(cat "$dir/node$i.pid")" 2>/dev/null; then return 0; fi
  # The binary itself in the background (not through d(), a function: $!
  # would be a subshell, and signals would miss the node).
  "$bin" --home "$(home "$i")" start --log_no_color \
    --p2p.laddr "tcp://127.0.0.1:$(port "$i" 0)" --rpc.laddr "tcp://127.0.0.1:$(port "$i" 1)" \
    --grpc.address "127.0.0.1:$(port "$i" 2)" --api.address "tcp://127.0.0.1:$(port "$i" 3)" \
    --rpc.pprof_laddr "127.0.0.1:$(port "$i" 4)" --p2p.persistent_peers "$(peers)" \
    >>"$dir/node$i.log" 2>&1 &
  echo $! >"$dir/node$i.pid"
}

signal_node() {
  local i=$1 sig=${2:-KILL}
  [ -f "$dir/node$i.pid" ] || return 0
  kill -"$sig" "$(cat "$dir/node$i.pid")" 2>/dev/null || true
  if [ "$sig" != KILL ]; then
    for _ in $(seq 100); do kill -0 "$(cat "$dir/node$i.pid")" 2>/dev/null || break; sleep 0.1; done
    # A node still flushing after 10 s is killed: a stop must stop it.
    kill -KILL "$(cat "$dir/node$i.pid")" 2>/dev/null || true
  fi
  rm -f "$dir/node$i.pid"
}

case "${1:-start}" in
  init) init ;;
  start)
    init
    for ((i = 0; i < n; i++)); do start_node "$i"; done
    echo "localnet: $n validators up; rpc $(for ((i = 0; i < n; i++)); do printf 'tcp://127.0.0.1:%s ' "$(port "$i" 1)"; done)"
    echo "  alice: $bin --home $(home 0) ...   stop: make localnet-stop"
    ;;
  stop) for ((i = 0; i < n; i++)); do signal_node "$i" TERM; done; echo "localnet: stopped" ;;
  start-node) start_node "$2" ;;
  kill-node) signal_node "$2" "${3:-KILL}" ;;
  status)
    for ((i = 0; i < n; i++)); do
      printf 'validator%d ' "$i"
      "$bin" status --node "tcp://127.0.0.1:$(port "$i" 1)" 2>/dev/null |
        python3 -c 'import json,sys; s=json.load(sys.stdin)["sync_info"]; print(s["latest_block_height"], s["latest_app_hash"])' 2>/dev/null ||
        echo down
    done
    ;;
  *) echo "usage: $0 init|start|stop|start-node I|kill-node I [SIG]|status" >&2; exit 2 ;;
esac
