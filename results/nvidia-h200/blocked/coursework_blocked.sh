#!/bin/bash
mkdir -p /etc/OpenCL/vendors && echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export D2Q9_CACHE_DIR=/tmp/x
B=build-device
L=$OUT/coursework_blocked.txt
echo "commit $(git rev-parse --short HEAD); $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)" >> $L
(cd build-device && timeout 150 ./d2q9_tests -tc="*blocked*,*every kernel variant*,*CUDA: the command line*" 2>&1 | grep -v "^$" | grep -B2 -A12 -E "ERROR|exception|THREW" | head -40; ./d2q9_tests -tc="*blocked*,*every kernel variant*" 2>&1 | tail -2) >> $L
run() { # backend size label args...
  local b=$1 size=$2 label=$3; shift 3
  local t
  t=$(timeout 100 $B/d2q9-bgk inputs/input_$size.params inputs/obstacles_$size.dat -o /tmp/o -b $b --no-png "$@" 2>&1 | grep -E "Elapsed time|error|Device|Launch" | sed -E 's/\s+/ /g' | tr '\n' ' ')
  echo "$b $size $label | $t" >> $L
}
mkdir -p /tmp/o
for b in cuda opencl; do
  for size in 128x128 128x256 256x256 1024x1024; do
    run $b $size before --kernel-variant $( [ $size = 1024x1024 ] && echo fused || echo fused-x2 ) -l 128x1
    run $b $size blocked --kernel-variant blocked -l 256x1
    run $b $size auto
    run $b $size before-again --kernel-variant $( [ $size = 1024x1024 ] && echo fused || echo fused-x2 ) -l 128x1
    run $b $size blocked-again --kernel-variant blocked -l 256x1
  done
done
