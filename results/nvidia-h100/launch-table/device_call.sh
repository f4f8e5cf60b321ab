#!/bin/bash
# One device call: (1) the launch decision's data, blocked against fused and
# what `auto` runs, every precision, 128^2..8192^2, CUDA and OpenCL, one
# d2q9-bench process per (backend, variant), with CSVs for the roofline
# plot; (2) the coursework problems, OLD_BUILD against NEW_BUILD alternately
# (output bytes, whole-process and loop times), CUDA and OpenCL.
# Usage (device machine, repository root): device_call.sh OLD_BUILD NEW_BUILD
mkdir -p /etc/OpenCL/vendors && echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
OLD=$1 NEW=$2
export D2Q9_CACHE_DIR=/tmp/d2q9-cache
D=/tmp/launch-table; mkdir -p $D
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv > $D/gpu.csv
for backend in cuda opencl; do
  for variant in blocked fused auto; do
    LD_LIBRARY_PATH=$NEW/lib $NEW/d2q9-bench -b $backend -p float,fp16s,fp16c,double --kernel-variant $variant \
      --no-coursework --sizes 128,256,512,1024,2048,4096,8192 --min-seconds 0.3 -o $D/csv-$backend-$variant \
      > $D/$backend-$variant.log 2>&1
    echo "$backend $variant: exit $?"
  done
done
for p in 128x128 128x256 256x256 1024x1024; do
  for b in cuda opencl; do
    for which in old new; do  # a first (cold) run of each, untimed here
      B=$OLD; [ $which = new ] && B=$NEW
      LD_LIBRARY_PATH=$B/lib $B/d2q9-bgk inputs/input_$p.params inputs/obstacles_$p.dat -b $b --no-png -q -o /tmp/warm-$which > /dev/null
    done
    for round in 1 2 3 4 5; do
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
done > $D/coursework.csv
tar czf $OUT/launch-table.tgz -C /tmp launch-table
# What the sponge costs: the open-flow cylinder (Re 20, 1000 x 600, 60,000
# steps) with and without its outlet layer, alternately, loop time.
P=results/validation/cylinder_open/re20/problem.toml
sed 's/, sponge = [0-9]*//' $P > /tmp/nosponge.toml
for round in 1 2 3; do
  for which in sponge none; do
    f=$P; [ $which = none ] && f=/tmp/nosponge.toml
    LD_LIBRARY_PATH=$NEW/lib $NEW/d2q9-bgk $f -b cuda --no-png -o /tmp/sp-$which | grep "^Elapsed time" | sed "s/^/$which $round /"
  done
done > $OUT/sponge-cost.txt
