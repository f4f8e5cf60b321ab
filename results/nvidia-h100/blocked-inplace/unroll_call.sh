#!/bin/bash
# One device call: the blocked kernel's step loop as it is (A), unrolled by
# two (B: each copy's AA parity known when compiled) and fully (C: the steps
# per launch unrolled, the per-step sums in registers), one binary with three
# kernel folders; Nsight Compute at 128^2 (A, C). Lines go to $OUT as they come.
# Usage (device machine, repository root): unroll_call.sh BUILD (with cl/, cl_B/, cl_C/)
mkdir -p /etc/OpenCL/vendors && echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
B=$1
export D2Q9_CACHE_DIR=/tmp/d2q9-cache LD_LIBRARY_PATH=$B/lib
for be in cuda opencl; do
  for v in A B C; do
    k=$B/cl; [ $v != A ] && k=$B/cl_$v
    timeout 150 $B/d2q9-bench -b $be -p float,fp16s --kernel-variant blocked --no-coursework --sizes 128,256,1024,8192 \
      --min-seconds 0.3 --copy-mib 256 --kernels-dir $k -o /tmp/csv 2>&1 | grep -E "^box_|error" | sed "s/^/$v $be /" >> $OUT/unroll.txt
  done
  echo "$be done $(date +%T)" >> $OUT/unroll.txt
done
N="ncu --clock-control none -k regex:propagate_rebound_collide_blocked --launch-skip 50 --launch-count 1 --section SpeedOfLight --section Occupancy --section LaunchStats --section SchedulerStats --section WarpStateStats --metrics smsp__inst_executed.sum,smsp__thread_inst_executed.sum"
for v in A C; do
  k=$B/cl; [ $v != A ] && k=$B/cl_$v
  timeout 60 $N $B/d2q9-bench -b cuda -p float --kernel-variant blocked --sizes 128 --no-coursework --min-seconds 0.05 --copy-mib 256 --kernels-dir $k -o /tmp/o > $OUT/ncu_128_$v.txt 2>&1
  timeout 60 $N $B/d2q9-bench -b cuda -p float --kernel-variant blocked --sizes 8192 --no-coursework --min-seconds 0.05 --copy-mib 256 --kernels-dir $k -o /tmp/o > $OUT/ncu_8192_$v.txt 2>&1
done
