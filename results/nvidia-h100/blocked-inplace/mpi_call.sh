#!/bin/bash
# One device call on two GPUs: (1) the small coursework problems, BASE
# against NEW (d7b4e12's small-grid tiles) alternately on GPU 0, CUDA and
# OpenCL; (2) scripts/mpi_blocked_check.sh NEW: blocked under MPI, 1 process
# against 2 ranks (bytes), 1 rank against 2 (throughput).
# Usage (device machine, repository root): mpi_call.sh BASE_BUILD NEW_BUILD
mkdir -p /etc/OpenCL/vendors && echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
OLD=$1 NEW=$2
export D2Q9_CACHE_DIR=/tmp/d2q9-cache
CUDA_VISIBLE_DEVICES=0 bash scripts/coursework_old_new.sh $OLD $NEW $OUT/coursework-small.csv "128x128 128x256 256x256"
LD_LIBRARY_PATH=$NEW/lib BUDGET_S=${BUDGET_S:-360} bash scripts/mpi_blocked_check.sh $NEW
