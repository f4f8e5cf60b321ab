#!/bin/bash
# Run 2: old vs new blocked kernel, one binary and two kernel folders; fused 16-bit; ncu before/after. Results straight into $OUT.
D=$(cd "$(dirname "$0")" && pwd); B=$D/bin/d2q9-bench; W=$OUT; export LD_LIBRARY_PATH=$D/lib
C="--no-coursework --min-seconds 0.2 --copy-mib 256"
S="--sizes 1024,4096"
L=$W/log.txt
go() { tag=$1; shift; echo "$(date +%T) $tag: $*" >> $L; timeout 40 $B "$@" -o /tmp/o > /tmp/$tag.txt 2>&1 || echo "FAIL $tag rc=$?" >> $L;
  head -2 /tmp/$tag.txt >> $L; awk -v t=$tag '$1 ~ /^box_/ {printf "%-14s %-9s %-6s %8.0f %s\n", t, $1, $2, $5, $9}' /tmp/$tag.txt | tee -a $W/glups.txt; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv >> $L 2>&1
go old_cuda -b cuda -p float,fp16s,fp16c --kernel-variant blocked -l 256x1 --block-steps 3 --tile 19x19 $S $C --kernels-dir $D/cl_old
go new_cuda -b cuda -p float,fp16s,fp16c --kernel-variant blocked -l 256x1 $S $C --kernels-dir $D/cl_new
go fused_cuda -b cuda -p fp16s,fp16c --kernel-variant fused $S $C --kernels-dir $D/cl_old
go new25_cuda -b cuda -p fp16s,fp16c --kernel-variant blocked -l 256x1 --block-steps 3 --tile 25x25 $S $C --kernels-dir $D/cl_new
N="ncu --clock-control none -k regex:propagate_rebound_collide_blocked --launch-skip 20 --launch-count 1 --section SpeedOfLight --section Occupancy --section LaunchStats --section SchedulerStats --metrics smsp__inst_executed.sum,smsp__thread_inst_executed.sum"
echo "$(date +%T) ncu" >> $L
timeout 30 $N $B -b cuda -p fp16s --kernel-variant blocked -l 256x1 --block-steps 3 --tile 19x19 --sizes 1024 --no-coursework --min-seconds 0.05 --copy-mib 256 --kernels-dir $D/cl_old -o /tmp/o > $W/ncu_old_fp16s.txt 2>&1
timeout 30 $N $B -b cuda -p fp16s --kernel-variant blocked -l 256x1 --sizes 1024 --no-coursework --min-seconds 0.05 --copy-mib 256 --kernels-dir $D/cl_new -o /tmp/o > $W/ncu_new_fp16s.txt 2>&1
go new_ocl -b opencl -p float,fp16s,fp16c --kernel-variant blocked -l 256x1 --sizes 4096 $C --kernels-dir $D/cl_new
go old_ocl -b opencl -p float,fp16s,fp16c --kernel-variant blocked -l 256x1 --block-steps 3 --tile 19x19 --sizes 4096 $C --kernels-dir $D/cl_old
go new8k_cuda -b cuda -p fp16s --kernel-variant blocked -l 256x1 --sizes 8192 $C --kernels-dir $D/cl_new
go fused8k_cuda -b cuda -p fp16s --kernel-variant fused --sizes 8192 $C --kernels-dir $D/cl_old
echo "$(date +%T) end" >> $L
grep -h "Registers Per\|Achieved Occupancy\|Theoretical Occupancy\|Issue Slots Busy\|DRAM Throughput\|Duration\|inst_executed.sum\|Block Limit\|Shared Memory Config\|Static Shared" $W/ncu_*.txt
