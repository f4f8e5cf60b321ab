#!/bin/bash
# No multi-GPU machine was lent: 1, 2, 3 and 4 MPI slabs on ONE GPU, to see
# what the halo exchange costs (strong: the same 8192^2 grid in N slabs;
# weak: 8192 x 8192N), CUDA and OpenCL, float; the byte-identity check of the
# 1024x1024 coursework problem on 2..4 ranks (CUDA).
# Usage (device machine, repository root): device_call.sh BUILD_DIR
mkdir -p /etc/OpenCL/vendors && echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export D2Q9_CACHE_DIR=/tmp/d2q9-cache D2Q9_COMMIT=$(cat $1/commit.txt 2>/dev/null || echo unknown)
scripts/mpi_scaling.sh -b $1 -B cuda -s 500 -o $OUT 4 > $OUT/cuda.log 2>&1; echo "cuda: exit $?"
scripts/mpi_scaling.sh -b $1 -B opencl -s 500 -k -o $OUT 4 > $OUT/opencl.log 2>&1; echo "opencl: exit $?"
nvidia-smi topo -m > $OUT/topo.txt 2>&1
