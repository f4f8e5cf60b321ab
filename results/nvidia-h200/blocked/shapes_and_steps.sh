#!/bin/bash
mkdir -p /etc/OpenCL/vendors && echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export D2Q9_CACHE_DIR=/tmp/x
B=build-device
L=$OUT/blk3.txt
run() { # backend size label args...
  local b=$1 size=$2 label=$3; shift 3
  local t
  t=$(timeout 60 $B/d2q9-bgk inputs/input_$size.params inputs/obstacles_$size.dat -o /tmp/o -b $b --no-png "$@" 2>&1 | grep -E "Elapsed time|error|Device" | tr '\n' ' ')
  echo "$b $size $label | $t" >> $L
}
mkdir -p /tmp/o
(cd build-device && timeout 120 ./d2q9_tests -tc="*blocked*,*every kernel variant*" 2>&1 | tail -3) >> $L
for size in 128x128 128x256 256x256 1024x1024; do
  run cuda $size auto -l 128x1
  run cuda $size blocked --kernel-variant blocked -l 256x1
  for k in 3 6 8; do run cuda $size k$k --kernel-variant blocked --block-steps $k -l 256x1; done
  for l in 128x1 512x1; do run cuda $size l$l --kernel-variant blocked -l $l; done
  for t in 8x8 16x8 16x16 32x8; do run cuda $size t$t --kernel-variant blocked --tile $t -l 256x1; done
done
for size in 128x128 128x256 256x256 1024x1024; do
  run opencl $size blocked --kernel-variant blocked -l 256x1
  run opencl $size k3 --kernel-variant blocked -l 256x1 --block-steps 3
  run opencl $size t32x8 --kernel-variant blocked -l 256x1 --tile 32x8
done
for size in 128x128 1024x1024; do
  read nx ny it rest < inputs/input_$size.params
  echo "$nx $ny 400 $rest" > /tmp/short_$size.params
  echo "== ncu $size" >> $L
  timeout 120 ncu --clock-control none -k regex:blocked --launch-skip 20 --launch-count 1 --section SpeedOfLight --section Occupancy --section LaunchStats --metrics smsp__inst_executed.sum,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__average_warp_latency_issue_stalled_barrier.ratio,smsp__average_warp_latency_issue_stalled_short_scoreboard.ratio $B/d2q9-bgk /tmp/short_$size.params inputs/obstacles_$size.dat -o /tmp/o -b cuda --no-png --kernel-variant blocked -l 256x1 2>&1 | grep -vE "^==PROF==|^\s*$" | tail -45 >> $L
done
