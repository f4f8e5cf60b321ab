#!/bin/bash
# One device call: the one-copy (AA) blocked kernel's steps per launch, each
# with the largest square tile that fits (auto tile), every precision, CUDA
# and OpenCL; small grids with a work-item per region cell (CUDA).
# Every line goes to $OUT as it comes.
# Usage (device machine, repository root): steps_call.sh BASE_BUILD NEW_BUILD
mkdir -p /etc/OpenCL/vendors && echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
BASE=$1 NEW=$2
export D2Q9_CACHE_DIR=/tmp/d2q9-cache
BENCH_LOG=$OUT/steps.txt
source "$(dirname "$0")/bench_blocked.sh"
for be in cuda opencl; do
  bench base $BASE $be double 1024,8192
  for steps in 4 5 6; do
    bench "aa-s$steps" $NEW $be float,fp16s,fp16c 512,1024,4096,8192 auto $steps 256
  done
  for steps in 3 4; do
    bench "aa-s$steps" $NEW $be double 1024,8192 auto $steps 256
  done
  echo "$be large done $(date +%T)" >> $OUT/steps.txt
done
for cfg in "8x8 4 256" "8x8 5 324" "8x8 6 400" "8x8 8 576" "12x12 4 400" "12x12 5 484" "12x12 6 576" "16x8 4 384"; do
  bench "aa-$(echo $cfg | tr ' ' -)" $NEW cuda float 128,256 $cfg
done
echo "small done $(date +%T)" >> $OUT/steps.txt
