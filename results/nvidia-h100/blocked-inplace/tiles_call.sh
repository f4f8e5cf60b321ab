#!/bin/bash
# One device call: the in-place blocked kernel (one copy of the region in
# local memory) at tiles, steps per launch and work-group sizes it now
# allows, against the two-copy kernel's auto (BASE), CUDA and OpenCL; then
# the coursework's bytes, BASE against NEW. Every line goes to $OUT as it
# comes (a call that runs past its limit returns only what is there).
# Usage (device machine, repository root): tiles_call.sh BASE_BUILD NEW_BUILD
mkdir -p /etc/OpenCL/vendors && echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
BASE=$1 NEW=$2
export D2Q9_CACHE_DIR=/tmp/d2q9-cache
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv > $OUT/gpu.csv
BENCH_LOG=$OUT/tiles.txt
source "$(dirname "$0")/bench_blocked.sh"
# "19 3 256" (a square tile's side, steps, items) as bench takes it.
square() { echo "$1x$1 $2 $3"; }
# Bytes first: coursework 128x128 and 1024x1024, base auto against new at
# base's launch (same tile: same av_vels) and at a 30x30 tile (same state).
for p in 128x128 1024x1024; do
  for be in cuda opencl; do
    LD_LIBRARY_PATH=$BASE/lib $BASE/d2q9-bgk inputs/input_$p.params inputs/obstacles_$p.dat -b $be --no-png -q -o /tmp/b-$p-$be > /dev/null 2>&1
    for cfg in "8 4 256" "19 3 256" "30 3 256" "16 8 1024"; do
      set -- $cfg
      o=/tmp/n-$p-$be-$1-$2-$3
      LD_LIBRARY_PATH=$NEW/lib $NEW/d2q9-bgk inputs/input_$p.params inputs/obstacles_$p.dat -b $be --no-png -q \
        --kernel-variant blocked --tile $1x$1 --block-steps $2 --local-size $3x1 -o $o > /dev/null 2>&1
      echo "$p $be tile $1 steps $2 local $3: exit $? av_vels $(cmp -s /tmp/b-$p-$be/av_vels.dat $o/av_vels.dat && echo same || echo differ) final_state $(cmp -s /tmp/b-$p-$be/final_state.dat $o/final_state.dat && echo same || echo differ)" >> $OUT/bytes.txt
    done
  done
done
for be in cuda opencl; do
  bench base $BASE $be float,fp16s,fp16c 1024,4096,8192
  for cfg in "19 3 256" "24 3 256" "24 3 512" "30 3 256" "30 3 512" "28 4 512"; do
    bench "new-$(echo $cfg | tr ' ' -)" $NEW $be float 1024,4096,8192 $(square $cfg)
  done
  for cfg in "30 3 256" "36 3 256" "36 3 512" "44 3 512" "44 3 1024"; do
    bench "new-$(echo $cfg | tr ' ' -)" $NEW $be fp16s 4096,8192 $(square $cfg)
  done
  for cfg in "30 3 256" "36 3 512" "44 3 512"; do
    bench "new-$(echo $cfg | tr ' ' -)" $NEW $be fp16c 4096,8192 $(square $cfg)
  done
  echo "$be large done $(date +%T)" >> $OUT/tiles.txt
done
for be in cuda opencl; do
  bench base $BASE $be float 128,256
  for cfg in "8 4 256" "8 6 512" "8 8 512" "12 6 512" "16 4 512" "12 8 1024" "16 6 1024" "16 8 1024" "20 6 1024"; do
    bench "new-$(echo $cfg | tr ' ' -)" $NEW $be float 128,256 $(square $cfg)
  done
  echo "$be small done $(date +%T)" >> $OUT/tiles.txt
done
