#!/usr/bin/env bash
# Each kernel variant's speed on the two CPU OpenCL implementations CI has:
# PoCL (device 0) and rusticl's llvmpipe (device 1 with RUSTICL_ENABLE=llvmpipe).
# One d2q9-bench process per (implementation, variant), float, square
# periodic boxes, each variant's shape as decide_launch picks it for that
# device (fused-rows none; the others the largest row the device takes).
# Usage: results/cpu-implementations/run.sh BUILD_DIR OUT_DIR [SIZES]
set -uo pipefail
build=$1 out=$2 sizes=${3:-128,256,1024}
mkdir -p "$out"
export RUSTICL_ENABLE=llvmpipe
for dev in 0 1; do
  for v in fused-rows fused split fused-x2 blocked; do
    # llvmpipe's compiler takes 2 to over 5 minutes over fused-x2 (measured: 116 s
    # of CPU in float on a 23x17 problem): left out there, and the README says so.
    [ $dev = 1 ] && [ $v = fused-x2 ] && continue
    D2Q9_CACHE_DIR=$(mktemp -d) "$build/d2q9-bench" -d $dev --kernel-variant $v --no-coursework --sizes "$sizes" \
      --min-seconds 0.5 --copy-mib 128 -o "$out/dev$dev" 2>&1 | tee "$out/dev$dev-$v.log"
  done
done
