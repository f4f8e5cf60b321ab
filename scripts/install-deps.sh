#!/usr/bin/env bash
# Installs the build and test dependencies on Debian 12 / Ubuntu 22.04+ (run as root, or with sudo available).
set -euo pipefail
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
# OpenCL: ICD loader, C and C++ headers, and PoCL as a CPU device where no GPU driver is present.
$sudo apt-get install -y -qq --no-install-recommends \
  ca-certificates cmake make g++ \
  ocl-icd-libopencl1 ocl-icd-opencl-dev opencl-c-headers opencl-clhpp-headers pocl-opencl-icd clinfo \
  libboost-program-options-dev doctest-dev libxxhash-dev >/dev/null
echo "install-deps: done"
