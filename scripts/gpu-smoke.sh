#!/usr/bin/env bash
# gpu-smoke.sh — the agent against a real NVIDIA driver (run on a GPU
# machine; CI machines have none): the inventory as a provider sees it,
# 10 s of telemetry through NVML, a proof built and verified locally, and
# the memwalk audit on each GPU through the CUDA driver (a small shape
# checked against the CPU reference byte for byte; the board's full shape
# timed against the chain's expected timing, with its random-read rate).
# A few minutes on one H100 or H200.
set -euo pipefail
cd "$(dirname "$0")/.."
export CGO_ENABLED=1 CGO_CFLAGS="${CGO_CFLAGS:--O2 -g -Wno-deprecated-declarations}"

command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=index,uuid,name,memory.total,driver_version --format=csv || echo "nvidia-smi not found (NVML may still load)"

go build -o build/idlegpu-agent ./cmd/idlegpu-agent
echo "== inventory (table)"
build/idlegpu-agent inventory --gpu-backend nvml
echo "== inventory (--json, what register-gpus takes)"
build/idlegpu-agent inventory --gpu-backend nvml --json
echo "== NVML backend, proof and audit smoke tests"
go test -tags nvml -count=1 -v -timeout 9m -run 'Smoke' ./agent/gpu ./agent/proof ./agent/audit
