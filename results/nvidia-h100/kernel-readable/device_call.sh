#!/bin/bash
# One device call: the readable kernel (cl/ now) against the kernel before it
# (OLD_CL: commit bf1ffa6's cl/d2q9_bgk.cl) through NVRTC/CUDA and NVIDIA's
# OpenCL, same binary: bytes (scripts/kernel_identity.sh) and speed
# (d2q9-bench, alternately); then old binary against new for whole-process
# wall time on the 128x128 coursework (10 rounds, alternately), and one
# process against 2 MPI ranks at the same launch (fused).
# Usage (device, repository root): device_call.sh OLD_BUILD NEW_BUILD OLD_CL
mkdir -p /etc/OpenCL/vendors && echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
OLD=$1 NEW=$2 OLD_CL=$3
export D2Q9_CACHE_DIR=/tmp/d2q9-cache
export LD_LIBRARY_PATH=$NEW/lib
( scripts/kernel_identity.sh $NEW/d2q9-bgk $OLD_CL $NEW/cl cuda quick > $OUT/identity-cuda.txt 2>&1 ) &
( scripts/kernel_identity.sh $NEW/d2q9-bgk $OLD_CL $NEW/cl opencl quick > $OUT/identity-opencl.txt 2>&1 ) &
wait
for round in 1 2; do
  for b in cuda opencl; do
    for k in old new; do
      kd=$OLD_CL; [ $k = new ] && kd=$NEW/cl
      $NEW/d2q9-bench -b $b -p float,fp16s,double --no-coursework --sizes 1024,4096 --min-seconds 0.3 --kernels-dir $kd \
        -o /tmp/kb-$b-$k-$round 2>&1 | grep -E "^box" | sed "s/^/$b $k-kernel round$round /" >> $OUT/bench-kernels.txt
    done
  done
done
for round in $(seq 1 10); do
  for b in cuda opencl; do
    for which in old new; do
      B=$OLD; [ $which = new ] && B=$NEW
      out=/tmp/w-$which; rm -rf $out; mkdir -p $out
      t0=$(date +%s.%N)
      LD_LIBRARY_PATH=$B/lib $B/d2q9-bgk inputs/input_128x128.params inputs/obstacles_128x128.dat -b $b --no-png -o $out > $out/stdout.txt
      t1=$(date +%s.%N)
      echo "$b,$which,$round,$(awk "BEGIN{printf \"%.3f\", $t1 - $t0}"),$(grep '^Elapsed time' $out/stdout.txt | awk '{print $3}'),$(md5sum < $out/av_vels.dat | cut -c1-12)" >> $OUT/wall-128.csv
    done
  done
done
grep -iE "setup|context|compile|upload|time" /tmp/w-new/stdout.txt > $OUT/new-summary-times.txt
for b in cuda opencl; do
  for which in old new; do
    B=$OLD; [ $which = new ] && B=$NEW
    LD_LIBRARY_PATH=$B/lib $B/d2q9-bgk inputs/input_256x256.params inputs/obstacles_256x256.dat -b $b --kernel-variant fused -l 64x2 --no-png -q -o /tmp/one-$b-$which
    LD_LIBRARY_PATH=$B/lib mpirun --allow-run-as-root --oversubscribe -np 2 -x LD_LIBRARY_PATH -x D2Q9_CACHE_DIR \
      $B/d2q9-bgk inputs/input_256x256.params inputs/obstacles_256x256.dat -b $b --kernel-variant fused -l 64x2 --no-png -q -o /tmp/two-$b-$which > /dev/null 2>&1
    for f in av_vels.dat final_state.dat; do
      cmp -s /tmp/one-$b-$which/$f /tmp/two-$b-$which/$f && r=same || r=DIFFER
      echo "$b $which binary $f, one process vs 2 ranks (fused 64x2): $r" >> $OUT/mpi.txt
    done
  done
done
