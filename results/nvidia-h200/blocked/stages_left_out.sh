#!/bin/bash
mkdir -p /etc/OpenCL/vendors && echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export D2Q9_CACHE_DIR=/tmp/x
B=build-device
L=$OUT/blk4.txt
run() { # backend size label args...
  local b=$1 size=$2 label=$3; shift 3
  local t
  t=$(timeout 60 $B/d2q9-bgk inputs/input_$size.params inputs/obstacles_$size.dat -o /tmp/o -b $b --no-png "$@" 2>&1 | grep -E "Elapsed time|error" | tr '\n' ' ')
  echo "$b $size $label | $t" >> $L
}
mkdir -p /tmp/o
(cd build-device && timeout 120 ./d2q9_tests -tc="*blocked*" 2>&1 | grep -v "^$" | grep -B2 -A12 -E "ERROR|exception|THREW" | head -60) >> $L
for b in cuda opencl; do
for size in 128x128 128x256 256x256 1024x1024; do
  run $b $size blocked --kernel-variant blocked -l 256x1
  run $b $size nocollide --kernel-variant blocked -l 256x1 --kernels-dir $B/exp15/nocollide
  run $b $size notree --kernel-variant blocked -l 256x1 --kernels-dir $B/exp15/notree
  run $b $size k1 --kernel-variant blocked -l 256x1 --block-steps 1
  run $b $size k1-nocollide --kernel-variant blocked -l 256x1 --block-steps 1 --kernels-dir $B/exp15/nocollide
done
done
for size in 128x128 1024x1024; do
  read nx ny it rest < inputs/input_$size.params
  echo "$nx $ny 400 $rest" > /tmp/short_$size.params
  echo "== ncu $size" >> $L
  timeout 120 ncu --clock-control none -k regex:blocked --launch-skip 20 --launch-count 1 --section SpeedOfLight --section WarpStateStats --section ComputeWorkloadAnalysis $B/d2q9-bgk /tmp/short_$size.params inputs/obstacles_$size.dat -o /tmp/o -b cuda --no-png --kernel-variant blocked -l 256x1 2>&1 | grep -E "Throughput|Duration|Stall|Issue|Executed Ipc|Issued|Warp Cycles|Elapsed Cycles|SM Busy" >> $L
done
