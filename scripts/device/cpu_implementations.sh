#!/usr/bin/env bash
# Each kernel variant's speed on the two CPU OpenCL implementations CI has:
# PoCL (device 0) and rusticl's llvmpipe (device 1 with RUSTICL_ENABLE=llvmpipe).
# One d2q9-bench process per (implementation, variant), float, square
# periodic boxes, each variant's shape as decide_launch picks it for that
# device (fused-rows none; the others the largest row the device takes).
# Usage: scripts/device/cpu_implementations.sh BUILD_DIR OUT_DIR [SIZES]
# Writes only below OUT_DIR (each process's kernel cache is a temporary
# folder, removed at the end).
case "${1:-}" in -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac
set -uo pipefail
[ $# -ge 2 ] || { echo "usage: $0 BUILD_DIR OUT_DIR [SIZES]" >&2; exit 2; }
build=$1 out=$2 sizes=${3:-128,256,1024}
mkdir -p "$out"
caches=$(mktemp -d)
trap 'rm -rf "$caches"' EXIT
export RUSTICL_ENABLE=llvmpipe
for dev in 0 1; do
  for v in fused-rows fused split blocked; do
    D2Q9_CACHE_DIR=$(mktemp -d -p "$caches") "$build/d2q9-bench" -d $dev --kernel-variant $v --no-coursework --sizes "$sizes" \
      --min-seconds 0.5 --copy-mib 128 -o "$out/dev$dev" 2>&1 | tee "$out/dev$dev-$v.log"
  done
done
