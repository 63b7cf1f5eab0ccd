#!/usr/bin/env bash
# `make release-check`: the Linux packages, installed for real. As root on a
# Debian machine (CI) it packages the ./build binaries as linux/amd64 .debs
# with SHA256SUMS, checks that scripts/install.sh refuses a tampered release
# and installs a good one (plain binaries into a prefix, then the .debs with
# dpkg), checks each package's user, group, directories, modes and unit
# (systemd-analyze verify), then runs what each unit's ExecStart runs, as the
# unit's user with its environment file:
#   idlegpud        a single-validator chain initialised in /var/lib/idlegpud
#                   as scripts/node.sh does; blocks seen on its RPC /status
#   idlegpu-web     serving that chain, with a relayer key unlocked from its
#                   stdin as the unit gives it; /healthz has indexed blocks
#   idlegpu-bridge  the orchestrator with a key in its keyring (passphrase
#                   file) and an EVM key, against that chain; its /metrics
#                   count rounds that stop at its missing registration (no
#                   validator registered it, and there is no EVM node here)
#   idlegpu-agent   `init` (key in the file keyring from the passphrase
#                   file, a simulated GPU), `doctor`, funded by the
#                   genesis account and `register`ed; then `run`: `status`
#                   shows it active and running, /metrics is served (its
#                   docker runner finds no daemon: offers stay withdrawn)
#   idlegpu-gateway a gateway.toml in /etc/idlegpu-gateway read as its user,
#                   one deployment on a lease whose ingress does not answer:
#                   /status lists the lease, /healthz names the deployment
#                   as without a healthy lease
# then purges the packages and removes what they and the check made, so the
# machine is left as found. It refuses to run where any of the packages, their
# users or their directories exist. Without systemd as PID 1 nothing here goes
# through systemd: the units' sandboxing is not exercised.
#
#   IDLEGPU_PKG   the idlegpu-pkg binary (release.mk builds it)
#   BUILD_DIR     where `make build` put the binaries (default ./build)
#   VERSION       the release version (git describe)
#   RELEASE_CHECK_PORT  first of 11 consecutive free loopback ports (36650)
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD
: "${IDLEGPU_PKG:?set IDLEGPU_PKG to the idlegpu-pkg binary}" "${VERSION:?set VERSION}"
build=${BUILD_DIR:-$repo/build}
programs=(idlegpud idlegpu-agent idlegpu-web idlegpu-bridge idlegpu-gateway)
start=$SECONDS

step() { printf '== release-check [%3ds] %s\n' $((SECONDS - start)) "$*"; }
fail() {
	echo "release-check: FAIL: $*" >&2
	exit 1
}

# --- preconditions: root, Debian, nothing of ours installed -----------------
[ "$(id -u)" = 0 ] || fail "run as root (it installs packages and makes users)"
command -v dpkg >/dev/null || fail "dpkg not found: this check runs on Debian"
# pkg_known PACKAGE: dpkg knows it in any state but not-installed.
pkg_known() {
	local st
	st=$(dpkg-query -W -f '${db:Status-Status}' "$1" 2>/dev/null) || return 1
	[ -n "$st" ] && [ "$st" != not-installed ]
}
for p in "${programs[@]}"; do
	[ -x "$build/$p" ] || fail "$build/$p not built: run 'make build'"
	# A binary built without -trimpath prints this machine's directories in
	# every panic stack, and those reach tx logs and the web app's errors.
	if grep -qaF "$repo/" "$build/$p"; then fail "$build/$p names the build directory $repo: build it with -trimpath (make build does)"; fi
	if pkg_known "$p"; then fail "package $p is installed here; the check would replace it"; fi
	for what in "passwd $p" "group $p"; do
		# shellcheck disable=SC2086 # "database key"
		if getent $what >/dev/null; then fail "$what exists here; the check would take it over"; fi
	done
	for d in "/var/lib/$p" "/etc/$p"; do
		[ ! -e "$d" ] || fail "$d exists here; the check would take it over"
	done
