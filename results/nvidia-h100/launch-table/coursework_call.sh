#!/bin/bash
# The coursework problems, OLD_BUILD against NEW_BUILD alternately (3 rounds
# after an untimed run of each; output bytes, whole-process and loop times),
# CUDA and OpenCL, each line written to $OUT as it comes; then the sponge's
# cost and `auto` at the sizes the rule changed.
# Usage (device machine, repository root): coursework_call.sh OLD_BUILD NEW_BUILD
mkdir -p /etc/OpenCL/vendors && echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
OLD=$1 NEW=$2
export D2Q9_CACHE_DIR=/tmp/d2q9-cache
for p in 128x128 128x256 256x256 1024x1024; do
  for b in cuda opencl; do
    for which in old new; do
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
        echo "$p,$b,$which,$round,$(awk "BEGIN{printf \"%.3f\", $t1 - $t0}"),$loop,$sums" >> $OUT/coursework.csv
      done
    done
  done
done
P=results/validation/cylinder_open/re20/problem.toml
sed 's/, sponge = [0-9]*//' $P > /tmp/nosponge.toml
for round in 1 2 3; do
  for which in sponge none; do
    f=$P; [ $which = none ] && f=/tmp/nosponge.toml
    LD_LIBRARY_PATH=$NEW/lib $NEW/d2q9-bgk $f -b cuda --no-png -o /tmp/sp-$which | grep "^Elapsed time" | sed "s/^/$which $round /" >> $OUT/sponge-cost.txt
  done
done
LD_LIBRARY_PATH=$NEW/lib $NEW/d2q9-bench -b cuda -p float,fp16s,double,fp16c --kernel-variant auto --no-coursework \
  --sizes 256,512,1024 --min-seconds 0.3 -o /tmp/auto > $OUT/cuda-auto-changed.log 2>&1
