#!/usr/bin/env bash
# Generates the agent's audit kernels (memwalk_build, memwalk_walk),
# agent/audit/kernels/memwalk.ptx, from their LLVM IR with llc (Debian's
# llvm package; no CUDA toolkit). With --check it fails when the committed
# PTX differs from a fresh build. The output is pinned to LLVM 14 (Debian
# bookworm): another major version generates different, equally valid PTX,
# so the check says so and skips.
set -euo pipefail
cd "$(dirname "$0")/.."
want=14
src=agent/audit/kernels/memwalk.ll
dst=agent/audit/kernels/memwalk.ptx
llc=${LLC:-$(command -v llc-$want || command -v llc || true)}
if [ -z "$llc" ]; then
  echo "llc not found: install LLVM $want (Debian: apt-get install llvm)" >&2
  exit 1
fi
ver=$("$llc" --version | sed -n 's/.*LLVM version \([0-9]*\).*/\1/p' | head -1)
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
{
  echo "// Generated from memwalk.ll by scripts/audit-ptx.sh (LLVM $want llc); do not edit."
  "$llc" -march=nvptx64 -mcpu=sm_50 -O3 "$src" -o -
} >"$tmp"
if [ "${1:-}" = --check ]; then
  if [ "$ver" != "$want" ]; then
    echo "llc is LLVM $ver, the kernel is pinned to LLVM $want: PTX check skipped"
    exit 0
  fi
  if ! cmp -s "$tmp" "$dst"; then
    echo "$dst differs from $src (run 'make audit-ptx' and commit)" >&2
    diff -u "$dst" "$tmp" | head -40 >&2 || true
    exit 1
  fi
  echo "audit kernel PTX matches its source"
  exit 0
fi
[ "$ver" = "$want" ] || echo "warning: llc is LLVM $ver, not $want: the committed PTX will differ from CI's check" >&2
cp "$tmp" "$dst"
echo "wrote $dst"
