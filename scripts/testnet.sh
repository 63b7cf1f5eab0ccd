#!/usr/bin/env bash
# `make testnet`: the genesis ceremony of a network of N validators on N
# machines, done on one machine. It makes N homes (keys, config.toml with
# every other validator as a persistent peer), one genesis holding every
# validator's gentx, and beside each home a README of what to copy to its
# machine, how to start it and which ports to open (docs/operators.md).
# scripts/localnet.sh makes its homes with the same functions (it sources
# this file) and runs them on loopback.
#
#   scripts/testnet.sh [init]   make the homes (refuses a directory already used)
#   scripts/testnet.sh start    loopback only (no HOSTS): start the N nodes here
#   scripts/testnet.sh stop     stop them (SIGTERM)
#   scripts/testnet.sh status   height and app hash of each node
#
#   TESTNET_DIR  homes, READMEs, logs     (default ./build/testnet)
#   N            validators               (default 4)
#   CHAIN_ID                              (default idlegpu-testnet)
#   HOSTS        ip1,ip2,… one address (IP or DNS name) per validator: its
#                machine's address that the others dial; absent, all run on
#                127.0.0.1, node I on ports TESTNET_PORT_BASE + 10·I + 0..5
#                (p2p rpc grpc api pprof prometheus; the base is 26600)
#   IDLEGPUD     binary                   (default ./build/idlegpud)
#   TESTNET_DEV=1  a development genesis: simulated GPUs allowed (x/provider)
#
# Each validator's operator key is in a file keyring in its home, unlocked
# by the passphrase in TESTNET_DIR/nodeI.keyring-passphrase (random, made
# here): idlegpud reads it with --keyring-passphrase-file, so nothing
# prompts. node0's keyring also holds "faucet", funded to pay new
# validators' stakes.
set -euo pipefail

# A validator's genesis balance and its self-delegation, in ugpu.
TESTNET_BALANCE=1000000000000
TESTNET_STAKE=100000000000
# What the faucet holds to fund validators that join later.
TESTNET_FAUCET=10000000000000

# tn_port I K: loopback node I's K-th port.
tn_port() { echo $((${TESTNET_PORT_BASE:-26600} + $1 * 10 + $2)); }

tn_home() { echo "$tn_dir/node$1"; }
tn_d() { local i=$1; shift; "$tn_bin" --home "$(tn_home "$i")" "$@"; }

# tn_keyring I: the keyring flags of node I's operator key.
tn_keyring() {
  if [ "$tn_backend" = file ]; then
    echo "--keyring-backend file --keyring-passphrase-file $tn_dir/node$1.keyring-passphrase"
  else
    echo "--keyring-backend $tn_backend"
  fi
}

