#!/bin/bash
# One device call: the blocked kernel's region in one copy (AA order)
# against two copies (BASE's auto), tiles and steps per launch, CUDA and
# OpenCL; coursework bytes. Every line goes to $OUT as it comes.
# Usage (device machine, repository root): aa_call.sh BASE_BUILD NEW_BUILD
mkdir -p /etc/OpenCL/vendors && echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
BASE=$1 NEW=$2
export D2Q9_CACHE_DIR=/tmp/d2q9-cache
BENCH_LOG=$OUT/aa.txt
source "$(dirname "$0")/bench_blocked.sh"
for p in 128x128 1024x1024; do
  for be in cuda opencl; do
    LD_LIBRARY_PATH=$BASE/lib $BASE/d2q9-bgk inputs/input_$p.params inputs/obstacles_$p.dat -b $be --no-png -q -o /tmp/b-$p-$be > /dev/null 2>&1
    for cfg in "8x8 4 256" "19x19 3 256" "30x30 3 256" "16x16 6 256"; do
      set -- $cfg
      o=/tmp/n-$p-$be-$1-$2-$3
      LD_LIBRARY_PATH=$NEW/lib $NEW/d2q9-bgk inputs/input_$p.params inputs/obstacles_$p.dat -b $be --no-png -q \
        --kernel-variant blocked --tile $1 --block-steps $2 --local-size $3x1 -o $o > /dev/null 2>&1
      echo "$p $be tile $1 steps $2 local $3: exit $? av_vels $(cmp -s /tmp/b-$p-$be/av_vels.dat $o/av_vels.dat && echo same || echo differ) final_state $(cmp -s /tmp/b-$p-$be/final_state.dat $o/final_state.dat && echo same || echo differ)" >> $OUT/bytes.txt
    done
  done
done
for be in cuda opencl; do
  bench base $BASE $be float,fp16s,fp16c 1024,4096,8192
  for cfg in "19x19 3 256" "24x24 3 256" "30x30 3 256" "28x28 4 256" "30x30 3 128" "60x15 3 256"; do
    bench "aa-$(echo $cfg | tr ' ' -)" $NEW $be float 1024,4096,8192 $cfg
  done
  for cfg in "30x30 3 256" "36x36 3 256" "44x44 3 256" "40x40 4 256"; do
    bench "aa-$(echo $cfg | tr ' ' -)" $NEW $be fp16s,fp16c 4096,8192 $cfg
  done
  echo "$be large done $(date +%T)" >> $OUT/aa.txt
done
for be in cuda opencl; do
  bench base $BASE $be float 128,256
  for cfg in "8x8 4 256" "12x12 4 256" "16x16 4 256" "8x8 6 256" "12x12 6 256" "16x8 4 256" "16x16 8 256"; do
    bench "aa-$(echo $cfg | tr ' ' -)" $NEW $be float 128,256 $cfg
  done
  echo "$be small done $(date +%T)" >> $OUT/aa.txt
done
# Nsight Compute, float 1024^2, one launch of 3 steps: two copies (BASE, 19x19) against one (19x19, 30x30).
N="ncu --clock-control none -k regex:propagate_rebound_collide_blocked --launch-skip 20 --launch-count 1 --section SpeedOfLight --section Occupancy --section LaunchStats --section SchedulerStats --metrics smsp__inst_executed.sum,smsp__thread_inst_executed.sum"
C="-b cuda -p float --kernel-variant blocked --block-steps 3 --local-size 256x1 --sizes 1024 --no-coursework --min-seconds 0.05 --copy-mib 256 -o /tmp/o"
LD_LIBRARY_PATH=$BASE/lib timeout 60 $N $BASE/d2q9-bench $C --tile 19x19 > $OUT/ncu_base_float_19.txt 2>&1
LD_LIBRARY_PATH=$NEW/lib timeout 60 $N $NEW/d2q9-bench $C --tile 19x19 > $OUT/ncu_aa_float_19.txt 2>&1
LD_LIBRARY_PATH=$NEW/lib timeout 60 $N $NEW/d2q9-bench $C --tile 30x30 > $OUT/ncu_aa_float_30.txt 2>&1
echo "ncu done $(date +%T)" >> $OUT/aa.txt
