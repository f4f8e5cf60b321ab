#!/bin/bash
# Blocked against fused, every precision, 128^2..8192^2, CUDA and OpenCL, one
# d2q9-bench process per (backend, variant); the data the default follows.
# Usage (on the device machine, from the repository root): device_call.sh BUILD_DIR
mkdir -p /etc/OpenCL/vendors && echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export D2Q9_CACHE_DIR=/tmp/d2q9-cache
B=${1:-build-device}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv > $OUT/gpu.csv
for backend in cuda opencl; do
  for variant in blocked fused auto; do
    $B/d2q9-bench -b $backend -p float,fp16s,fp16c,double --kernel-variant $variant --no-coursework \
      --sizes 128,256,512,1024,2048,4096,8192 --min-seconds 0.3 -o $OUT/$backend-$variant \
      > $OUT/$backend-$variant.log 2>&1
    echo "$backend $variant: exit $?"
  done
done