# toml_set FILE SECTION KEY VALUE: set KEY in [SECTION] ("" for the top
# level) to VALUE, written as TOML; the key must already be there.
toml_set() {
  local file=$1 tmp
  tmp=$(mktemp "$file.XXXXXX")
  if ! awk -v sec="$2" -v key="$3" -v val="$4" '
      /^\[/ { cur = substr($0, 2, length($0) - 2) }
      cur == sec && $0 ~ "^" key " *=" && !done { print key " = " val; done = 1; next }
      { print }
      END { exit !done }' "$file" >"$tmp"; then
    rm -f "$tmp"
    echo "testnet: no $3 under [$2] in $file" >&2
    return 1
  fi
  chmod --reference="$file" "$tmp"
  mv "$tmp" "$file"
}

# tn_homes: N homes, each with its validator's key, all funded in node0's
# genesis. Set before: tn_bin tn_dir tn_n tn_chain tn_backend.
tn_homes() {
  local i
  mkdir -p "$tn_dir"
  for ((i = 0; i < tn_n; i++)); do
    tn_d "$i" init "validator$i" --chain-id "$tn_chain" >/dev/null 2>&1
    sed -i -e "s/^chain-id = .*/chain-id = \"$tn_chain\"/" -e "s/^keyring-backend = .*/keyring-backend = \"$tn_backend\"/" \
      "$(tn_home "$i")/config/client.toml"
    if [ "$tn_backend" = file ]; then
      (umask 077 && od -An -tx1 -N24 /dev/urandom | tr -d ' \n' >"$tn_dir/node$i.keyring-passphrase" && echo >>"$tn_dir/node$i.keyring-passphrase")
    fi
    # shellcheck disable=SC2046
    tn_d "$i" keys add "validator$i" $(tn_keyring "$i") </dev/null >/dev/null 2>&1
    # shellcheck disable=SC2046
    tn_d 0 genesis add-genesis-account "$(tn_d "$i" keys show "validator$i" -a $(tn_keyring "$i") </dev/null)" "${TESTNET_BALANCE}ugpu" >/dev/null
  done
}

# tn_gentxs: every validator signs its gentx against node0's genesis, which
# collects them; every home gets the result.
tn_gentxs() {
  local i
  mkdir -p "$(tn_home 0)/config/gentx"
  for ((i = 0; i < tn_n; i++)); do
    [ "$i" = 0 ] || cp "$(tn_home 0)/config/genesis.json" "$(tn_home "$i")/config/genesis.json"
    # shellcheck disable=SC2046
    tn_d "$i" genesis gentx "validator$i" "${TESTNET_STAKE}ugpu" --chain-id "$tn_chain" $(tn_keyring "$i") \
      --output-document "$(tn_home 0)/config/gentx/validator$i.json" </dev/null >/dev/null 2>&1
  done
  tn_d 0 genesis collect-gentxs >/dev/null 2>&1
  tn_d 0 genesis validate >/dev/null
  for ((i = 1; i < tn_n; i++)); do cp "$(tn_home 0)/config/genesis.json" "$(tn_home "$i")/config/genesis.json"; done
}

# tn_peer I: node I's persistent-peer address.
tn_peer() {
  if [ -n "$tn_hosts" ]; then
    echo "$(tn_d "$1" comet show-node-id)@${tn_host[$1]}:26656"
  else
    echo "$(tn_d "$1" comet show-node-id)@127.0.0.1:$(tn_port "$1" 0)"
  fi
}

# tn_config: each node's config.toml and app.toml name its addresses and
# every other validator as a persistent peer, so `idlegpud start --home`
# needs no flags. With HOSTS a node listens for peers on every interface
# and serves RPC, gRPC and metrics on loopback only; without, everything is
# on 127.0.0.1 at its own ports.
tn_config() {
  local i j peers cfg app
  for ((i = 0; i < tn_n; i++)); do
    peers=()
    for ((j = 0; j < tn_n; j++)); do [ "$j" = "$i" ] || peers+=("$(tn_peer "$j")"); done
    cfg="$(tn_home "$i")/config/config.toml"
    app="$(tn_home "$i")/config/app.toml"
    toml_set "$cfg" p2p persistent_peers "\"$(IFS=,; echo "${peers[*]}")\""
    toml_set "$cfg" instrumentation prometheus true
    if [ -n "$tn_hosts" ]; then
      toml_set "$cfg" p2p laddr '"tcp://0.0.0.0:26656"'
      toml_set "$cfg" p2p external_address "\"${tn_host[$i]}:26656\""
      toml_set "$cfg" rpc laddr '"tcp://127.0.0.1:26657"'
      toml_set "$cfg" instrumentation prometheus_listen_addr '"127.0.0.1:26660"'
      # Private addresses (a LAN, a VPN) are not routable by CometBFT's
      # strict rules: peers on them need the address book relaxed.
      if tn_private_hosts; then toml_set "$cfg" p2p addr_book_strict false; fi
    else
      toml_set "$cfg" p2p laddr "\"tcp://127.0.0.1:$(tn_port "$i" 0)\""
      toml_set "$cfg" p2p external_address "\"127.0.0.1:$(tn_port "$i" 0)\""
      toml_set "$cfg" rpc laddr "\"tcp://127.0.0.1:$(tn_port "$i" 1)\""
      toml_set "$cfg" rpc pprof_laddr "\"127.0.0.1:$(tn_port "$i" 4)\""
      toml_set "$cfg" instrumentation prometheus_listen_addr "\"127.0.0.1:$(tn_port "$i" 5)\""
      toml_set "$cfg" p2p allow_duplicate_ip true
      toml_set "$cfg" p2p addr_book_strict false
      toml_set "$app" grpc address "\"127.0.0.1:$(tn_port "$i" 2)\""
      toml_set "$app" api address "\"tcp://127.0.0.1:$(tn_port "$i" 3)\""
      sed -i "s|^node = .*|node = \"tcp://127.0.0.1:$(tn_port "$i" 1)\"|" "$(tn_home "$i")/config/client.toml"
    fi
  done
}

# tn_private_hosts: whether any of HOSTS is a loopback or private address.
tn_private_hosts() {
  local h
  for h in "${tn_host[@]}"; do
    case "$h" in
      127.* | 10.* | 192.168.* | 172.1[6-9].* | 172.2[0-9].* | 172.3[01].* | 100.6[4-9].* | 100.[7-9][0-9].* | 100.1[01][0-9].* | 100.12[0-7].*) return 0 ;;
    esac
  done
  return 1
}

