#!/bin/bash
# One device call: Nsight Compute on one blocked launch at 4096^2, CUDA, the
# default launch before (BASE: two copies, 3 steps) and after (NEW: one copy,
# 4 steps, unrolled), float, fp16s and fp16c. Each report goes to $OUT.
# Usage (device machine, repository root): ncu_call.sh BASE_BUILD NEW_BUILD
mkdir -p /etc/OpenCL/vendors && echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
OLD=$1 NEW=$2
N="ncu --clock-control none -k regex:propagate_rebound_collide_blocked --launch-skip 10 --launch-count 1 --section SpeedOfLight --section Occupancy --section LaunchStats --section SchedulerStats --metrics smsp__inst_executed.sum,smsp__thread_inst_executed.sum"
for p in float fp16s fp16c; do
  for which in old new; do
    B=$OLD; [ $which = new ] && B=$NEW
    LD_LIBRARY_PATH=$B/lib timeout 90 $N $B/d2q9-bench -b cuda -p $p --kernel-variant blocked --sizes 4096 --no-coursework \
      --min-seconds 0.05 --copy-mib 256 -o /tmp/o > /tmp/ncu_${p}_$which.txt 2>&1
  done
done
tar czf $OUT/ncu4096.tgz -C /tmp $(cd /tmp && ls ncu_*_old.txt ncu_*_new.txt)
for f in /tmp/ncu_*_old.txt /tmp/ncu_*_new.txt; do echo "== $(basename $f)"; grep -E "Block Size|Grid Size|smsp__inst_executed.sum|Issued Warp Per|Achieved Occupancy|Theoretical Occupancy|Block Limit Shared|Block Limit Reg|Registers Per|DRAM Throughput|Duration|Static Shared" $f | sed 's/  */ /g'; done > $OUT/ncu4096_summary.txt
