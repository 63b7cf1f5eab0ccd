#!/usr/bin/env bash
# check.sh BASE.tar CONTEXT TAG: CI's check of the agent image. It starts a
# private dockerd (root; no systemd, no iptables, no default bridge), builds
# the image on it with build.sh and runs the image's end-to-end test
# (image_e2e_test.go) against it: doctor in the container, then a
# simulated-GPU agent in the container that wins a lease on a development
# chain on the host and proves it. IDLEGPUD is the node binary (make
# build's); GO the go command.
set -euo pipefail

base_tar=${1:?usage: check.sh BASE.tar CONTEXT TAG}
context=${2:?usage: check.sh BASE.tar CONTEXT TAG}
tag=${3:?usage: check.sh BASE.tar CONTEXT TAG}
root=$(cd "$(dirname "$0")/../.." && pwd)
: "${IDLEGPUD:?set IDLEGPUD to an idlegpud binary (make build)}"
[ -x "$IDLEGPUD" ] || { echo "check.sh: $IDLEGPUD is not built: run make build first" >&2; exit 1; }
command -v dockerd >/dev/null || { echo "check.sh: needs dockerd (apt-get install docker.io)" >&2; exit 1; }
[ "$(id -u)" = 0 ] || { echo "check.sh: starting a private dockerd needs root" >&2; exit 1; }

# A short directory: a unix socket's path must stay under 108 bytes.
dir=$(mktemp -d /tmp/idlegpu-image-XXXXXX)
sock=$dir/docker.sock
dockerd --data-root "$dir/data" --exec-root "$dir/exec" -H "unix://$sock" --pidfile "$dir/dockerd.pid" \
  --iptables=false --ip-masq=false --bridge=none >"$dir/dockerd.log" 2>&1 &
dockerd_pid=$!
stop_dockerd() {
  kill -TERM "$dockerd_pid" 2>/dev/null || true
  wait "$dockerd_pid" 2>/dev/null || true
  # dockerd leaves its default network namespace mounted under exec-root.
  awk -v d="$dir/" 'index($2, d) == 1 {print $2}' /proc/mounts | sort -r | xargs -r -n1 umount 2>/dev/null || true
  rm -rf "$dir" || echo "check.sh: leaving $dir" >&2
}
trap stop_dockerd EXIT
export DOCKER_HOST=unix://$sock
deadline=$((SECONDS + 60))
until docker version >/dev/null 2>&1; do
  if ! kill -0 "$dockerd_pid" 2>/dev/null || [ "$SECONDS" -ge "$deadline" ]; then
    echo "check.sh: the private dockerd did not answer within 60 s:" >&2
    tail -5 "$dir/dockerd.log" >&2
    exit 1
  fi
  sleep 0.5
done
docker version --format 'private dockerd {{.Server.Version}} at '"$sock"

"$root/deploy/image/build.sh" "$base_tar" "$context" "$tag"

cd "$root"
IDLEGPU_IMAGE=$tag IDLEGPUD=$IDLEGPUD "${GO:-go}" test -count=1 -timeout 10m -v ./deploy/image