done
docker_group_existed=0
if getent group docker >/dev/null; then docker_group_existed=1; fi

port=${RELEASE_CHECK_PORT:-36650}
rpc=$port p2p=$((port + 1)) grpc=$((port + 2)) api=$((port + 3)) pprof=$((port + 4)) web=$((port + 5)) metrics=$((port + 6))
agent_endpoint=$((port + 7)) agent_metrics=$((port + 8)) gateway=$((port + 9)) gateway_status=$((port + 10))
for p in $rpc $p2p $grpc $api $pprof $web $metrics $agent_endpoint $agent_metrics; do
	if (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then fail "port $p is in use (set RELEASE_CHECK_PORT)"; fi
done

work=$(mktemp -d "${TMPDIR:-/tmp}/idlegpu-release-check.XXXXXX")
chmod 0755 "$work"
pids=()
installed=0
cleanup() {
	local rc=$?
	for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
	for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
	if [ "$installed" = 1 ]; then
		dpkg --purge "${programs[@]}" >/dev/null 2>&1 || true
		for p in "${programs[@]}"; do
			rm -rf "/var/lib/${p:?}" "/etc/${p:?}"
			if getent passwd "$p" >/dev/null; then userdel "$p" || echo "release-check: could not remove user $p" >&2; fi
			if getent group "$p" >/dev/null; then groupdel "$p" || echo "release-check: could not remove group $p" >&2; fi
		done
		if [ "$docker_group_existed" = 0 ]; then groupdel docker || echo "release-check: could not remove group docker" >&2; fi
	fi
	if [ "$rc" != 0 ]; then
		for f in "$work"/*.log; do
			[ -f "$f" ] || continue
			echo "--- $f (last 30 lines)" >&2
			tail -n 30 "$f" >&2
		done
	fi
	rm -rf "$work"
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- a release directory from ./build ----------------------------------------
step "package ./build as linux/amd64 .debs"
rel=$work/release
mkdir -p "$rel"
bins=()
for p in "${programs[@]}"; do
	# A hard link where it can: a snapshot of build/ without copying 0.5 GB.
	ln "$build/$p" "$rel/${p}_${VERSION}_linux_amd64" 2>/dev/null || cp "$build/$p" "$rel/${p}_${VERSION}_linux_amd64"
	bins+=(-bin "$p=$rel/${p}_${VERSION}_linux_amd64")
done
"$IDLEGPU_PKG" -version "$VERSION" -arch amd64 -formats deb -compression gzip:1 -out "$rel" \
	-maintainer "release-check <root@localhost>" "${bins[@]}" >"$work/pkg.log"
cp scripts/install.sh "$rel/install.sh"
(cd "$rel" && sha256sum -- * >SHA256SUMS)
debs=$(cd "$rel" && ls -- *.deb)
[ "$(echo "$debs" | wc -l)" = "${#programs[@]}" ] || fail "expected ${#programs[@]} .debs, got: $debs"
echo "$debs"

# --- the maintainer scripts --------------------------------------------------
if command -v shellcheck >/dev/null; then
	step "shellcheck the maintainer scripts and install.sh"
	for deb in "$rel"/*.deb; do
		ctl=$work/ctl-$(basename "$deb" .deb)
		dpkg-deb -e "$deb" "$ctl"
		shellcheck -s sh "$ctl"/preinst "$ctl"/postinst "$ctl"/prerm "$ctl"/postrm
	done
	shellcheck scripts/install.sh
else
	step "shellcheck not installed: maintainer scripts not linted"
fi

# --- install.sh: a tampered release is refused --------------------------------
step "install.sh refuses a tampered release"
bad=$work/tampered
# tamper NAME: a copy of the release's NAME with one byte appended (the
# tampered release is hard links to the good one but for these).
tamper() {
	rm "$bad/$1"
	cp "$rel/$1" "$bad/$1"
	printf 'x' >>"$bad/$1"
}
cp -rl "$rel" "$bad"
victim=$(cd "$bad" && ls -- idlegpu-web_*.deb)
tamper "$victim"
if sh scripts/install.sh --from "$bad" >"$work/tampered.log" 2>&1; then
	fail "install.sh installed from a release whose $victim does not match SHA256SUMS"
fi
grep -q "CHECKSUM MISMATCH for $victim" "$work/tampered.log" || fail "install.sh failed without naming the mismatch: $(cat "$work/tampered.log")"
for p in "${programs[@]}"; do
	if pkg_known "$p" || getent passwd "$p" >/dev/null; then
		fail "install.sh refused the release but $p got installed"
	fi
done
# A tampered binary is refused as well.
tamper "idlegpud_${VERSION}_linux_amd64"
if sh scripts/install.sh --from "$bad" --binaries --prefix "$work/prefix-bad" --programs idlegpud >>"$work/tampered.log" 2>&1; then
	fail "install.sh installed a tampered binary"
fi
[ ! -e "$work/prefix-bad/bin/idlegpud" ] || fail "install.sh left a tampered binary in the prefix"

# --- install.sh: plain binaries, then the packages ----------------------------
step "install.sh --binaries into a prefix"
sh scripts/install.sh --from "$rel" --binaries --prefix "$work/prefix" --programs idlegpu-bridge >"$work/install-bin.log"
cmp -s "$rel/idlegpu-bridge_${VERSION}_linux_amd64" "$work/prefix/bin/idlegpu-bridge" ||
	fail "install.sh --binaries: $work/prefix/bin/idlegpu-bridge is not the release's"
"$work/prefix/bin/idlegpu-bridge" --help >/dev/null

step "install.sh installs the .debs (dpkg)"
installed=1
sh scripts/install.sh --from "$rel" >"$work/install-deb.log" 2>&1 || fail "install.sh --from $rel: $(tail -5 "$work/install-deb.log")"
# The renter's gateway is not in the default set (a provider's or a
# validator's machine has no use for it): installed by name.
if pkg_known idlegpu-gateway; then fail "install.sh installed idlegpu-gateway without being asked"; fi
sh scripts/install.sh --from "$rel" --programs idlegpu-gateway >>"$work/install-deb.log" 2>&1 ||
	fail "install.sh --programs idlegpu-gateway: $(tail -5 "$work/install-deb.log")"

# --- what the packages made ---------------------------------------------------
step "users, groups, directories, modes, units"
# expect_stat PATH OWNER:GROUP MODE
expect_stat() {
	local got
	got=$(stat -c '%U:%G %a' "$1" 2>/dev/null) || fail "$1 missing"
	[ "$got" = "$2 $3" ] || fail "$1 is $got, want $2 $3"
}
for p in "${programs[@]}"; do
	[ "$(dpkg-query -W -f '${Status}' "$p")" = "install ok installed" ] || fail "$p not installed"
	IFS=: read -r _ _ _ gid _ home shell < <(getent passwd "$p") || fail "user $p missing"
	[ "$(getent group "$gid" | cut -d: -f1)" = "$p" ] || fail "user $p's group is $gid, not $p"
	[ "$home" = "/var/lib/$p" ] || fail "user $p's home is $home"
	[ "$shell" = /usr/sbin/nologin ] || fail "user $p's shell is $shell"
	[ "$(id -u "$p")" -lt 1000 ] || fail "user $p is not a system user"
	expect_stat "/usr/bin/$p" root:root 755
	expect_stat "/usr/lib/systemd/system/$p.service" root:root 644
	cmp -s "deploy/systemd/$p.service" "/usr/lib/systemd/system/$p.service" || fail "$p.service differs from deploy/systemd"
	expect_stat "/var/lib/$p" "$p:$p" 750
	expect_stat "/etc/$p" "root:$p" 750
	expect_stat "/etc/$p/$p.env" "root:$p" 640
	grep -qx "/etc/$p/$p.env" "/var/lib/dpkg/info/$p.conffiles" || fail "/etc/$p/$p.env is not a conffile"
	cmp -s "$rel/${p}_${VERSION}_linux_amd64" "/usr/bin/$p" || fail "/usr/bin/$p is not the release's"
done
for p in idlegpu-agent idlegpu-web idlegpu-bridge; do
	expect_stat "/etc/$p/keyring-passphrase" "root:$p" 640
	[ "$(head -1 "/etc/$p/keyring-passphrase" | wc -c)" = 65 ] || fail "/etc/$p/keyring-passphrase is not 32 random bytes in hex"
done
[ "$(cat /etc/idlegpu-agent/keyring-passphrase)" != "$(cat /etc/idlegpu-web/keyring-passphrase)" ] || fail "two packages generated the same passphrase"
id -nG idlegpu-agent | tr ' ' '\n' | grep -qx docker || fail "idlegpu-agent is not in the docker group"
if [ -e /etc/idlegpud/keyring-passphrase ]; then fail "idlegpud got a keyring passphrase it does not use"; fi

# A second configure (as on an upgrade) keeps the passphrase and the state.
before=$(sha256sum /etc/idlegpu-agent/keyring-passphrase)
dpkg -i "$rel"/idlegpu-agent_*.deb >"$work/reinstall.log" 2>&1 || fail "reinstalling idlegpu-agent failed"
[ "$before" = "$(sha256sum /etc/idlegpu-agent/keyring-passphrase)" ] || fail "reinstalling idlegpu-agent changed its passphrase"

if ! command -v systemd-analyze >/dev/null && command -v apt-get >/dev/null; then
	step "apt-get install systemd (for systemd-analyze)"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq systemd >"$work/apt.log" 2>&1 ||
		echo "systemd could not be installed: units not verified"
fi
if command -v systemd-analyze >/dev/null; then
	step "systemd-analyze verify"
	for p in "${programs[@]}"; do
		out=$(systemd-analyze verify "/usr/lib/systemd/system/$p.service" 2>&1) || fail "systemd-analyze verify $p.service: $out"
		# Only lines about our unit count: systemd's own units may warn here.
		if echo "$out" | grep -F "$p.service"; then fail "systemd-analyze verify warns about $p.service"; fi
	done
fi

# --- run each unit's ExecStart as its user ------------------------------------
# unit_key UNIT KEY prints the value of KEY= in the installed unit.
unit_key() { sed -n "s/^$2=//p" "/usr/lib/systemd/system/$1.service" | tail -1; }

# unit_cmd UNIT fills the array cmd with the unit's ExecStart, its
# environment file's variables substituted (systemd's $VAR: split on spaces).
unit_cmd() {
	local line env key val
	line=$(unit_key "$1" ExecStart)
	env=$(unit_key "$1" EnvironmentFile)
	env=${env#-}
	while IFS= read -r kv; do
		case $kv in '#'* | '') continue ;; esac
		key=${kv%%=*} val=${kv#*=}
		val=${val#\"} val=${val%\"}
		line=${line//\$\{$key\}/$val}
		line=${line//\$$key/$val}
	done <"$env"
	read -r -a cmd <<<"$line"
}

# unit_user UNIT fills the array user_cmd with what runs a command as the
# unit's user and group (and the user's other groups), with the environment
# systemd gives a service; env and setpriv exec, so a pid is the program's.
unit_user() {
	local user group home
	user=$(unit_key "$1" User) group=$(unit_key "$1" Group)
	home=$(getent passwd "$user" | cut -d: -f6)
	user_cmd=(env -i -C / PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
		HOME="$home" USER="$user" LOGNAME="$user" SHELL=/usr/sbin/nologin
		setpriv --reuid="$user" --regid="$group" --init-groups --)
}

# as_unit UNIT CMD... runs CMD as the unit's user.
as_unit() {
	unit_user "$1"
	shift
	"${user_cmd[@]}" "$@"
}

# start_unit UNIT LOG starts the unit's ExecStart in the background as
# systemd would, its stdin the unit's StandardInput=file: if it has one.
start_unit() {
	local in
	unit_cmd "$1"
	unit_user "$1"
	in=$(unit_key "$1" StandardInput)
	case $in in file:*) in=${in#file:} ;; *) in=/dev/null ;; esac
	echo "start $1 as $(unit_key "$1" User): ${cmd[*]}"
	"${user_cmd[@]}" "${cmd[@]}" <"$in" >"$2" 2>&1 &
	pids+=($!)
}

# http_get PORT PATH prints the body of a GET on loopback.
http_get() {
	local resp
	exec 3<>"/dev/tcp/127.0.0.1/$1" || return 1
	printf 'GET %s HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' "$2" >&3
	resp=$(cat <&3)
	exec 3<&-
	printf '%s' "${resp#*$'\r\n\r\n'}"
}

# wait_for SECONDS WHAT CMD... retries CMD each second until it succeeds.
wait_for() {
	local deadline=$((SECONDS + $1)) what=$2 limit=$1
	shift 2
	until "$@"; do
		[ "$SECONDS" -lt "$deadline" ] || fail "$what: not within ${limit}s"
		for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null || fail "$what: a process ended early"; done
		sleep 1
	done
}

step "idlegpud: a single-validator chain in /var/lib/idlegpud, as the idlegpud user"
mkdir "$work/scripts"
cp scripts/node.sh "$work/scripts/node.sh"
as_unit idlegpud env NODE_HOME=/var/lib/idlegpud NODE_SETUP_ONLY=1 IDLEGPUD=/usr/bin/idlegpud \
	bash "$work/scripts/node.sh" >"$work/node-init.log" 2>&1 || fail "node.sh setup as idlegpud failed"
# A vault address (no EVM node serves it) lets the bridge read its params.
as_unit idlegpud sed -i 's/"vault_address": "0x0\{40\}"/"vault_address": "0x00000000000000000000000000000000000000aa"/' \
	/var/lib/idlegpud/config/genesis.json
grep -q '"vault_address": "0x0*aa"' /var/lib/idlegpud/config/genesis.json || fail "no vault address set in the genesis"
cat >/etc/idlegpud/idlegpud.env <<EOF
ARGS=--rpc.laddr tcp://127.0.0.1:$rpc --p2p.laddr tcp://127.0.0.1:$p2p --grpc.address 127.0.0.1:$grpc --api.address tcp://127.0.0.1:$api --rpc.pprof_laddr 127.0.0.1:$pprof
EOF
start_unit idlegpud "$work/idlegpud.log"
height() { http_get "$rpc" /status 2>/dev/null | sed -n 's/.*"latest_block_height":"\([0-9]*\)".*/\1/p'; }
node_made_blocks() { [ "$(height)" -ge 3 ] 2>/dev/null; }
wait_for 90 "idlegpud making blocks (RPC /status)" node_made_blocks
echo "idlegpud at height $(height)"
[ -z "$(find /var/lib/idlegpud ! -user idlegpud -print -quit)" ] || fail "/var/lib/idlegpud has files not owned by idlegpud"

step "idlegpu-web: serving the chain, relayer key unlocked from its stdin"
keys_add() { # UNIT DIR NAME: a key in a file keyring, the passphrase twice on stdin
	local pass=/etc/$1/keyring-passphrase
	cat "$pass" "$pass" | as_unit "$1" idlegpud keys add "$3" --keyring-backend file --keyring-dir "$2" >/dev/null 2>&1 ||
		fail "$1: keys add $3 in $2 with $pass"
}
keys_add idlegpu-web /var/lib/idlegpu-web relayer
cat >/etc/idlegpu-web/idlegpu-web.env <<EOF
ARGS=--chain-id idlegpu-local --node tcp://127.0.0.1:$rpc --grpc 127.0.0.1:$grpc --listen 127.0.0.1:$web --relayer-key relayer --keyring-dir /var/lib/idlegpu-web
EOF
start_unit idlegpu-web "$work/idlegpu-web.log"
web_indexed() { http_get "$web" /healthz 2>/dev/null | grep -Eq '^ok indexed=[1-9]'; }
wait_for 60 "idlegpu-web /healthz" web_indexed
echo "idlegpu-web: $(http_get "$web" /healthz)"
[ "$(stat -c %U:%G /var/lib/idlegpu-web/index.db)" = idlegpu-web:idlegpu-web ] || fail "index.db is not idlegpu-web's"

step "idlegpu-bridge: orchestrate with its keyring and an EVM key, as idlegpu-bridge"
keys_add idlegpu-bridge /var/lib/idlegpu-bridge orchestrator
od -An -tx1 -N32 /dev/urandom | tr -d ' \n' >/var/lib/idlegpu-bridge/eth-key.hex
chown idlegpu-bridge:idlegpu-bridge /var/lib/idlegpu-bridge/eth-key.hex
chmod 0600 /var/lib/idlegpu-bridge/eth-key.hex
cat >/etc/idlegpu-bridge/idlegpu-bridge.env <<EOF
ARGS=--from orchestrator --chain-id idlegpu-local --node tcp://127.0.0.1:$rpc --eth-rpc http://127.0.0.1:9 --eth-key /var/lib/idlegpu-bridge/eth-key.hex --metrics-listen 127.0.0.1:$metrics --poll 1s
EOF
start_unit idlegpu-bridge "$work/idlegpu-bridge.log"
# Its key unlocked and the chain read, each round stops at the missing
# registration, and says so in its metrics.
bridge_unregistered() { http_get "$metrics" /metrics 2>/dev/null | grep -Eq '^idlegpu_bridge_[a-z]+_errors_total\{step="registration"\} [1-9]'; }
wait_for 30 "idlegpu-bridge /metrics counting its rounds" bridge_unregistered
echo "idlegpu-bridge: $(http_get "$metrics" /metrics | grep -E '^idlegpu_bridge_[a-z]+_errors_total')"

step "idlegpu-agent: init, doctor, register and run as idlegpu-agent"
as_unit idlegpu-agent idlegpu-agent init --home /var/lib/idlegpu-agent \
	--keyring-passphrase-file /etc/idlegpu-agent/keyring-passphrase --chain-id idlegpu-local \
	--node "tcp://127.0.0.1:$rpc" --endpoint-host 127.0.0.1 --gpu-backend sim >"$work/agent-init.log" 2>&1 ||
	fail "idlegpu-agent init as idlegpu-agent"
agent=$(sed -n 's/^agent key "agent": //p' "$work/agent-init.log")
[ -n "$agent" ] || fail "idlegpu-agent init made no key"
expect_stat /var/lib/idlegpu-agent/agent.toml idlegpu-agent:idlegpu-agent 600
# One simulated GPU (one audit on the CPU), the endpoint and metrics on
# the check's ports.
as_unit idlegpu-agent sed -i -e 's/^sim_count = .*/sim_count = 1/' \
	-e "s/^listen = '0.0.0.0:9180'/listen = '127.0.0.1:$agent_endpoint'/" \
	-e "s/^listen = '127.0.0.1:9181'/listen = '127.0.0.1:$agent_metrics'/" /var/lib/idlegpu-agent/agent.toml
# Non-zero: no Docker daemon is asked to run here. What must hold: the
# config, the GPUs and the chain are read, the disks are fine.
as_unit idlegpu-agent idlegpu-agent doctor --home /var/lib/idlegpu-agent >"$work/agent-doctor.log" 2>&1 || true
cat "$work/agent-doctor.log"
grep -Eq '^warn +gpu backend +sim: 1 ' "$work/agent-doctor.log" || fail "idlegpu-agent doctor: not one simulated GPU"
grep -Eq '^ok +clock' "$work/agent-doctor.log" || fail "idlegpu-agent doctor: the chain's clock was not read"
grep -Eq '^ok +disk' "$work/agent-doctor.log" || fail "idlegpu-agent doctor: the state disk is not fine"
# The provider's steps (docs/providers.md): alice of the development
# genesis funds the agent's key, which registers and bonds for its GPU.
as_unit idlegpud idlegpud --home /var/lib/idlegpud tx bank send alice "$agent" 200gpu -y \
	--node "tcp://127.0.0.1:$rpc" >"$work/agent-fund.log" 2>&1 || fail "funding the agent's key"
as_unit idlegpu-agent idlegpu-agent register --home /var/lib/idlegpu-agent --region eu-de-fra1 \
	--endpoint "https://127.0.0.1:$agent_endpoint" --bond 100gpu --moniker release-check >"$work/agent-register.log" 2>&1 ||
	fail "idlegpu-agent register as idlegpu-agent"
start_unit idlegpu-agent "$work/idlegpu-agent.log"
agent_active() {
	as_unit idlegpu-agent idlegpu-agent status --home /var/lib/idlegpu-agent >"$work/agent-status.out" 2>&1 &&
		grep -Eq '^status +ACTIVE' "$work/agent-status.out" && grep -Eq '^mode +running' "$work/agent-status.out" &&
		http_get "$agent_metrics" /metrics 2>/dev/null | grep -q '^# TYPE'
}
wait_for 60 "idlegpu-agent running (status, /metrics)" agent_active
grep -E '^(status|mode|gpus|agent) ' "$work/agent-status.out"

step "idlegpu-gateway: a deployment from its gateway.toml, as idlegpu-gateway"
printf 'igk_release-check-probe\n' >/etc/idlegpu-gateway/probe.key
cat >/etc/idlegpu-gateway/gateway.toml <<EOF
listen = "127.0.0.1:$gateway"
region = "eu-de-fra1"
probe_every = "250ms"

[[deployment]]
host = "chat.example.test"
probe_path = "/v1/models"
probe_key_file = "/etc/idlegpu-gateway/probe.key"

  [[deployment.upstream]]
  lease = 1
  url = "https://lease-1.gpus.example.test"
  connect = "127.0.0.1:9"
  region = "eu-de-fra1"
EOF
chown root:idlegpu-gateway /etc/idlegpu-gateway/gateway.toml /etc/idlegpu-gateway/probe.key
chmod 0640 /etc/idlegpu-gateway/gateway.toml /etc/idlegpu-gateway/probe.key
cat >/etc/idlegpu-gateway/idlegpu-gateway.env <<EOF
ARGS=--config /etc/idlegpu-gateway/gateway.toml --status-listen 127.0.0.1:$gateway_status
EOF
start_unit idlegpu-gateway "$work/idlegpu-gateway.log"
gateway_down() { http_get "$gateway_status" /healthz 2>/dev/null | grep -q 'deployment chat.example.test has no healthy lease'; }
wait_for 30 "idlegpu-gateway /healthz naming the deployment without a healthy lease" gateway_down
echo "idlegpu-gateway: $(http_get "$gateway_status" /healthz)"
http_get "$gateway_status" /status | grep -q '"url":"https://lease-1.gpus.example.test"' || fail "idlegpu-gateway /status does not list lease 1"
rm /etc/idlegpu-gateway/gateway.toml /etc/idlegpu-gateway/probe.key

# --- uninstall ------------------------------------------------------------------
step "stop everything, dpkg --purge"
for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
pids=()
dpkg --purge "${programs[@]}" >"$work/purge.log" 2>&1 || fail "dpkg --purge: $(cat "$work/purge.log")"
for p in "${programs[@]}"; do
	[ ! -e "/usr/bin/$p" ] || fail "/usr/bin/$p left after purge"
	[ ! -e "/usr/lib/systemd/system/$p.service" ] || fail "$p.service left after purge"
	[ ! -e "/etc/$p/$p.env" ] || fail "/etc/$p/$p.env left after purge"
	getent passwd "$p" >/dev/null || fail "purge removed user $p (its files stay: it must too)"
done
[ -d /var/lib/idlegpud/data ] || fail "purge removed the node's state"
step "ok"