# tn_readme I: what the operator of machine I does with its home.
tn_readme() {
  local i=$1 home p2p rpc val
  home=$(tn_home "$i")
  # shellcheck disable=SC2046
  val=$(tn_d "$i" keys show "validator$i" -a $(tn_keyring "$i") </dev/null)
  if [ -n "$tn_hosts" ]; then p2p=26656 rpc=26657; else p2p=$(tn_port "$i" 0) rpc=$(tn_port "$i" 1); fi
  {
    echo "# validator$i of $tn_chain"
    echo
    echo "Machine $i$([ -n "$tn_hosts" ] && echo " (${tn_host[$i]})"). Its home, \`node$i/\`, holds the network's genesis"
    echo "(sha256 \`$(sha256sum "$home/config/genesis.json" | cut -d' ' -f1)\`), this validator's consensus key"
    echo "(\`config/priv_validator_key.json\`), its node key and its operator key \`validator$i\` ($val)"
    echo "in a file keyring, unlocked by \`node$i.keyring-passphrase\`. Both are secrets: copy them over"
    echo "an encrypted channel and keep no other copy online (docs/operators.md, \"Backups and key security\")."
    echo
    echo "## Install and start"
    echo
    echo '```sh'
    if [ -n "$tn_hosts" ]; then
      echo "# on machine $i, with the idlegpud package installed (home /var/lib/idlegpud):"
      echo "rsync -a node$i/ root@${tn_host[$i]}:/var/lib/idlegpud/"
      echo "scp node$i.keyring-passphrase root@${tn_host[$i]}:/etc/idlegpud/keyring-passphrase"
      echo "ssh root@${tn_host[$i]} 'chown -R idlegpud:idlegpud /var/lib/idlegpud &&"
      echo "  chown root:idlegpud /etc/idlegpud/keyring-passphrase && chmod 0640 /etc/idlegpud/keyring-passphrase &&"
      echo "  systemctl enable --now idlegpud'"
      echo
      echo "# or by hand, with idlegpud on the PATH:"
      echo "idlegpud start --home <where node$i/ was copied>"
    else
      echo "$tn_bin start --home $home"
    fi
    echo '```'
    echo
    echo "Every validator's config.toml names the others as persistent peers"
    echo "($(sed -n 's/^persistent_peers = //p' "$home/config/config.toml"))."
    echo "The chain makes blocks once validators holding more than two thirds of the stake"
    echo "are up ($((tn_n * 2 / 3 + 1)) of $tn_n, equal stakes)."
    echo
    echo "## Ports"
    echo
    echo "| port | what | open to |"
    echo "|---|---|---|"
    echo "| $p2p/tcp | CometBFT p2p | the other validators (and sentries, full nodes) |"
    echo "| $rpc/tcp | CometBFT RPC, on 127.0.0.1 | nobody else; the bridge orchestrator and your tools run here |"
    if [ -n "$tn_hosts" ]; then
      echo "| 26660/tcp | Prometheus metrics, on 127.0.0.1 | your Prometheus, through a tunnel or a private network (set prometheus_listen_addr) |"
      echo "| 9090/tcp | gRPC, on 127.0.0.1 | nobody else |"
    else
      echo "| $(tn_port "$i" 5)/tcp | Prometheus metrics | your Prometheus |"
      echo "| $(tn_port "$i" 2)/tcp | gRPC | nobody else |"
    fi
    echo
    echo "## Check"
    echo
    echo '```sh'
    echo "idlegpud status --node tcp://127.0.0.1:$rpc          # latest_block_height rises"
    echo "idlegpud q staking validators --node tcp://127.0.0.1:$rpc -o json"
    echo '```'
    echo
    echo "Then run the bridge orchestrator beside it (docs/operators.md, \"The bridge duty\")."
  } >"$tn_dir/node$i.md"
}

# tn_summary: the directory's README, one line per machine.
tn_summary() {
  local i
  {
    echo "# $tn_chain: $tn_n validators"
    echo
    echo "Made by \`make testnet\` with $("$tn_bin" version 2>&1). Give machine I \`nodeI/\`,"
    echo "\`nodeI.keyring-passphrase\` and \`nodeI.md\` (its instructions). Every home holds the same"
    echo "\`config/genesis.json\` (sha256 \`$(sha256sum "$(tn_home 0)/config/genesis.json" | cut -d' ' -f1)\`)."
    echo "node0's keyring also holds \`faucet\`, which funds validators that join later."
    echo
    for ((i = 0; i < tn_n; i++)); do
      echo "- node$i: validator$i$([ -n "$tn_hosts" ] && echo " on ${tn_host[$i]}"), p2p id $(tn_d "$i" comet show-node-id)"
    done
  } >"$tn_dir/README.md"
}

