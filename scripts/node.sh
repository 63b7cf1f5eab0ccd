#!/usr/bin/env bash
# `make node`: a fresh single-validator idlegpu chain in a temporary home, with
# a funded test key, 1 s blocks, started in the foreground. Ctrl-C stops it and
# removes the home. Prints how to talk to it before it starts.
#
#   IDLEGPUD   binary to run          (default: ./build/idlegpud)
#   NODE_HOME  keep state here        (default: a new temp dir, removed on exit)
#   CHAIN_ID   chain id               (default: idlegpu-local)
#   NODE_SETUP_ONLY=1  prepare NODE_HOME (keys, genesis) and exit without
#              starting: tests and demos edit the genesis, then start it
#   NODE_RPC_PORT, NODE_P2P_PORT, NODE_GRPC_PORT, NODE_API_PORT, NODE_PPROF_PORT
#              move the node's ports (defaults 26657, 26656, 9090, 1317,
#              6060), e.g. to run beside another node; client.toml follows
#              the RPC port, so `idlegpud --home <home> …` finds the node
# Other arguments are passed to `idlegpud start`.
set -euo pipefail

cd "$(dirname "$0")/.."
bin=${IDLEGPUD:-$PWD/build/idlegpud}
chain_id=${CHAIN_ID:-idlegpu-local}
rpc_port=${NODE_RPC_PORT:-26657}
p2p_port=${NODE_P2P_PORT:-26656}
grpc_port=${NODE_GRPC_PORT:-9090}
api_port=${NODE_API_PORT:-1317}
pprof_port=${NODE_PPROF_PORT:-6060}
[ -x "$bin" ] || { echo "node: $bin not built: run 'make build'" >&2; exit 1; }

if [ -n "${NODE_HOME:-}" ]; then
  home=$NODE_HOME
  keep=1
else
  home=$(mktemp -d "${TMPDIR:-/tmp}/idlegpu-node.XXXXXX")
  keep=0
fi
cleanup() { [ "$keep" = 1 ] || rm -rf "$home"; }
trap cleanup EXIT

d() { "$bin" --home "$home" "$@"; }

if [ ! -f "$home/config/genesis.json" ]; then
  d init local-node --chain-id "$chain_id" >/dev/null 2>&1
  # client.toml: talk to this chain with the test keyring by default.
  sed -i -e "s/^chain-id = .*/chain-id = \"$chain_id\"/" \
         -e 's/^keyring-backend = .*/keyring-backend = "test"/' "$home/config/client.toml"
  # A validator key and a funded user key, both in the test keyring
  # (unencrypted: for local networks only).
  d keys add validator --keyring-backend test >/dev/null 2>&1
  d keys add alice --keyring-backend test --output json >"$home/alice.json" 2>&1
  val=$(d keys show validator -a --keyring-backend test)
  alice=$(d keys show alice -a --keyring-backend test)
  d genesis add-genesis-account "$val" 1000000000000ugpu >/dev/null
  d genesis add-genesis-account "$alice" 1000000000000ugpu,1000000000000uusdc >/dev/null
  d genesis gentx validator 100000000000ugpu --chain-id "$chain_id" --keyring-backend test >/dev/null 2>&1
  d genesis collect-gentxs >/dev/null 2>&1
  # The market takes uusdc next to ugpu (x/offer payment_denoms, sorted).
  sed -i '/"payment_denoms": \[/{n;s/"ugpu"/"ugpu",\n          "uusdc"/}' "$home/config/genesis.json"
  # The development genesis pre-mints alice's 1,000,000 USDC with no vault
  # deposit behind it: x/bridge books it as unbacked, hers (a bridged
  # network starts at zero), so she can spend it on the chain but never
  # withdraw it to the EVM side, where only deposits can be withdrawn.
  sed -i -e 's/"unbacked": "0"/"unbacked": "1000000000000"/' \
    -e "s/\"unbacked_holders\": \[\]/\"unbacked_holders\": [{\"address\": \"$alice\", \"amount\": \"1000000000000\"}]/" \
    "$home/config/genesis.json"
  # A development chain: agents may register simulated GPUs, audited with
  # the simulated model on the CPU (x/provider allow_simulated_gpus).
  d genesis development
  # NODE_GPU_PASSES="GPU-… GPU-…": GPUs alice will register by hand (no agent
  # to run their audits) start with an audit pass, so they can be offered.
  if [ -n "${NODE_GPU_PASSES:-}" ]; then
    # shellcheck disable=SC2086
    d genesis add-gpu-pass "$alice" $NODE_GPU_PASSES
  fi
  d genesis validate >/dev/null
fi

# Every run: the client talks to the RPC port this run uses.
sed -i "s|^node = .*|node = \"tcp://127.0.0.1:$rpc_port\"|" "$home/config/client.toml"

alice=$(d keys show alice -a --keyring-backend test)
if [ "${NODE_SETUP_ONLY:-0}" = 1 ]; then
  [ "$keep" = 1 ] || { echo "node: NODE_SETUP_ONLY needs NODE_HOME" >&2; exit 1; }
  echo "$home"
  exit 0
fi
cat <<MSG
idlegpu local node
  home      $home$( [ "$keep" = 1 ] || echo " (removed on exit)" )
  chain id  $chain_id
  rpc       http://127.0.0.1:$rpc_port   api http://127.0.0.1:$api_port   grpc 127.0.0.1:$grpc_port   p2p $p2p_port
  alice     $alice (1,000,000 gpu and 1,000,000 usdc, key in the test keyring)

In another shell:
  $bin --home $home q provider params
  $bin --home $home q offer search --model "NVIDIA H100 80GB HBM3"
  $bin --home $home tx bank send alice <addr> 1000000ugpu --fees 500ugpu -y
Ctrl-C stops the node.
MSG

# Not exec: the EXIT trap must run after the node stops to remove the home.
"$bin" start --home "$home" --api.enable \
  --rpc.laddr "tcp://127.0.0.1:$rpc_port" --p2p.laddr "tcp://0.0.0.0:$p2p_port" \
  --grpc.address "127.0.0.1:$grpc_port" --api.address "tcp://127.0.0.1:$api_port" \
  --rpc.pprof_laddr "127.0.0.1:$pprof_port" "$@" &
pid=$!
interrupted=0
trap 'interrupted=1; kill -INT "$pid" 2>/dev/null || true' INT TERM
status=0
wait "$pid" || status=$?
# A trapped signal ends the first wait early: wait for the node to finish.
while kill -0 "$pid" 2>/dev/null; do wait "$pid" || status=$?; done
if [ "$interrupted" = 1 ]; then
  echo "node stopped"
  exit 0
fi
exit "$status"
