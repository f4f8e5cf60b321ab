#!/bin/bash
# Old (OLD_BUILD) against new (NEW_BUILD) binaries after the one step loop:
# the coursework problems alternately (3 rounds, CUDA and OpenCL: output
# bytes, whole-process and loop times), d2q9-bench's default launch at
# larger sizes alternately, and 2 MPI ranks on the one GPU against one process.
# Usage (device machine, repository root): device_call.sh OLD_BUILD NEW_BUILD
mkdir -p /etc/OpenCL/vendors && echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
OLD=$1 NEW=$2
export D2Q9_CACHE_DIR=/tmp/d2q9-cache
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/device.txt
for p in 128x128 128x256 256x256 1024x1024; do
  for b in cuda opencl; do
    for which in old new; do  # a first (cold) run of each, untimed here
      B=$OLD; [ $which = new ] && B=$NEW
      LD_LIBRARY_PATH=$B/lib $B/d2q9-bgk inputs/input_$p.params inputs/obstacles_$p.dat -b $b --no-png -q -o /tmp/warm-$which > /dev/null
    done
    for round in 1 2 3; do
      for which in old new; do
        B=$OLD; [ $which = new ] && B=$NEW
        out=/tmp/run-$which-$p-$b; rm -rf $out; mkdir -p $out
        t0=$(date +%s.%N)
        LD_LIBRARY_PATH=$B/lib $B/d2q9-bgk inputs/input_$p.params inputs/obstacles_$p.dat -b $b --no-png -o $out > $out/stdout.txt
        t1=$(date +%s.%N)
        loop=$(grep "^Elapsed time" $out/stdout.txt | awk '{print $3}')
        sums=$(cat $out/av_vels.dat | md5sum | cut -c1-12),$(cat $out/final_state.dat | md5sum | cut -c1-12)
        echo "$p,$b,$which,$round,$(awk "BEGIN{printf \"%.3f\", $t1 - $t0}"),$loop,$sums"
      done
    done
  done
done > $OUT/coursework.csv
# The default launch at larger sizes, old and new alternately (GLUPS in the logs).
for round in 1 2; do
  for b in cuda opencl; do
    for which in old new; do
      B=$OLD; [ $which = new ] && B=$NEW
      LD_LIBRARY_PATH=$B/lib $B/d2q9-bench -b $b -p float,fp16s --no-coursework --sizes 1024,4096 --min-seconds 0.3 \
        -o /tmp/bench-$which-$b-$round > $OUT/bench-$b-$which-$round.log 2>&1
    done
  done
done
# Two MPI ranks (two slabs) on the one GPU against one process: same bytes.
for b in cuda opencl; do
  LD_LIBRARY_PATH=$NEW/lib $NEW/d2q9-bgk inputs/input_256x256.params inputs/obstacles_256x256.dat -b $b --no-png -q -o /tmp/one-$b
  LD_LIBRARY_PATH=$NEW/lib mpirun --allow-run-as-root --oversubscribe -np 2 -x LD_LIBRARY_PATH -x D2Q9_CACHE_DIR \
    $NEW/d2q9-bgk inputs/input_256x256.params inputs/obstacles_256x256.dat -b $b --no-png -q -o /tmp/two-$b > $OUT/mpi-$b.log 2>&1
  for f in av_vels.dat final_state.dat; do
    cmp /tmp/one-$b/$f /tmp/two-$b/$f && echo "$b $f: one process and 2 ranks give the same bytes" >> $OUT/mpi.txt \
      || echo "$b $f: DIFFER" >> $OUT/mpi.txt
  done
done