# tn_pid I / tn_start I / tn_stop I: loopback nodes run here.
tn_pid() { cat "$tn_dir/node$1.pid" 2>/dev/null; }
tn_start() {
  local i=$1
  if [ -n "$(tn_pid "$i")" ] && kill -0 "$(tn_pid "$i")" 2>/dev/null; then return 0; fi
  "$tn_bin" start --home "$(tn_home "$i")" --log_no_color >>"$tn_dir/node$i.log" 2>&1 &
  echo $! >"$tn_dir/node$i.pid"
}
tn_stop() {
  local i=$1 pid
  pid=$(tn_pid "$i")
  [ -n "$pid" ] || return 0
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null || true
  rm -f "$tn_dir/node$i.pid"
}

tn_main() {
  cd "$(dirname "${BASH_SOURCE[0]}")/.."
  tn_bin=${IDLEGPUD:-$PWD/build/idlegpud}
  tn_dir=${TESTNET_DIR:-$PWD/build/testnet}
  tn_n=${N:-4}
  tn_chain=${CHAIN_ID:-idlegpu-testnet}
  tn_backend="file"
  tn_hosts=${HOSTS:-}
  IFS=, read -r -a tn_host <<<"$tn_hosts"
  [ -x "$tn_bin" ] || { echo "testnet: $tn_bin not built: run 'make build'" >&2; exit 1; }
  [[ "$tn_n" =~ ^[1-9][0-9]*$ ]] || { echo "testnet: N=$tn_n is not a number of validators" >&2; exit 2; }
  if [ -n "$tn_hosts" ] && [ "${#tn_host[@]}" != "$tn_n" ]; then
    echo "testnet: HOSTS names ${#tn_host[@]} machines for N=$tn_n validators" >&2
    exit 2
  fi
  mkdir -p "$tn_dir"
  tn_dir=$(cd "$tn_dir" && pwd)

  case "${1:-init}" in
    init)
      if [ -e "$(tn_home 0)" ]; then
        echo "testnet: $tn_dir already holds a network: remove it first" >&2
        exit 1
      fi
      tn_homes
      # shellcheck disable=SC2046
      tn_d 0 keys add faucet $(tn_keyring 0) </dev/null >/dev/null 2>&1
      # shellcheck disable=SC2046
      tn_d 0 genesis add-genesis-account "$(tn_d 0 keys show faucet -a $(tn_keyring 0) </dev/null)" "${TESTNET_FAUCET}ugpu" >/dev/null
      if [ "${TESTNET_DEV:-0}" = 1 ]; then tn_d 0 genesis development; fi
      tn_gentxs
      tn_config
      for ((i = 0; i < tn_n; i++)); do tn_readme "$i"; done
      tn_summary
      echo "testnet: $tn_n validators of $tn_chain in $tn_dir (README.md; machine I: nodeI/, nodeI.keyring-passphrase, nodeI.md)"
      ;;
    start | stop | status)
      [ -z "$tn_hosts" ] || { echo "testnet: $1 runs loopback networks only (made without HOSTS)" >&2; exit 2; }
      [ -e "$(tn_home 0)" ] || { echo "testnet: no network in $tn_dir: run 'make testnet' first" >&2; exit 1; }
      for ((i = 0; i < tn_n; i++)); do
        case "$1" in
          start) tn_start "$i" ;;
          stop) tn_stop "$i" ;;
          status)
            printf 'validator%d ' "$i"
            "$tn_bin" status --home "$(tn_home "$i")" 2>/dev/null |
              python3 -c 'import json,sys; s=json.load(sys.stdin)["sync_info"]; print(s["latest_block_height"], s["latest_app_hash"])' 2>/dev/null ||
              echo down
            ;;
        esac
      done
      [ "$1" = status ] || echo "testnet: $1: $tn_n nodes in $tn_dir (logs nodeI.log)"
      ;;
    *) echo "usage: $0 [init|start|stop|status]" >&2; exit 2 ;;
  esac
}

# Sourced (scripts/localnet.sh), it only defines the functions.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then tn_main "$@"; fi
