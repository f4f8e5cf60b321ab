#!/bin/bash
# Run 1: old vs new blocked kernel (one binary, two kernel folders), fused 16-bit, a tile/steps sweep, ncu before/after.
D=$(cd "$(dirname "$0")" && pwd); B=$D/bin/d2q9-bench; W=/tmp/r1; mkdir -p $W
export LD_LIBRARY_PATH=$D/lib
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $W/gpu.txt 2>&1
C="--no-coursework --min-seconds 0.3 --copy-mib 256"
S="--sizes 1024,2048,4096,8192"
go() { tag=$1; shift; echo "== $tag: $*" >> $W/cmds.txt; timeout 120 $B "$@" -o $W/$tag > $W/$tag.txt 2>&1 || echo "FAIL $tag rc=$?" >> $W/cmds.txt; }
go old_blk_cuda -b cuda -p float,fp16s,fp16c --kernel-variant blocked -l 256x1 --block-steps 3 --tile 19x19 $S $C --kernels-dir $D/cl_old
go new_blk_cuda -b cuda -p float,fp16s,fp16c --kernel-variant blocked -l 256x1 $S $C --kernels-dir $D/cl_new
go fused16_cuda -b cuda -p fp16s,fp16c --kernel-variant fused $S $C --kernels-dir $D/cl_old
go old_blk_opencl -b opencl -p float,fp16s,fp16c --kernel-variant blocked -l 256x1 --block-steps 3 --tile 19x19 $S $C --kernels-dir $D/cl_old
go new_blk_opencl -b opencl -p float,fp16s,fp16c --kernel-variant blocked -l 256x1 $S $C --kernels-dir $D/cl_new
# sweep, CUDA, 4096^2 and 8192^2 (16-bit unless noted)
Z="--sizes 4096"; C="--no-coursework --min-seconds 0.2 --copy-mib 256"
go sw_f_s3_19 -b cuda -p fp16s,fp16c --kernel-variant blocked -l 256x1 --block-steps 3 --tile 19x19 $Z $C --kernels-dir $D/cl_new
go sw_f_s3_19_lb -b cuda -p float,fp16s,fp16c --kernel-variant blocked -l 256x1 --block-steps 3 --tile 19x19 $Z $C --kernels-dir $D/cl_lb
go sw_f_s3_24 -b cuda -p fp16s,fp16c --kernel-variant blocked -l 256x1 --block-steps 3 --tile 24x24 $Z $C --kernels-dir $D/cl_new
go sw_f_s2_30 -b cuda -p fp16s,fp16c --kernel-variant blocked -l 256x1 --block-steps 2 --tile 30x30 $Z $C --kernels-dir $D/cl_new
go sw_f_s4_28 -b cuda -p fp16s,fp16c --kernel-variant blocked -l 256x1 --block-steps 4 --tile 28x28 $Z $C --kernels-dir $D/cl_new
go sw_f_s3_30_l512 -b cuda -p fp16s,fp16c --kernel-variant blocked -l 512x1 --block-steps 3 --tile 30x30 $Z $C --kernels-dir $D/cl_new
go sw_f_s3_30_l128 -b cuda -p fp16s,fp16c --kernel-variant blocked -l 128x1 --block-steps 3 --tile 30x30 $Z $C --kernels-dir $D/cl_new
go sw_f_s2_22x40 -b cuda -p fp16s,fp16c --kernel-variant blocked -l 256x1 --block-steps 2 --tile 40x22 $Z $C --kernels-dir $D/cl_new
go sw_fl_s2_21 -b cuda -p float --kernel-variant blocked -l 256x1 --block-steps 2 --tile 21x21 $Z $C --kernels-dir $D/cl_new
go sw_fl_s3_19_l512 -b cuda -p float --kernel-variant blocked -l 512x1 --block-steps 3 --tile 19x19 $Z $C --kernels-dir $D/cl_new
tar czf $OUT/r1.tgz -C /tmp r1
for f in $W/*.txt; do case $f in *ncu*|*cmds*|*gpu*) continue;; esac; awk -v t=$(basename $f .txt) '$1 ~ /^box_/ {printf "%-18s %-9s %-6s %8.0f %s\n", t, $1, $2, $5, $9}' $f; done
cat $W/cmds.txt | grep FAIL
grep -h "Registers Per\|Achieved Occupancy\|Theoretical Occupancy\|Issue Slots Busy\|DRAM Throughput\|Duration\|smsp__inst_executed.sum\|Block Limit" $W/ncu_*.txt | head -80
